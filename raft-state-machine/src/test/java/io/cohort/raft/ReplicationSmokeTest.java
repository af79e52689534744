package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.shard.Result;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicationSmokeTest {
    @TempDir
    Path tmp;

    @Test
    void commitReplicatesToEveryReplica() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 2, GroupConfig.defaults())) {
            int partition = cluster.node(0).partitionFor("g1");
            CohortRaftNode leader = cluster.leaderOf(partition);
            Result result = leader.submit(partition, new Command.OffsetCommit("g1", -1, "", null, -1L,
                    List.of(new Command.TopicCommit("t", List.of(new Command.PartitionCommit(0, 42L, -1, null)))),
                    Command.OFFSET_COMMIT_LATEST_VERSION)).get(10, TimeUnit.SECONDS);
            OffsetCommitResponse response = (OffsetCommitResponse) result.immediateResponse();
            assertThat(response.topics().get(0).partitions().get(0).error()).isEqualTo(ErrorCode.NONE);
            for (CohortRaftNode node : cluster.runningNodes()) {
                await().atMost(Duration.ofSeconds(10)).until(() ->
                        node.shard(partition).fetchOffsets("g1", null).topics().size() == 1);
            }
        }
    }
}
