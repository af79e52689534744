package io.cohort.cluster;

import static io.cohort.cluster.CoordinatorCalls.firstError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.cohort.api.v1.ConsumerAssignment;
import io.cohort.api.v1.ConsumerSubscription;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.api.v1.TopicPartitions;
import io.cohort.cluster.CoordinatorCalls.Served;
import io.cohort.core.PartitionFunction;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 4's end-to-end test: three real node JVMs from the packaged jar, two consumer groups led by
 * different nodes taken through the whole classic protocol over gRPC, then a SIGKILL of the node
 * coordinating one of them. FindCoordinator must move within seconds, that group must carry on with
 * the same members and generation on the new coordinator, the other group must not notice, every
 * acknowledged offset must be fetched back, and the killed node must rejoin and catch up.
 *
 * <p>On failure the run directory (node logs, data, {@code history.log} of every call) stays under
 * {@code cluster-tests/target/cluster-tests/} and its path is printed.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterEndToEndIT {
    private static final int NODES = 3;
    /** Few partitions keep three JVMs light on two cores; enough for two groups on different leaders. */
    private static final int PARTITIONS = 4;
    /** Long enough that no member expires while the test walks through a failover and a restart. */
    private static final int SESSION_TIMEOUT_MS = 60_000;
    private static final int REBALANCE_TIMEOUT_MS = 30_000;
    /**
     * The initial join phase of a new group waits this long for more members, and once more if one
     * came: the second member must join within it so both land in the first generation. Loopback
     * joins take milliseconds; the margin is for a loaded two-core machine.
     */
    private static final int INITIAL_REBALANCE_DELAY_MS = 2_000;
    /** Kafka's client waits rebalance timeout + 5 s for JoinGroup and SyncGroup. */
    private static final Duration LONG_POLL_TIMEOUT = Duration.ofMillis(REBALANCE_TIMEOUT_MS + 5_000);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    /** The bound on how fast FindCoordinator names a new node after a coordinator dies. */
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(10);
    /**
     * Bounds on setup steps that take 1-3 s on an idle machine (leaders settling on their preferred
     * nodes, a restarted node catching up); generous, since they are not what this test measures.
     */
    private static final Duration SETTLE_BOUND = Duration.ofSeconds(60);
    private static final String PROTOCOL_TYPE = "consumer";
    private static final String ASSIGNOR = "range";
    private static final int TOPIC_PARTITIONS = 6;

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    /** Runs parked long polls and the second group's formation beside the main thread. */
    private final AtomicInteger backgroundThreads = new AtomicInteger();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "background-" + backgroundThreads.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });
    /** Every offset the cluster acknowledged, by group and partition; a later commit replaces an earlier one. */
    private final Map<String, Map<Integer, Committed>> acknowledged = new ConcurrentHashMap<>();
    private ProcessCluster cluster;
    private History history;
    private CoordinatorCalls calls;

    /** A group after its first rebalance: two members of one generation, and the node that served it. */
    private record StableGroup(String groupId, String topic, int generation, String leaderId, String followerId,
                               int coordinator) {
        List<String> members() {
            return List.of(leaderId, followerId);
        }
    }

    private record Committed(long offset, String metadata) {
    }

    @AfterEach
    void stopBackgroundCalls() {
        background.shutdownNow();
    }

    @Test
    void twoGroupsCarryOnWhenTheCoordinatorOfOneIsKilled() {
        long startNanos = System.nanoTime();
        cluster = run.start(ProcessCluster.builder()
                .nodes(NODES)
                .partitions(PARTITIONS)
                .set("group.initial.rebalance.delay.ms", INITIAL_REBALANCE_DELAY_MS));
        long servingMs = msSince(startNanos);
        history = new History(cluster.runDir().resolve("history.log"));
        calls = new CoordinatorCalls(cluster, history, Duration.ofSeconds(20));
        history.record("nodes serving after " + servingMs + " ms; peers " + cluster.peersSpec());
        Map<Integer, Integer> leaders = cluster.awaitPreferredLeaders(SETTLE_BOUND);
        history.record("leaders by partition: " + leaders);

        String groupA = pickGroup("orders-", p -> true);
        int leaderA = leaders.get(partitionFor(groupA));
        String groupB = pickGroup("payments-", p -> p != partitionFor(groupA) && leaders.get(p) != leaderA);

        // Both groups form at once: each waits out its initial rebalance delay twice.
        CompletableFuture<StableGroup> formingB = inBackground(() -> formGroup(groupB));
        StableGroup a = formGroup(groupA);
        StableGroup b = join(formingB);
        assertThat(a.coordinator()).as("coordinator of %s", groupA).isEqualTo(leaderA);
        assertThat(b.coordinator()).as("coordinator of %s", groupB).isNotEqualTo(a.coordinator());
        // A second round just before the kill: acknowledged by a majority, so the crash must not lose it.
        commitRound(a, 200, a.coordinator());
        commitRound(b, 200, b.coordinator());
        long formedMs = msSince(startNanos);

        int victim = a.coordinator();
        // The node that stands at once when the victim's process exits (raft.election.on.leader.exit):
        // of the survivors in node-id order after the victim, the (partition mod 2)-th
        // (LeaderExitElection.successor). Its exit watch must have seen the victim up to notice it go.
        List<Integer> survivorsInTurn = List.of(victim % NODES + 1, (victim + 1) % NODES + 1);
        int successor = survivorsInTurn.get(partitionFor(groupA) % survivorsInTurn.size());
        awaitLogLine(successor, "node " + successor + ": watching node " + victim + "'s process");
        cluster.kill(victim);
        long killedNanos = System.nanoTime();
        history.record("SIGKILLed node " + victim + " (coordinator of " + groupA + ")");

        int newCoordinatorA = awaitCoordinatorMovedAway(groupA, victim);
        long failoverMs = msSince(killedNanos);
        history.record(groupA + " moved from node " + victim + " to node " + newCoordinatorA + " in " + failoverMs + " ms");
        // It stood without waiting for an election timeout (whether it won depends on whose log was longer).
        awaitLogLine(successor, "node " + successor + ": partition " + partitionFor(groupA) + "'s leader, node "
                + victim + ", exited (its connection closed and reconnecting was refused); standing for election now");

        // Group A carries on: same members and generation, served by the new coordinator.
        for (String member : a.members()) {
            assertThat(heartbeat(a, member).nodeId()).isEqualTo(newCoordinatorA);
        }
        commitRound(a, 300, newCoordinatorA);
        // Group B never noticed: same coordinator, same generation.
        assertThat(survivorsAgreeOnCoordinator(groupB)).isEqualTo(b.coordinator());
        for (String member : b.members()) {
            assertThat(heartbeat(b, member).nodeId()).isEqualTo(b.coordinator());
        }
        commitRound(b, 300, b.coordinator());
        assertAcknowledgedOffsetsFetched(a);
        assertAcknowledgedOffsetsFetched(b);

        long restartNanos = System.nanoTime();
        cluster.start(victim);
        cluster.awaitCaughtUp(victim, SETTLE_BOUND);
        long caughtUpMs = msSince(restartNanos);
        history.record("node " + victim + " restarted and caught up in " + caughtUpMs + " ms");
        // Leadership goes back to the preferred nodes once the restarted node has caught up.
        history.record("leaders after restart: " + cluster.awaitPreferredLeaders(SETTLE_BOUND));

        for (StableGroup group : List.of(a, b)) {
            for (String member : group.members()) {
                heartbeat(group, member);
            }
            commitRound(group, 400, -1);
            assertAcknowledgedOffsetsFetched(group);
        }
        String summary = String.format("%s: 3 nodes serving in %d ms, both groups formed at %d ms; FindCoordinator "
                        + "moved %s off killed node %d in %d ms; restarted node caught up in %d ms; total %d ms",
                getClass().getSimpleName(), servingMs, formedMs, groupA, victim, failoverMs, caughtUpMs,
                msSince(startNanos));
        history.record(summary);
        System.out.println(summary);
    }

    // ---- forming a group: FindCoordinator, JoinGroup (twice per member), SyncGroup, Heartbeat, commit, fetch

    private StableGroup formGroup(String groupId) {
        String topic = "topic-" + groupId;
        String first = requireMemberId(groupId, "client-1", topic);
        // The first member's real join starts the initial join phase and parks until the phase completes.
        CompletableFuture<Served<JoinGroupResponse>> firstJoin =
                inBackground(() -> join(groupId, first, "client-1", topic));
        // Once the first member is in, the second joins: it becomes a follower, and the first
        // member's parked call answers with both members (proof that it waited for the second).
        awaitParkedInJoinPhase(groupId, first);
        String second = requireMemberId(groupId, "client-2", topic);
        Served<JoinGroupResponse> secondJoined = join(groupId, second, "client-2", topic);
        Served<JoinGroupResponse> firstJoined = join(firstJoin);

        JoinGroupResponse leader = firstJoined.response();
        JoinGroupResponse follower = secondJoined.response();
        assertThat(leader.getErrorCode()).as(leader.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(follower.getErrorCode()).as(follower.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        assertThat(follower.getGenerationId()).isEqualTo(leader.getGenerationId()).isPositive();
        assertThat(leader.getLeader()).isEqualTo(first);
        assertThat(follower.getLeader()).isEqualTo(first);
        assertThat(leader.getProtocolName()).isEqualTo(ASSIGNOR);
        assertThat(leader.getMembersList()).extracting(JoinGroupResponse.Member::getMemberId)
                .containsExactlyInAnyOrder(first, second);
        assertThat(follower.getMembersList()).isEmpty();
        StableGroup group = new StableGroup(groupId, topic, leader.getGenerationId(), first, second,
                firstJoined.nodeId());
        history.record(groupId + " joined: generation " + group.generation() + ", leader " + first + ", follower "
                + second + ", coordinator node " + group.coordinator());

        syncAssignments(group);
        for (String member : group.members()) {
            assertThat(heartbeat(group, member).nodeId()).isEqualTo(group.coordinator());
        }
        commitRound(group, 100, group.coordinator());
        assertAcknowledgedOffsetsFetched(group);
        return group;
    }

    private String requireMemberId(String groupId, String clientId, String topic) {
        JoinGroupResponse response = join(groupId, "", clientId, topic).response();
        assertThat(response.getErrorCode()).as(response.getErrorMessage()).isEqualTo(ErrorCode.MEMBER_ID_REQUIRED);
        assertThat(response.getMemberId()).startsWith(clientId);
        return response.getMemberId();
    }

    private Served<JoinGroupResponse> join(String groupId, String memberId, String clientId, String topic) {
        JoinGroupRequest request = JoinGroupRequest.newBuilder()
                .setGroupId(groupId)
                .setSessionTimeoutMs(SESSION_TIMEOUT_MS)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS)
                .setMemberId(memberId)
                .setProtocolType(PROTOCOL_TYPE)
                .addProtocols(JoinGroupRequest.Protocol.newBuilder()
                        .setName(ASSIGNOR)
                        .setMetadata(ConsumerSubscription.newBuilder().addTopics(topic).setGenerationId(-1).build()
                                .toByteString()))
                .setClientId(clientId)
                .setClientHost("127.0.0.1")
                .build();
        return calls.call(groupId, "JoinGroup " + (memberId.isEmpty() ? clientId : memberId), LONG_POLL_TIMEOUT,
                stub -> stub.joinGroup(request), JoinGroupResponse::getErrorCode);
    }

    /** The group is in its join phase with {@code memberId} joined, as the coordinator's committed state says. */
    private void awaitParkedInJoinPhase(String groupId, String memberId) {
        await("member " + memberId + " waiting in the join phase of " + groupId)
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> describe(groupId), group -> group.getGroupState().equals("PreparingRebalance")
                        && group.getMembersList().stream().anyMatch(m -> m.getMemberId().equals(memberId)));
    }

    private DescribeGroupsResponse.Group describe(String groupId) {
        DescribeGroupsRequest request = DescribeGroupsRequest.newBuilder().addGroupIds(groupId).build();
        return calls.call(groupId, "DescribeGroups", CALL_TIMEOUT, stub -> stub.describeGroups(request),
                r -> r.getGroups(0).getErrorCode()).response().getGroups(0);
    }

    /**
     * The follower asks first and parks until the leader's assignment is committed; the leader
     * then sends one assignment per member. Each gets exactly what the leader assigned it.
     */
    private void syncAssignments(StableGroup group) {
        Map<String, ConsumerAssignment> assignments = Map.of(
                group.leaderId(), assignment(group.topic(), 0, 1, 2),
                group.followerId(), assignment(group.topic(), 3, 4, 5));
        CompletableFuture<Served<SyncGroupResponse>> followerSync =
                inBackground(() -> sync(group, group.followerId(), Map.of()));
        Served<SyncGroupResponse> leaderSync = sync(group, group.leaderId(), assignments);
        Served<SyncGroupResponse> followerSynced = join(followerSync);
        for (Served<SyncGroupResponse> synced : List.of(leaderSync, followerSynced)) {
            assertThat(synced.response().getErrorCode()).as(synced.response().getErrorMessage())
                    .isEqualTo(ErrorCode.NONE);
            assertThat(synced.response().getProtocolName()).isEqualTo(ASSIGNOR);
        }
        assertThat(parseAssignment(leaderSync.response())).isEqualTo(assignments.get(group.leaderId()));
        assertThat(parseAssignment(followerSynced.response())).isEqualTo(assignments.get(group.followerId()));
    }

    private Served<SyncGroupResponse> sync(StableGroup group, String memberId, Map<String, ConsumerAssignment> plan) {
        SyncGroupRequest.Builder request = SyncGroupRequest.newBuilder()
                .setGroupId(group.groupId())
                .setGenerationId(group.generation())
                .setMemberId(memberId)
                .setProtocolType(PROTOCOL_TYPE)
                .setProtocolName(ASSIGNOR);
        plan.forEach((member, assignment) -> request.addAssignments(SyncGroupRequest.Assignment.newBuilder()
                .setMemberId(member)
                .setAssignment(assignment.toByteString())));
        SyncGroupRequest built = request.build();
        return calls.call(group.groupId(), "SyncGroup " + memberId, LONG_POLL_TIMEOUT, stub -> stub.syncGroup(built),
                SyncGroupResponse::getErrorCode);
    }

    private static ConsumerAssignment assignment(String topic, Integer... partitions) {
        return ConsumerAssignment.newBuilder()
                .addAssignedPartitions(TopicPartitions.newBuilder().setTopic(topic).addAllPartitions(List.of(partitions)))
                .build();
    }

    private static ConsumerAssignment parseAssignment(SyncGroupResponse response) {
        try {
            return ConsumerAssignment.parseFrom(response.getAssignment());
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("SyncGroup returned an assignment that is not a ConsumerAssignment", e);
        }
    }

    /** A heartbeat of the member's generation must be answered NONE: no rebalance, no lost member. */
    private Served<HeartbeatResponse> heartbeat(StableGroup group, String memberId) {
        HeartbeatRequest request = HeartbeatRequest.newBuilder()
                .setGroupId(group.groupId())
                .setGenerationId(group.generation())
                .setMemberId(memberId)
                .build();
        Served<HeartbeatResponse> served = calls.call(group.groupId(), "Heartbeat " + memberId, CALL_TIMEOUT,
                stub -> stub.heartbeat(request), HeartbeatResponse::getErrorCode);
        assertThat(served.response().getErrorCode()).as("heartbeat of %s in %s generation %d: %s", memberId,
                group.groupId(), group.generation(), served.response().getErrorMessage()).isEqualTo(ErrorCode.NONE);
        return served;
    }

    // ---- offsets

    /**
     * Each member commits the offsets of its three partitions ({@code base + partition}), and each
     * acknowledged offset is remembered. {@code expectedNode} is the node that must serve the
     * commits, or -1 for any.
     */
    private void commitRound(StableGroup group, long base, int expectedNode) {
        commit(group, group.leaderId(), base, List.of(0, 1, 2), expectedNode);
        commit(group, group.followerId(), base, List.of(3, 4, 5), expectedNode);
    }

    private void commit(StableGroup group, String memberId, long base, List<Integer> partitions, int expectedNode) {
        String metadata = "round-" + base + "-by-" + memberId;
        OffsetCommitRequest.Topic.Builder topic = OffsetCommitRequest.Topic.newBuilder().setName(group.topic());
        for (int partition : partitions) {
            topic.addPartitions(OffsetCommitRequest.Partition.newBuilder()
                    .setPartitionIndex(partition)
                    .setCommittedOffset(base + partition)
                    .setCommittedMetadata(metadata));
        }
        OffsetCommitRequest request = OffsetCommitRequest.newBuilder()
                .setGroupId(group.groupId())
                .setGenerationIdOrMemberEpoch(group.generation())
                .setMemberId(memberId)
                .addTopics(topic)
                .build();
        Served<OffsetCommitResponse> served = calls.call(group.groupId(), "OffsetCommit " + memberId + " round " + base,
                CALL_TIMEOUT, stub -> stub.offsetCommit(request), ClusterEndToEndIT::commitError);
        OffsetCommitResponse response = served.response();
        assertThat(response.getTopicsList()).hasSize(1);
        assertThat(response.getTopics(0).getPartitionsList())
                .as("commit of %s by %s: %s", group.groupId(), memberId, response.getErrorMessage())
                .allSatisfy(p -> assertThat(p.getErrorCode()).isEqualTo(ErrorCode.NONE))
                .extracting(OffsetCommitResponse.Partition::getPartitionIndex)
                .containsExactlyElementsOf(partitions);
        if (expectedNode >= 0) {
            assertThat(served.nodeId()).as("node serving %s's commit", group.groupId()).isEqualTo(expectedNode);
        }
        Map<Integer, Committed> acked = acknowledged.computeIfAbsent(group.groupId(), g -> new TreeMap<>());
        partitions.forEach(p -> acked.put(p, new Committed(base + p, metadata)));
    }

    /** OffsetCommit has no top-level error: a group-level error is copied into every partition. */
    private static ErrorCode commitError(OffsetCommitResponse response) {
        return firstError(response.getTopicsList().stream().flatMap(t -> t.getPartitionsList().stream()).toList(),
                OffsetCommitResponse.Partition::getErrorCode);
    }

    /** A linearizable fetch of all the group's offsets returns exactly the last acknowledged ones. */
    private void assertAcknowledgedOffsetsFetched(StableGroup group) {
        OffsetFetchRequest request = OffsetFetchRequest.newBuilder()
                .addGroups(OffsetFetchRequest.Group.newBuilder().setGroupId(group.groupId()))
                .build();
        OffsetFetchResponse.Group fetched = calls.call(group.groupId(), "OffsetFetch", CALL_TIMEOUT,
                stub -> stub.offsetFetch(request), r -> r.getGroups(0).getErrorCode()).response().getGroups(0);
        assertThat(fetched.getErrorCode()).as(fetched.getErrorMessage()).isEqualTo(ErrorCode.NONE);
        Map<Integer, Committed> offsets = new TreeMap<>();
        for (OffsetFetchResponse.Topic topic : fetched.getTopicsList()) {
            assertThat(topic.getName()).isEqualTo(group.topic());
            for (OffsetFetchResponse.Partition partition : topic.getPartitionsList()) {
                assertThat(partition.getErrorCode()).isEqualTo(ErrorCode.NONE);
                offsets.put(partition.getPartitionIndex(),
                        new Committed(partition.getCommittedOffset(), partition.getMetadata()));
            }
        }
        assertThat(offsets).as("offsets of %s fetched vs. acknowledged", group.groupId())
                .isEqualTo(acknowledged.get(group.groupId()));
        history.record("OffsetFetch [" + group.groupId() + "] matches the " + offsets.size() + " acknowledged offsets");
    }

    // ---- failover

    /**
     * Waits until every surviving node answers FindCoordinator with one node that is not
     * {@code victim}; bounded by {@link #FAILOVER_BOUND}.
     */
    private int awaitCoordinatorMovedAway(String groupId, int victim) {
        return await("FindCoordinator(" + groupId + ") on every surviving node names a node other than " + victim)
                .atMost(FAILOVER_BOUND)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> survivorsAgreeOnCoordinator(groupId), node -> node >= 0 && node != victim);
    }

    /** The coordinator every running node names for the group, or -1 while they disagree or know none. */
    private int survivorsAgreeOnCoordinator(String groupId) {
        Set<Integer> named = new HashSet<>();
        for (int node : cluster.runningNodeIds()) {
            try {
                FindCoordinatorResponse.Coordinator coordinator = calls.findOn(node, groupId);
                named.add(coordinator.getErrorCode() == ErrorCode.NONE ? coordinator.getNodeId() : -1);
            } catch (StatusRuntimeException e) {
                named.add(-1);
            }
        }
        return named.size() == 1 ? named.iterator().next() : -1;
    }

    // ---- helpers

    /** The first of {@code prefix}0, {@code prefix}1, ... whose partition satisfies {@code partitionTest}. */
    private String pickGroup(String prefix, IntPredicate partitionTest) {
        return IntStream.range(0, 1_000)
                .mapToObj(i -> prefix + i)
                .filter(g -> partitionTest.test(partitionFor(g)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no group id " + prefix + "N fits"));
    }

    /** Waits until node {@code nodeId}'s log has a line containing {@code text}. */
    private void awaitLogLine(int nodeId, String text) {
        java.nio.file.Path log = cluster.logFile(nodeId);
        await().atMost(SETTLE_BOUND).until(() -> java.nio.file.Files.exists(log)
                && java.nio.file.Files.readString(log).contains(text));
    }

    private static int partitionFor(String groupId) {
        return PartitionFunction.partitionFor(groupId, PARTITIONS);
    }

    private <T> CompletableFuture<T> inBackground(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, background);
    }

    /** The background call's result; its failure (an assertion, say) is rethrown as it was. */
    private static <T> T join(CompletableFuture<T> call) {
        try {
            return call.get(2 * LONG_POLL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("a background call did not finish within " + 2 * LONG_POLL_TIMEOUT.toMillis() + " ms");
        }
    }

    private static long msSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
