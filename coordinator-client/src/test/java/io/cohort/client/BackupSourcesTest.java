package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import org.junit.jupiter.api.Test;

/**
 * A backup asks a partition's followers first and its leader last: the replica asked cuts its
 * state and writes the image, work that on the leader competes with the commits it serves.
 */
class BackupSourcesTest {
    @Test
    void theFollowersComeBeforeTheLeader() {
        ClusterStatusResponse status = ClusterStatusResponse.newBuilder()
                .setPartitionCount(2)
                .addPartitions(PartitionStatus.newBuilder().setPartitionIndex(0).setLeaderNodeId(1)
                        .addReplicaNodeIds(1).addReplicaNodeIds(2).addReplicaNodeIds(3))
                .addPartitions(PartitionStatus.newBuilder().setPartitionIndex(1).setLeaderNodeId(-1)
                        .addReplicaNodeIds(3).addReplicaNodeIds(1))
                .build();
        assertThat(BackupSources.candidates(status, 0)).containsExactly(2, 3, 1);
        assertThat(BackupSources.candidates(status, 1)).as("no leader known").containsExactly(3, 1);
    }

    @Test
    void anAnswerNamingNoReplicaOfThePartitionGivesEveryNode() {
        ClusterStatusResponse status = ClusterStatusResponse.newBuilder().setPartitionCount(1)
                .addNodes(NodeStatus.newBuilder().setNodeId(1)).addNodes(NodeStatus.newBuilder().setNodeId(2))
                .build();
        assertThat(BackupSources.candidates(status, 0)).containsExactly(1, 2);
    }
}
