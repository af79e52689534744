package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.LeaveGroupResponse;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.OffsetFetchResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.client.assignor.RangeAssignor;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A classic member's poll returns at its timeout with the rebalance still under way, as Kafka's
 * does, and a later poll takes the same rebalance up. Until this was so, a poll waited for the
 * join and sync to end: with no coordinator answering, for the rebalance timeout plus the client's
 * api timeout per attempt, attempt after attempt. The coordinator is a stand-in gRPC server on
 * loopback whose JoinGroup the test answers when it chooses, or refuses with
 * COORDINATOR_NOT_AVAILABLE every time, and whose OffsetCommit the test answers when it chooses
 * (or never). {@link GroupMember#wakeup} ends a poll, commitSync or committed that waits, as
 * KafkaConsumer's does.
 *
 * <p>The member keeps Kafka's default rebalance timeout (5 min), so the poll that used to wait
 * would outlast every wait in this test by far; the 30 s the test allows a 200 ms poll only
 * separates "returned" from "still blocked", it measures nothing.
 */
class ClassicPollTimeoutTest {
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration RETURNED = Duration.ofSeconds(30);
    private static final String GROUP = "g";
    private static final String CLIENT_ID = "poll-test";
    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("events", 0),
            new TopicPartition("events", 1));

    private final AtomicInteger joinCalls = new AtomicInteger();
    private final AtomicInteger syncCalls = new AtomicInteger();
    private final AtomicReference<Parked> parkedJoin = new AtomicReference<>();
    private final List<String> leftMembers = new CopyOnWriteArrayList<>();
    private final List<String> listenerThreads = new CopyOnWriteArrayList<>();
    private final AtomicReference<Thread> pollerThread = new AtomicReference<>();
    private final ExecutorService poller = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "test-poller");
        pollerThread.set(thread);
        return thread;
    });
    private final AtomicInteger commitCalls = new AtomicInteger();
    private final AtomicReference<ParkedCommit> parkedCommit = new AtomicReference<>();
    /** The offsets the stand-in holds: those of the commits the test answered. */
    private final Map<TopicPartition, Long> storedOffsets = new ConcurrentHashMap<>();
    private final AtomicInteger fetchCalls = new AtomicInteger();
    private volatile boolean parkFetches;
    private volatile boolean answerCommitsAtOnce;
    private volatile boolean heartbeatsAnswerRebalance;
    private volatile int lastCommitGeneration = -1;
    private volatile boolean refuseJoins;
    private Server server;
    private CohortClient client;
    private GroupMember member;

    private record Parked(JoinGroupRequest request, StreamObserver<JoinGroupResponse> response) {
    }

    private record ParkedCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> response) {
    }

    private void start() throws IOException {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(StandInNode.admin(() -> server.getPort())).addService(new Coordinator()).build().start();
        client = CohortClient.builder().bootstrap("127.0.0.1:" + server.getPort()).clientId(CLIENT_ID)
                .apiTimeout(Duration.ofSeconds(20)).requestTimeout(Duration.ofSeconds(1))
                .retryBackoff(Duration.ofMillis(5), Duration.ofMillis(50)).build();
        member = GroupMember.builder(client, GROUP).subscribe(List.of("events")).topicMetadata(Map.of("events", 2))
                .assignors(List.of(new RangeAssignor())).listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        listenerThreads.add(Thread.currentThread().getName());
                    }
                }).build();
    }

    @AfterEach
    void stop() throws Exception {
        if (member != null) {
            poller.submit(() -> member.close()).get(RETURNED.toSeconds(), TimeUnit.SECONDS);
        }
        poller.shutdownNow();
        poller.awaitTermination(10, TimeUnit.SECONDS);
        if (client != null) {
            client.close();
            server.shutdownNow();
        }
    }

    /** One poll on the test's poll thread; null if it did not return within {@link #RETURNED}. */
    private Set<TopicPartition> poll() throws Exception {
        Future<Set<TopicPartition>> poll = poller.submit(() -> member.poll(POLL));
        try {
            return poll.get(RETURNED.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return null;
        }
    }

    @Test
    void aPollReturnsWhileItsJoinIsParkedAndALaterPollCompletesTheSameJoin() throws Exception {
        start();
        assertThat(poll()).as("the first poll, its join parked or about to be").isEmpty();
        await().atMost(RETURNED).until(() -> parkedJoin.get() != null);
        assertThat(poll()).as("a poll while the join is parked").isEmpty();
        assertThat(joinCalls).as("MEMBER_ID_REQUIRED, then the one join that stays parked").hasValue(2);

        answerParkedJoin();
        await().atMost(RETURNED).until(this::poll, owned -> Set.copyOf(PARTITIONS).equals(owned));
        assertThat(joinCalls).as("no join sent again").hasValue(2);
        assertThat(syncCalls).hasValue(1);
        assertThat(member.generationId()).isEqualTo(1);
        assertThat(listenerThreads).as("the listener runs within poll, on its thread").containsExactly("test-poller");
    }

    @Test
    void aPollReturnsWhileNoCoordinatorAnswers() throws Exception {
        refuseJoins = true;
        start();
        assertThat(poll()).as("a poll while every JoinGroup is refused").isEmpty();
        await().atMost(RETURNED).until(() -> joinCalls.get() >= 2);
        assertThat(poll()).isEmpty();
        assertThat(member.memberId()).isEmpty();

        refuseJoins = false;
        await().atMost(RETURNED).until(() -> parkedJoin.get() != null);
        answerParkedJoin();
        await().atMost(RETURNED).until(this::poll, owned -> Set.copyOf(PARTITIONS).equals(owned));
    }

    @Test
    void closeDuringAParkedJoinEndsItsCallAndLeaves() throws Exception {
        start();
        assertThat(poll()).isEmpty();
        await().atMost(RETURNED).until(() -> parkedJoin.get() != null);

        poller.submit(() -> member.close()).get(RETURNED.toSeconds(), TimeUnit.SECONDS);
        assertThat(leftMembers).as("the member id the parked join carries").containsExactly("m-1");
        await().atMost(RETURNED).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("cohort-" + GROUP + "-" + CLIENT_ID + "-rebalance")));
    }

    @Test
    void wakeupEndsAPollWaitingForItsJoinAndTheJoinGoesOn() throws Exception {
        start();
        assertThat(poll()).isEmpty();
        await().atMost(RETURNED).until(() -> parkedJoin.get() != null);

        Future<Set<TopicPartition>> longPoll = poller.submit(() -> member.poll(Duration.ofMinutes(10)));
        awaitPollerBlocked();
        member.wakeup();
        assertThatThrownBy(() -> longPoll.get(RETURNED.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(WakeupException.class);

        answerParkedJoin();
        await().atMost(RETURNED).until(this::poll, owned -> Set.copyOf(PARTITIONS).equals(owned));
        assertThat(joinCalls).as("the woken poll's join went on; none sent again").hasValue(2);
    }

    @Test
    void aWakeupWithNothingBlockedIsThrownByTheNextCallOnly() throws Exception {
        start();
        joinStable();
        // A stable member has no rebalance to wait for: without the wakeup this wait would run its 10 min.
        Future<Boolean> idling = poller.submit(() -> member.awaitRebalanceNeeded(Duration.ofMinutes(10)));
        awaitPollerBlocked();
        member.wakeup();
        assertThat(idling.get(RETURNED.toSeconds(), TimeUnit.SECONDS)).as("returns at once for the poll to throw")
                .isTrue();
        assertThatThrownBy(() -> poller.submit(() -> member.poll(POLL)).get(RETURNED.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(WakeupException.class);
        assertThat(poll()).as("the next poll").isEqualTo(Set.copyOf(PARTITIONS));
    }

    @Test
    void wakeupEndsACommitSyncWaitingForItsAnswer() throws Exception {
        start();
        joinStable();

        Future<?> commit = poller.submit(() -> member.commitSync(Map.of(PARTITIONS.get(0), new OffsetAndMetadata(5))));
        await().atMost(RETURNED).until(() -> commitCalls.get() == 1);
        awaitPollerBlocked();
        member.wakeup();
        assertThatThrownBy(() -> commit.get(RETURNED.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(WakeupException.class);
        // The commit goes on: answered, so close need not wait the api timeout out for it.
        answerCommitsAtOnce = true;
        Optional.ofNullable(parkedCommit.getAndSet(null)).ifPresent(this::answer);
    }

    @Test
    void wakeupEndsACommittedWaitingForItsAnswer() throws Exception {
        parkFetches = true;
        start();

        Future<?> fetch = poller.submit(() -> member.committed(PARTITIONS));
        await().atMost(RETURNED).until(() -> fetchCalls.get() == 1);
        awaitPollerBlocked();
        member.wakeup();
        assertThatThrownBy(() -> fetch.get(RETURNED.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(WakeupException.class);
        // The fetch goes on: its next attempt (after the 1 s request timeout) is answered, so close
        // need not wait the api timeout out for it.
        parkFetches = false;
    }

    @Test
    void committedIsFetchedAfterTheMembersEarlierCommitsAndSeesThem() throws Exception {
        start();
        joinStable();

        CompletableFuture<Void> commit = member.commitAsync(Map.of(PARTITIONS.get(0), new OffsetAndMetadata(5)));
        await().atMost(RETURNED).until(() -> parkedCommit.get() != null);
        Future<Map<TopicPartition, OffsetAndMetadata>> fetch = poller.submit(() -> member.committed(PARTITIONS));
        awaitPollerBlocked();
        // A fetch sent beside the parked commit would be answered now, without offset 5.
        answerParkedCommit();
        assertThat(fetch.get(RETURNED.toSeconds(), TimeUnit.SECONDS))
                .isEqualTo(Map.of(PARTITIONS.get(0), new OffsetAndMetadata(5)));
        assertThat(commit).isCompleted();
        assertThat(fetchCalls).hasValue(1);
    }

    @Test
    void commitSyncAndCommittedChainedOnACommitAsyncRunAtOnceOnTheCommitterThread() throws Exception {
        start();
        joinStable();

        CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> chained = member
                .commitAsync(Map.of(PARTITIONS.get(0), new OffsetAndMetadata(5)))
                .thenApply(committed -> {
                    // On the committer thread: queued behind this very task, these would wait out
                    // the api timeout and fail with REQUEST_TIMED_OUT.
                    member.commitSync(Map.of(PARTITIONS.get(1), new OffsetAndMetadata(7)));
                    return member.committed(PARTITIONS);
                });
        await().atMost(RETURNED).until(() -> parkedCommit.get() != null);
        answerCommitsAtOnce = true;
        answerParkedCommit(); // completes the commitAsync on the committer thread, which runs the chain
        assertThat(chained.get(RETURNED.toSeconds(), TimeUnit.SECONDS)).isEqualTo(Map.of(
                PARTITIONS.get(0), new OffsetAndMetadata(5), PARTITIONS.get(1), new OffsetAndMetadata(7)));
    }

    @Test
    void aCommitWhileTheMemberRebalancesFailsAtOnceWithoutBeingSent() throws Exception {
        answerCommitsAtOnce = true;
        start();
        joinStable();

        heartbeatsAnswerRebalance = true;
        await().atMost(RETURNED).until(() -> poller.submit(() -> member.awaitRebalanceNeeded(Duration.ofSeconds(1)))
                .get(RETURNED.toSeconds(), TimeUnit.SECONDS));
        heartbeatsAnswerRebalance = false;
        await().atMost(RETURNED).until(() -> poll() != null && parkedJoin.get() != null); // the rejoin, parked
        int commitsSent = commitCalls.get();

        // Sent now, it would carry generation 1, which the rebalance is replacing (Kafka fails it at
        // once with RebalanceInProgressException).
        Future<?> refused = poller.submit(() -> member.commitSync(Map.of(PARTITIONS.get(0), new OffsetAndMetadata(5))));
        assertThatThrownBy(() -> refused.get(RETURNED.toSeconds(), TimeUnit.SECONDS))
                .cause().isInstanceOf(CommitFailedException.class)
                .satisfies(e -> assertThat(((CommitFailedException) e).errorCode()).isEqualTo(ErrorCode.REBALANCE_IN_PROGRESS));
        assertThat(commitCalls).as("commits sent").hasValue(commitsSent);

        answerParkedJoin(2);
        await().atMost(RETURNED).until(this::poll, owned -> Set.copyOf(PARTITIONS).equals(owned));
        poller.submit(() -> member.commitSync(Map.of(PARTITIONS.get(0), new OffsetAndMetadata(5))))
                .get(RETURNED.toSeconds(), TimeUnit.SECONDS);
        assertThat(lastCommitGeneration).as("the commit after the rebalance").isEqualTo(2);
    }

    /** Polls until the member owns both partitions in generation 1 (the test answers its parked join). */
    private void joinStable() throws Exception {
        assertThat(poll()).isEmpty();
        await().atMost(RETURNED).until(() -> parkedJoin.get() != null);
        answerParkedJoin();
        await().atMost(RETURNED).until(this::poll, owned -> Set.copyOf(PARTITIONS).equals(owned));
        assertThat(member.awaitRebalanceNeeded(Duration.ZERO)).as("stable").isFalse();
    }

    /** Until the poll thread waits with a limit: in a poll or commitSync (an idle pool thread waits without one). */
    private void awaitPollerBlocked() {
        await().atMost(RETURNED).until(() -> pollerThread.get() != null
                && pollerThread.get().getState() == Thread.State.TIMED_WAITING);
    }

    /** The stand-in stores the parked commit's offsets and answers it. */
    private void answerParkedCommit() {
        answer(parkedCommit.getAndSet(null));
    }

    private void answer(ParkedCommit parked) {
        OffsetCommitResponse.Builder answer = OffsetCommitResponse.newBuilder();
        for (OffsetCommitRequest.Topic topic : parked.request().getTopicsList()) {
            OffsetCommitResponse.Topic.Builder answered = answer.addTopicsBuilder().setName(topic.getName());
            for (OffsetCommitRequest.Partition p : topic.getPartitionsList()) {
                storedOffsets.put(new TopicPartition(topic.getName(), p.getPartitionIndex()), p.getCommittedOffset());
                answered.addPartitionsBuilder().setPartitionIndex(p.getPartitionIndex()).setErrorCode(ErrorCode.NONE);
            }
        }
        parked.response().onNext(answer.build());
        parked.response().onCompleted();
    }

    /** The join phase completes: the parked JoinGroup's member leads generation 1, alone. */
    private void answerParkedJoin() {
        answerParkedJoin(1);
    }

    private void answerParkedJoin(int generation) {
        Parked parked = parkedJoin.getAndSet(null);
        JoinGroupRequest.Protocol range = parked.request().getProtocols(0);
        parked.response().onNext(JoinGroupResponse.newBuilder().setErrorCode(ErrorCode.NONE).setGenerationId(generation)
                .setProtocolType("consumer").setProtocolName(range.getName()).setLeader("m-1").setMemberId("m-1")
                .addMembers(JoinGroupResponse.Member.newBuilder().setMemberId("m-1").setMetadata(range.getMetadata()))
                .build());
        parked.response().onCompleted();
    }

    private final class Coordinator extends StandInNode.Coordinator {
        Coordinator() {
            super(() -> server.getPort());
        }

        @Override
        public void joinGroup(JoinGroupRequest request, StreamObserver<JoinGroupResponse> response) {
            joinCalls.incrementAndGet();
            if (refuseJoins) {
                response.onNext(JoinGroupResponse.newBuilder().setErrorCode(ErrorCode.COORDINATOR_NOT_AVAILABLE)
                        .setGenerationId(-1).build());
                response.onCompleted();
            } else if (request.getMemberId().isEmpty()) {
                response.onNext(JoinGroupResponse.newBuilder().setErrorCode(ErrorCode.MEMBER_ID_REQUIRED)
                        .setGenerationId(-1).setMemberId("m-1").build());
                response.onCompleted();
            } else {
                parkedJoin.set(new Parked(request, response)); // answered by the test
            }
        }

        @Override
        public void syncGroup(SyncGroupRequest request, StreamObserver<SyncGroupResponse> response) {
            syncCalls.incrementAndGet();
            SyncGroupRequest.Assignment mine = request.getAssignmentsList().stream()
                    .filter(a -> a.getMemberId().equals(request.getMemberId())).findFirst().orElseThrow();
            response.onNext(SyncGroupResponse.newBuilder().setErrorCode(ErrorCode.NONE).setProtocolType("consumer")
                    .setProtocolName(request.getProtocolName()).setAssignment(mine.getAssignment()).build());
            response.onCompleted();
        }

        @Override
        public void offsetCommit(OffsetCommitRequest request, StreamObserver<OffsetCommitResponse> response) {
            commitCalls.incrementAndGet();
            lastCommitGeneration = request.getGenerationIdOrMemberEpoch();
            if (answerCommitsAtOnce) {
                answer(new ParkedCommit(request, response));
            } else {
                parkedCommit.set(new ParkedCommit(request, response)); // answered by the test, or never
            }
        }

        @Override
        public void offsetFetch(OffsetFetchRequest request, StreamObserver<OffsetFetchResponse> response) {
            fetchCalls.incrementAndGet();
            if (parkFetches) {
                return; // never answered
            }
            OffsetFetchRequest.Group asked = request.getGroups(0);
            OffsetFetchResponse.Group.Builder group = OffsetFetchResponse.Group.newBuilder()
                    .setGroupId(asked.getGroupId()).setErrorCode(ErrorCode.NONE);
            for (OffsetFetchRequest.Topic topic : asked.getTopicsList()) {
                OffsetFetchResponse.Topic.Builder answered = group.addTopicsBuilder().setName(topic.getName());
                for (int index : topic.getPartitionIndexesList()) {
                    answered.addPartitionsBuilder().setPartitionIndex(index).setCommittedLeaderEpoch(-1)
                            .setCommittedOffset(storedOffsets.getOrDefault(new TopicPartition(topic.getName(), index), -1L))
                            .setErrorCode(ErrorCode.NONE);
                }
            }
            response.onNext(OffsetFetchResponse.newBuilder().addGroups(group).build());
            response.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> response) {
            response.onNext(HeartbeatResponse.newBuilder().setErrorCode(heartbeatsAnswerRebalance
                    ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE).build());
            response.onCompleted();
        }

        @Override
        public void leaveGroup(LeaveGroupRequest request, StreamObserver<LeaveGroupResponse> response) {
            request.getMembersList().forEach(m -> leftMembers.add(m.getMemberId()));
            response.onNext(LeaveGroupResponse.newBuilder().setErrorCode(ErrorCode.NONE).build());
            response.onCompleted();
        }
    }
}
