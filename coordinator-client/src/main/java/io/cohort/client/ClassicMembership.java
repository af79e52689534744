package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.RebalanceProtocol;
import io.cohort.client.assignor.Subscription;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic group protocol's membership loop, as Kafka's {@code AbstractCoordinator} and
 * {@code ConsumerCoordinator}: JoinGroup (with the MEMBER_ID_REQUIRED round trip), the client-side
 * assignor when this member leads, SyncGroup ({@link ClassicJoinSync}), and a background heartbeat
 * thread.
 *
 * <p>The heartbeat thread beats every {@code heartbeatInterval} from one interval after each
 * JoinGroup answer, through the sync phase and while stable ({@link HeartbeatSchedule}); when the
 * coordinator answers REBALANCE_IN_PROGRESS to a stable member the next poll rejoins, and when it
 * answers UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION the next poll reports the partitions lost and
 * rejoins. If poll is not called for the rebalance timeout (Kafka's max.poll.interval.ms), the
 * heartbeat thread leaves the group, as Kafka's does.
 *
 * <p>A rebalance runs as a sequence of attempts, each one JoinGroup (with its MEMBER_ID_REQUIRED
 * round), the leader's assignment and SyncGroup, sent from the member's rebalance thread: poll
 * starts an attempt and waits for it only until its own deadline, as Kafka's poll does, and the
 * next poll goes on waiting for the same attempt. So a poll returns at its timeout while a join is
 * parked at the coordinator, or while no node can be reached. What the application sees stays on
 * the poll thread: the listener, the assignor's {@code onAssignment}, the lost partitions. The
 * leader's {@code assign} runs on the rebalance thread, as Kafka's may run on its heartbeat thread.
 *
 * <p>A coordinator failover in any phase is absorbed by the client's retries: a parked JoinGroup
 * or SyncGroup that ends with NOT_COORDINATOR is resent to the new coordinator with the same member
 * id, and the replicated group state answers it as the old one would have.
 */
final class ClassicMembership extends Membership {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicMembership.class);

    private enum State { UNJOINED, REBALANCING, STABLE, CLOSED }

    private final List<ConsumerPartitionAssignor> assignors;
    private final RebalanceProtocol rebalanceProtocol;
    private final Duration rebalanceTimeout;
    private final Duration heartbeatInterval;
    private final Optional<String> groupInstanceId;

    private State state = State.UNJOINED;
    /** When the heartbeat thread sends next; waits on {@link #lock}, which is notified when it changes. */
    private final HeartbeatSchedule heartbeats;
    private String memberId = "";
    /** The generation of the last JoinGroup answer: what JoinGroup, SyncGroup and Heartbeat carry. */
    private int generationId = Subscription.NO_GENERATION;
    /** The generation the owned partitions were assigned in: what commits carry; -1 while fenced. */
    private int assignmentGeneration = Subscription.NO_GENERATION;
    private String protocolName = "";
    private boolean leader;
    private boolean rejoinNeeded = true;
    /** Set by the heartbeat thread or a commit when the generation is gone: report lost, then rejoin. */
    private boolean generationLost;
    private long lastPollNanos = System.nanoTime();

    /** Sends each rebalance attempt from the rebalance thread, so that poll may return while one is under way. */
    private final BackgroundAttempts<ClassicJoinSync.AttemptResult> attempts;
    /** The JoinGroup and SyncGroup exchanges each attempt makes. */
    private final ClassicJoinSync joinSync;
    /** Poll thread only: whether the rebalance under way was prepared (Kafka's needsJoinPrepare is its negation). */
    private boolean joinPrepared;
    /** Poll thread only: the failed attempts of the rebalance under way, for the backoff. */
    private int failedAttempts;

    private final Thread heartbeatThread;

    ClassicMembership(MemberConfig config, TopicMetadata topicMetadata, List<ConsumerPartitionAssignor> assignors,
            Duration sessionTimeout, Duration heartbeatInterval) {
        super(config);
        this.assignors = List.copyOf(assignors);
        this.rebalanceProtocol = commonProtocol(this.assignors);
        this.rebalanceTimeout = config.rebalanceTimeout();
        this.heartbeatInterval = heartbeatInterval != null ? heartbeatInterval : sessionTimeout.dividedBy(3);
        this.heartbeats = new HeartbeatSchedule(this.heartbeatInterval);
        this.groupInstanceId = config.groupInstanceId();
        this.joinSync = new ClassicJoinSync(config, topicMetadata, this.assignors, sessionTimeout, new JoinSyncMember());
        String threadPrefix = "cohort-" + groupId + "-" + client.clientId();
        this.attempts = new BackgroundAttempts<>(threadPrefix + "-rebalance", wakeup);
        this.heartbeatThread = daemon(this::heartbeatLoop, threadPrefix + "-heartbeat");
        this.heartbeatThread.start();
    }

    // ---------------------------------------------------------------------------------------------
    // What the facade asks

    @Override
    void pollOnce(long deadlineNanos) {
        synchronized (lock) {
            lastPollNanos = System.nanoTime();
        }
        reportLostPartitionsIfFenced();
        if (attempts.inFlight() || needsRejoin()) {
            rebalance(deadlineNanos);
        }
        synchronized (lock) {
            lastPollNanos = System.nanoTime();
        }
    }

    @Override
    boolean pollWorkPending() {
        return attempts.inFlight() || needsRejoin();
    }

    /** Whether the poll loop must go on: the member is not (yet, or any more) stable in a generation. */
    private boolean needsRejoin() {
        synchronized (lock) {
            ensureOpen();
            return rejoinNeeded || state != State.STABLE;
        }
    }

    @Override
    boolean rebalanceNeededLocked() {
        return rejoinNeeded || generationLost || state != State.STABLE || fatal != null;
    }

    @Override
    String memberId() {
        synchronized (lock) {
            return memberId;
        }
    }

    @Override
    int commitGeneration() {
        synchronized (lock) {
            return assignmentGeneration;
        }
    }

    @Override
    boolean refusesCommitsWhileRebalancing() {
        synchronized (lock) {
            return state == State.REBALANCING;
        }
    }

    @Override
    boolean closedLocked() {
        return state == State.CLOSED;
    }

    boolean isLeader() {
        synchronized (lock) {
            return leader;
        }
    }

    String protocolName() {
        synchronized (lock) {
            return protocolName;
        }
    }

    RebalanceProtocol rebalanceProtocol() {
        return rebalanceProtocol;
    }

    @Override
    RuntimeException onCommitFailed(CohortException e, CommitTarget target) {
        ErrorCode code = e.errorCode();
        if (code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.ILLEGAL_GENERATION
                || code == ErrorCode.FENCED_INSTANCE_ID) {
            onFenced(code, target.generationOrEpoch(), target.memberId(), "commit");
            return new CommitFailedException(code, e.getMessage());
        }
        if (code == ErrorCode.REBALANCE_IN_PROGRESS) {
            requestRejoin("commit answered REBALANCE_IN_PROGRESS");
            return new CommitFailedException(code, e.getMessage());
        }
        return e;
    }

    @Override
    void reportLostPartitionsIfFenced() {
        boolean lost;
        synchronized (lock) {
            lost = generationLost;
            generationLost = false;
        }
        if (lost && !owned.isEmpty()) {
            Set<TopicPartition> gone = owned;
            owned = Set.of();
            LOG.info("group {}: lost {} partitions (no longer in the current generation)", groupId, gone.size());
            listener.onPartitionsLost(sorted(gone));
        }
    }

    @Override
    void stop() {
        synchronized (lock) {
            state = State.CLOSED;
            lock.notifyAll();
        }
        // An attempt under way is abandoned: its call ends with the interrupt, and the session
        // timeout (or the LeaveGroup that follows) removes what it joined.
        attempts.shutdown();
        heartbeatThread.interrupt();
    }

    /** A static member does not leave: its instance id keeps its place until the session times out, as in Kafka. */
    @Override
    void leave() {
        if (groupInstanceId.isEmpty()) {
            leaveGroup("the member is closing");
        }
    }

    private void leaveGroup(String reason) {
        String member = memberId();
        if (member.isEmpty()) {
            return;
        }
        try {
            client.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(groupId).addMembers(LeaveGroupRequest.Member
                    .newBuilder().setMemberId(member).setReason(reason)).build(), client.requestTimeout().multipliedBy(2));
        } catch (RuntimeException e) {
            // The session timeout removes the member anyway.
            LOG.info("group {}: LeaveGroup for {} failed: {}", groupId, member, e.getMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Join and sync (attempts on the rebalance thread, driven by the poll thread)

    /**
     * Takes the rebalance forward until it completes or {@code deadlineNanos} passes: prepares it
     * (commit, eager revocation) once, starts attempts, and completes the one that ends with an
     * assignment. An attempt still under way at the deadline is left running for the next poll.
     */
    private void rebalance(long deadlineNanos) {
        if (!attempts.inFlight()) {
            if (!joinPrepared) {
                onJoinPrepare();
                joinPrepared = true;
                failedAttempts = 0;
            }
            startAttempt(0);
        }
        while (true) {
            ClassicJoinSync.AttemptResult result;
            try {
                result = attempts.await(deadlineNanos);
            } catch (CancellationException e) {
                synchronized (lock) {
                    ensureOpen(); // closed meanwhile: say so
                }
                throw e;
            }
            if (result == null) {
                return;
            }
            boolean atOnce = result.rejoinAtOnce();
            if (result.assignment() != null) {
                if (stillIn(result.joined())) {
                    joinPrepared = false;
                    onJoinComplete(result.joined(), result.assignment());
                    return;
                }
                // A heartbeat of the sync phase was told UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION and
                // reset the generation meanwhile (Kafka's joinGroupIfNeeded: "the generation/state was
                // modified by heartbeat thread"): this assignment is void, join again.
                LOG.info("group {}: generation {} ended during its sync; rejoining", groupId,
                        result.joined().generationId());
                atOnce = true;
            }
            reportLostPartitionsIfFenced();
            long delayMs = atOnce ? 0 : client.backoff().delayMs(failedAttempts);
            failedAttempts++;
            startAttempt(delayMs);
        }
    }

    /**
     * Starts an attempt after {@code delayMs}. Every attempt is a rejoin from scratch: a failed one
     * may have reset the generation (state UNJOINED), and a generation completed from there must
     * still end STABLE.
     */
    private void startAttempt(long delayMs) {
        int ownedGeneration;
        synchronized (lock) {
            ensureOpen();
            state = State.REBALANCING;
            rejoinNeeded = false;
            heartbeats.disable();
            ownedGeneration = assignmentGeneration;
        }
        // Outside the lock: the assignors' subscriptionUserData is the application's code.
        JoinGroupRequest request = joinSync.joinRequest(owned, ownedGeneration);
        attempts.start(() -> joinSync.attempt(request, delayMs));
    }

    /** The membership's state as the join and sync exchanges see and change it. */
    private final class JoinSyncMember implements ClassicJoinSync.Member {
        @Override
        public String memberId() {
            return ClassicMembership.this.memberId();
        }

        @Override
        public void onJoined(JoinGroupResponse response) {
            synchronized (lock) {
                memberId = response.getMemberId();
                generationId = response.getGenerationId();
                protocolName = response.getProtocolName();
                leader = response.getLeader().equals(memberId);
                // In a generation now: heartbeat from one interval on, through the sync (Kafka:
                // the heartbeat thread is enabled, its timer reset, on the JoinGroup answer).
                heartbeats.onJoined(System.nanoTime());
                lock.notifyAll();
            }
        }

        @Override
        public void onMemberIdMinted(String minted) {
            synchronized (lock) {
                memberId = minted;
            }
        }

        @Override
        public void resetGeneration(boolean resetMemberId, String why) {
            ClassicMembership.this.resetGeneration(resetMemberId, why);
        }

        @Override
        public CohortException fail(CohortException e) {
            return ClassicMembership.this.fail(e);
        }
    }

    /** Whether the member is still in the generation {@code joined} gave it. */
    private boolean stillIn(ClassicJoinSync.JoinOutcome joined) {
        synchronized (lock) {
            return generationId == joined.generationId() && memberId.equals(joined.memberId());
        }
    }

    private void onJoinPrepare() {
        // Kafka commits consumed positions before giving partitions up, so the next owner starts there.
        config.autoCommitBeforeRevoke().accept("commit before rebalance");
        reportLostPartitionsIfFenced();
        if (rebalanceProtocol == RebalanceProtocol.EAGER && !owned.isEmpty()) {
            Set<TopicPartition> revoked = owned;
            owned = Set.of();
            listener.onPartitionsRevoked(sorted(revoked));
        }
    }

    private void onJoinComplete(ClassicJoinSync.JoinOutcome joined, Assignment assignment) {
        Set<TopicPartition> assigned = new TreeSet<>(assignment.partitions());
        Set<TopicPartition> before = owned;
        Set<TopicPartition> revoked = new TreeSet<>(before);
        revoked.removeAll(assigned);
        Set<TopicPartition> added = new TreeSet<>(assigned);
        added.removeAll(before);
        synchronized (lock) {
            assignmentGeneration = joined.generationId();
            // Stable before the callbacks, as Kafka's SyncGroup handler makes it: a commit in
            // onPartitionsRevoked or onPartitionsAssigned carries the new generation.
            if (state == State.REBALANCING) {
                state = State.STABLE;
            }
        }
        assignors.stream().filter(a -> a.name().equals(joined.protocolName())).findFirst()
                .ifPresent(a -> a.onAssignment(assignment, joined.generationId()));
        boolean revokeFirst = !revoked.isEmpty();
        if (revokeFirst) {
            // Cooperative: give up what moved, then rejoin so the new owners get it (KIP-429).
            Set<TopicPartition> kept = new TreeSet<>(before);
            kept.retainAll(assigned);
            owned = Set.copyOf(kept);
            listener.onPartitionsRevoked(List.copyOf(revoked));
        }
        owned = Set.copyOf(assigned);
        if (revokeFirst) {
            requestRejoin("partitions revoked (cooperative): the new owners get them in the next rebalance");
        }
        LOG.info("group {}: member {} in generation {} owns {} partitions ({} added, {} revoked)", groupId,
                joined.memberId(), joined.generationId(), assigned.size(), added.size(), revoked.size());
        listener.onPartitionsAssigned(List.copyOf(added));
    }

    // ---------------------------------------------------------------------------------------------
    // Heartbeats (background thread)

    private void heartbeatLoop() {
        while (true) {
            String member;
            int generation;
            boolean pollOverdue;
            synchronized (lock) {
                try {
                    if (!awaitHeartbeatDue()) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                heartbeats.onSent(System.nanoTime());
                member = memberId;
                generation = generationId;
                // In any phase, as Kafka's heartbeat thread checks it: poll no longer waits for a
                // rebalance to end, so one not called for this long is an application that stopped.
                pollOverdue = System.nanoTime() - lastPollNanos > rebalanceTimeout.toNanos();
            }
            if (pollOverdue) {
                // Kafka's max.poll.interval.ms: an application that stopped polling gives its partitions up.
                LOG.warn("group {}: poll not called for {} ms; leaving the group", groupId, rebalanceTimeout.toMillis());
                leaveGroup("poll interval exceeded");
                resetGeneration(true, "poll interval exceeded");
                continue;
            }
            HeartbeatRequest.Builder request = HeartbeatRequest.newBuilder().setGroupId(groupId)
                    .setGenerationId(generation).setMemberId(member);
            groupInstanceId.ifPresent(request::setGroupInstanceId);
            HeartbeatResponse response;
            try {
                response = client.heartbeat(request.build(), heartbeatInterval.plus(client.requestTimeout()));
            } catch (InterruptException e) {
                return; // close() stops the thread
            } catch (CohortException | IllegalStateException e) {
                LOG.debug("group {}: heartbeat failed: {}", groupId, e.getMessage());
                continue;
            } catch (RuntimeException e) {
                LOG.warn("group {}: heartbeat failed unexpectedly", groupId, e);
                continue;
            }
            switch (response.getErrorCode()) {
                case NONE -> { }
                case REBALANCE_IN_PROGRESS -> requestRejoinIfStable(generation, member);
                case UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID ->
                        onFenced(response.getErrorCode(), generation, member, "heartbeat");
                default -> LOG.debug("group {}: heartbeat answered {}", groupId, response.getErrorCode());
            }
        }
    }

    /**
     * Holding {@link #lock}: waits until a heartbeat is due (the member is in a generation and the
     * interval since the JoinGroup answer or the last heartbeat has passed); false once closed.
     */
    private boolean awaitHeartbeatDue() throws InterruptedException {
        while (true) {
            if (state == State.CLOSED) {
                return false;
            }
            long dueInNanos = fatal != null ? Long.MAX_VALUE : heartbeats.nanosUntilDue(System.nanoTime());
            if (dueInNanos <= 0) {
                return true;
            }
            if (dueInNanos == Long.MAX_VALUE) {
                lock.wait();
            } else {
                TimeUnit.NANOSECONDS.timedWait(lock, dueInNanos);
            }
        }
    }

    /**
     * A heartbeat was answered REBALANCE_IN_PROGRESS: a stable member rejoins. During its own sync
     * phase the member ignores it (as Kafka's does): the sync is answered REBALANCE_IN_PROGRESS
     * too if the new rebalance began before it completed, and a flag set now would make the member
     * rejoin once more after a rebalance that already included it.
     */
    private void requestRejoinIfStable(int generation, String member) {
        synchronized (lock) {
            if (state == State.STABLE && generation == generationId && member.equals(memberId)) {
                LOG.debug("group {}: heartbeat of generation {} answered REBALANCE_IN_PROGRESS; rejoining", groupId,
                        generation);
                rejoinNeeded = true;
                lock.notifyAll();
            }
        }
    }

    private void requestRejoin(String why) {
        synchronized (lock) {
            LOG.debug("group {}: rejoin requested: {}", groupId, why);
            rejoinNeeded = true;
            lock.notifyAll();
        }
    }

    /** The coordinator no longer knows (generation, member): unless that is stale news, reset and rejoin. */
    private void onFenced(ErrorCode code, int generation, String member, String what) {
        synchronized (lock) {
            // Stale news: the member has joined again since the call was sent.
            if (generation != generationId || !member.equals(memberId)) {
                return;
            }
            if (code == ErrorCode.FENCED_INSTANCE_ID) {
                fatal = new CohortException(code, "another member joined group '" + groupId + "' with instance id "
                        + groupInstanceId.orElse("") + "; this one is fenced");
                lock.notifyAll();
                return;
            }
        }
        resetGeneration(code == ErrorCode.UNKNOWN_MEMBER_ID, what + " answered " + code);
    }

    /**
     * Forgets the generation (and the member id if {@code resetMemberId}), as Kafka's
     * resetStateAndGeneration: the owned partitions are reported lost on the poll thread, and the
     * member joins again.
     */
    private void resetGeneration(boolean resetMemberId, String why) {
        synchronized (lock) {
            LOG.info("group {}: member {} resets generation {}: {}", groupId, memberId, generationId, why);
            generationId = Subscription.NO_GENERATION;
            assignmentGeneration = Subscription.NO_GENERATION;
            if (resetMemberId) {
                memberId = "";
            }
            leader = false;
            heartbeats.disable();
            if (state != State.CLOSED) {
                state = State.UNJOINED;
            }
            rejoinNeeded = true;
            generationLost = true;
            lock.notifyAll();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Rules

    /** Whether a join or sync that failed with {@code code} is retried without backing off (see {@link #rejoinAtOnce}). */
    static boolean rejoinsAtOnce(ErrorCode code) {
        return code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.ILLEGAL_GENERATION
                || code == ErrorCode.REBALANCE_IN_PROGRESS;
    }

    /** Kafka's rule: the highest protocol every configured assignor supports. */
    static RebalanceProtocol commonProtocol(List<ConsumerPartitionAssignor> assignors) {
        Set<RebalanceProtocol> common = EnumSet.allOf(RebalanceProtocol.class);
        for (ConsumerPartitionAssignor assignor : assignors) {
            common.retainAll(assignor.supportedProtocols());
        }
        if (common.isEmpty()) {
            throw new IllegalArgumentException("the assignors " + assignors.stream().map(ConsumerPartitionAssignor::name)
                    .toList() + " share no rebalance protocol");
        }
        return common.contains(RebalanceProtocol.COOPERATIVE) ? RebalanceProtocol.COOPERATIVE : RebalanceProtocol.EAGER;
    }
}
