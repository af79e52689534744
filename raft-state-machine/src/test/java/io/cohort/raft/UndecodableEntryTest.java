package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.OffsetCommitResponse;
import io.cohort.core.shard.Result;
import io.cohort.raft.log.LogCodec;
import io.cohort.raft.log.proto.LogEntry;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A committed entry that does not decode (garbage bytes, a format version this build does not
 * read, such as version 0) is skipped by every replica the same way, counted and logged, and the partition keeps
 * serving, also after every node restarts and replays it. The leader appends no entry another
 * writer built.
 */
class UndecodableEntryTest {
    private static final GroupConfig GROUPS = GroupConfig.defaults().withInitialRebalanceDelayMs(100);
    private static final String GROUP = "g-undecodable";
    private static final AtomicLong RAW_CALL_IDS = new AtomicLong();

    @TempDir
    Path tmp;

    @Test
    void everyReplicaSkipsAndCountsAnUndecodableEntryAndThePartitionKeepsServing() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            Map<String, Long> acknowledged = new HashMap<>();
            commit(cluster, acknowledged, 1);
            byte[] garbage = "garbage".getBytes(StandardCharsets.US_ASCII);
            // Version 0 is no version any build writes. (A version above this build's is a newer
            // build's entry, which a replica must not skip: LogCodecGoldenTest.)
            byte[] unknownVersion = LogEntry.newBuilder().setFormatVersion(0).setLeaderTimeMs(1)
                    .addCommands(LogCodec.toProto(new io.cohort.core.command.Command.ExpireOffsets())).build().toByteArray();
            for (byte[] raw : List.of(garbage, unknownVersion)) {
                submitRaw(cluster, raw);
            }
            cluster.awaitReplicasConverged(0);
            long skipped = cluster.node(0).stateMachine(0).undecodableEntriesSkipped();
            assertThat(skipped).isGreaterThanOrEqualTo(2);
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.stateMachine(0).undecodableEntriesSkipped()).as("node %d", node.nodeId()).isEqualTo(skipped);
            }
            commit(cluster, acknowledged, 2);
            RaftPortExposureTest.assertEveryOffsetReadBack(cluster, acknowledged);

            for (int i = 0; i < 3; i++) {
                cluster.stopNode(i);
            }
            // Ratis snapshots at stop; without those snapshots every node replays its whole log at
            // start, both entries included (the log is not purged before 1,024 entries).
            for (int i = 0; i < 3; i++) {
                deleteSnapshots(cluster.dataDir(i));
            }
            for (int i = 0; i < 3; i++) {
                cluster.startNode(i);
            }
            cluster.awaitAllLeadersReady();
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.runningNodes().stream()
                    .allMatch(node -> node.stateMachine(0).undecodableEntriesSkipped() == skipped));
            commit(cluster, acknowledged, 3);
            RaftPortExposureTest.assertEveryOffsetReadBack(cluster, acknowledged);
        }
    }

    @Test
    void theLeaderRefusesAnEntryItsProposerDidNotBuild() throws Exception {
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GROUPS)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            long committedBefore = leader.status(0).commitIndex();
            RaftClientReply reply = submitRawEntry(leader, ClientId.randomId(),
                    "garbage".getBytes(StandardCharsets.US_ASCII)).get(20, TimeUnit.SECONDS);
            assertThat(reply.isSuccess()).isFalse();
            assertThat(reply.getStateMachineException()).hasMessageContaining("accepts entries from this node's proposer only");
            assertThat(leader.status(0).commitIndex()).isEqualTo(committedBefore);
            for (CohortRaftNode node : cluster.runningNodes()) {
                assertThat(node.stateMachine(0).undecodableEntriesSkipped()).isZero();
            }
        }
    }

    /**
     * Appends {@code raw} through the leader's own writer. A leader change in between answers
     * NotLeader (nothing appended, except if the leader lost its role after appending: then the
     * entry may be committed twice, which every replica sees the same way).
     */
    private static void submitRaw(RaftTestCluster cluster, byte[] raw) throws Exception {
        RaftClientReply reply = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            CohortRaftNode leader = cluster.leaderOf(0);
            reply = submitRawEntry(leader, leader.proposerClientId(), raw).get(20, TimeUnit.SECONDS);
            if (reply.getNotLeaderException() == null) {
                break;
            }
        }
        assertThat(reply.isSuccess()).as("%s", reply).isTrue();
    }

    /**
     * Submits {@code data} to partition 0 as a raw log entry from {@code writer}, in process, past
     * the codec. Its call id is far from the proposer's, which share the client id: Ratis's retry
     * cache is keyed by both.
     */
    private static CompletableFuture<RaftClientReply> submitRawEntry(CohortRaftNode leader, ClientId writer,
                                                                     byte[] data) throws IOException {
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(writer)
                .setServerId(RaftPeerId.valueOf(leader.spec().peer(leader.nodeId()).peerId()))
                .setGroupId(leader.spec().raftGroupId(0))
                .setCallId((1L << 62) + RAW_CALL_IDS.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(data)))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        return leader.raftServer().submitClientRequestAsync(request);
    }

    private static void deleteSnapshots(Path dataDir) throws IOException {
        List<Path> snapshots;
        try (Stream<Path> paths = Files.walk(dataDir)) {
            // Not the empty snapshot a new cluster's replica starts from (NewReplicas): the log
            // begins after it, so without it the replica would have nothing to start from.
            snapshots = paths.filter(path -> path.getParent().getFileName().toString().equals("sm")
                    && Files.isRegularFile(path) && !path.getFileName().toString().startsWith("snapshot.0_0"))
                    .toList();
        }
        assertThat(snapshots).as("snapshots in %s", dataDir).isNotEmpty();
        for (Path snapshot : snapshots) {
            Files.delete(snapshot);
        }
    }

    private static void commit(RaftTestCluster cluster, Map<String, Long> acknowledged, long offset) throws Exception {
        Result result = cluster.submitToLeader(0, Commands.simpleCommit(GROUP, "t", 0, offset));
        assertThat(((OffsetCommitResponse) result.immediateResponse()).topics().get(0).partitions().get(0).error())
                .isEqualTo(ErrorCode.NONE);
        acknowledged.put(GROUP, offset);
    }
}
