package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.shard.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node restarts after writing a log entry of more than 512 KiB, the size one OffsetCommit near the
 * request limit makes. Ratis's segment reader grows its scratch buffer by doubling from 4 KiB up to
 * the op-size limit ({@code raft.server.log.appender.buffer.byte-limit}); with the limit just under
 * a power of two (the old 1 MiB write buffer - 8) such an entry grows it to the limit itself, and
 * the reader's check of the zeros after the last entry of the open segment then reads past its own
 * mark: the node could not start ("Failed to initRaftLog ... Resetting to invalid mark"), seen once
 * in MemoryLimitsIT after a SIGKILL. The segment here is preallocated well beyond the entry so the
 * zeros after it are longer than the limit, as they were there.
 */
class LargeEntryRestartTest {
    @TempDir
    Path tmp;

    @Test
    void aNodeRestartsAfterWritingAnEntryOfMoreThanHalfAMebibyte() throws Exception {
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().preallocatedBytes(4L << 20).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 1, 1, GroupConfig.defaults(), tuning)) {
            CohortRaftNode node = cluster.node(0);
            Result result = node.submit(0, bigCommit()).get(30, TimeUnit.SECONDS);
            assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions())
                    .allSatisfy(p -> assertThat(p.error()).isEqualTo(ErrorCode.NONE));

            // The disk as a SIGKILL leaves it: a stop would close the open segment and cut its
            // preallocated zeros, so restart from a copy taken while the node runs.
            Path crashed = tmp.resolve("crashed");
            copyTree(cluster.dataDir(0), crashed);
            cluster.stopNode(0);
            deleteTree(cluster.dataDir(0));
            copyTree(crashed, cluster.dataDir(0));
            cluster.startNode(0);
            cluster.awaitAllLeadersReady();

            OffsetFetchResponse fetched = cluster.node(0).read(0, true, shard -> shard.fetchOffsets("big",
                    Map.of("t", IntStream.range(0, PARTITIONS).boxed().toList()))).get(30, TimeUnit.SECONDS);
            assertThat(fetched.topics().get(0).partitions()).hasSize(PARTITIONS)
                    .allSatisfy(p -> assertThat(p.offset()).isEqualTo(7L));
        }
    }

    private static final int PARTITIONS = 170;

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().endsWith(".lock")) {
                    Files.copy(path, target);
                }
            }
        }
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /** One commit of 170 partitions with 4,000 bytes of metadata each: an entry of about 690 KB. */
    private static Command.OffsetCommit bigCommit() {
        String metadata = "m".repeat(4_000);
        List<Command.PartitionCommit> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new Command.PartitionCommit(p, 7, -1, metadata));
        }
        return new Command.OffsetCommit("big", -1, "", null, -1L, List.of(new Command.TopicCommit("t", partitions)),
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }
}
