package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replica whose raft-meta a full disk left empty is refused with the recovery, not Ratis's bare error. */
class RaftMetaCheckTest {
    @TempDir
    Path dataDir;

    @Test
    void anEmptyRaftMetaIsRefusedWithTheRecovery() throws IOException {
        Path current = Files.createDirectories(dataDir.resolve("raft").resolve("group-a").resolve("current"));
        Files.writeString(current.resolve("raft-meta"), "");

        assertThatThrownBy(() -> RaftMetaCheck.throwIfAnyEmpty(dataDir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("holds no term")
                .hasMessageContaining("delete its data dir");
    }

    @Test
    void aRaftMetaWithATermAndAFreshDataDirPass() throws IOException {
        assertThatCode(() -> RaftMetaCheck.throwIfAnyEmpty(dataDir)).doesNotThrowAnyException();
        Path current = Files.createDirectories(dataDir.resolve("raft").resolve("group-a").resolve("current"));
        Files.writeString(current.resolve("raft-meta"), "#comment\nterm=7\nvotedFor=n1\n");

        assertThatCode(() -> RaftMetaCheck.throwIfAnyEmpty(dataDir)).doesNotThrowAnyException();
    }
}
