package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a node releases a replica because the cluster moved the partition away
 * ({@link HostedReplicas#movedAway}), and which replica dirs hold nothing worth keeping
 * ({@link ReplicaStorage#neverReceivedAnything}).
 */
class HostedReplicasTest {
    private static final int SELF = 1;
    private static final long HOLD_MS = 1_000;

    @TempDir
    Path dir;

    private static Membership conf(long index, int... voters) {
        return new Membership(IntStream.of(voters).mapToObj(id -> new NodeAddress(id, "127.0.0.1", 7200 + id,
                7100 + id)).toList(), List.of(), index);
    }

    @Test
    void aReplicaNeverListedIsNotReleased() {
        HostedReplicas replicas = new HostedReplicas(2);
        // Being added: the snapshot it was sent carries a configuration from before it.
        assertThat(replicas.movedAway(1, SELF, conf(10, 2, 3), true, 0, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(10, 2, 3), true, 5_000, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(10, 2, 3), false, 5_000, HOLD_MS)).isFalse();
        assertThat(replicas.wasMember(1)).isFalse();
    }

    @Test
    void aNewerConfigurationWithoutTheNodeReleasesItAfterTheHold() {
        HostedReplicas replicas = new HostedReplicas(2);
        assertThat(replicas.movedAway(1, SELF, conf(10, 1, 2), true, 0, HOLD_MS)).isFalse();
        assertThat(replicas.wasMember(1)).isTrue();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), true, 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), true, 1_000, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), true, 1_101, HOLD_MS)).isTrue();
    }

    @Test
    void anOlderConfigurationWithoutTheNodeIsTheLogGoingBackNotAMove() {
        HostedReplicas replicas = new HostedReplicas(2);
        replicas.movedAway(1, SELF, conf(30, 1, 2), true, 0, HOLD_MS);
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), true, 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), true, 5_000, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), false, 5_000, HOLD_MS)).isFalse();
    }

    @Test
    void listedAgainBeforeTheHoldEndsResetsIt() {
        HostedReplicas replicas = new HostedReplicas(2);
        replicas.movedAway(1, SELF, conf(10, 1, 2), true, 0, HOLD_MS);
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), true, 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(30, 1, 3), true, 500, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(40, 2, 3), true, 1_200, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(40, 2, 3), true, 2_201, HOLD_MS)).isTrue();
    }

    @Test
    void aClosedReplicaIsReleasedWhenTheClusterRemovedIt() {
        HostedReplicas replicas = new HostedReplicas(3);
        replicas.movedAway(1, SELF, conf(10, 1, 2), true, 0, HOLD_MS);
        // Closed with its configuration still listing it: the leader answered its vote "removed".
        assertThat(replicas.movedAway(1, SELF, conf(10, 1, 2), false, 100, HOLD_MS)).isTrue();
        replicas.movedAway(2, SELF, conf(10, 1, 2), true, 0, HOLD_MS);
        // Closed after a newer configuration without it: at once, no hold.
        assertThat(replicas.movedAway(2, SELF, conf(11, 2, 3), false, 100, HOLD_MS)).isTrue();
        // An empty or unreadable configuration decides nothing.
        assertThat(replicas.movedAway(2, SELF, null, false, 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(2, SELF, new Membership(List.of(), List.of(), -1), false, 100, HOLD_MS))
                .isFalse();
    }

    @Test
    void onlyAReplicaThatNeverReceivedAnythingIsDisposable() throws Exception {
        Path empty = dir.resolve("empty");
        Files.createDirectories(empty.resolve("current"));
        Files.writeString(empty.resolve("current").resolve("raft-meta"), "term=0\n");
        Files.createDirectories(empty.resolve("sm"));
        assertThat(ReplicaStorage.neverReceivedAnything(empty)).isTrue();
        assertThat(ReplicaStorage.neverReceivedAnything(dir.resolve("half-made"))).isTrue();

        Path withConf = dir.resolve("conf");
        Files.createDirectories(withConf.resolve("current"));
        Files.writeString(withConf.resolve("current").resolve("raft-meta.conf"), "x");
        assertThat(ReplicaStorage.neverReceivedAnything(withConf)).isFalse();

        Path withLog = dir.resolve("log");
        Files.createDirectories(withLog.resolve("current"));
        Files.writeString(withLog.resolve("current").resolve("log_inprogress_1"), "x");
        assertThat(ReplicaStorage.neverReceivedAnything(withLog)).isFalse();

        Path withSnapshot = dir.resolve("snapshot");
        Files.createDirectories(withSnapshot.resolve("sm"));
        Files.writeString(withSnapshot.resolve("sm").resolve("snapshot.0_0"), "x");
        assertThat(ReplicaStorage.neverReceivedAnything(withSnapshot)).isFalse();
    }
}
