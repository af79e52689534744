package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.HeartbeatResponse;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.CooperativeStickyAssignor;
import io.cohort.client.assignor.RangeAssignor;
import io.cohort.client.assignor.RebalanceProtocol;
import io.cohort.client.assignor.Subscription;
import io.cohort.client.internal.ConsumerProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a consumer group: the membership loop of Kafka's consumer (its
 * {@code AbstractCoordinator} and {@code ConsumerCoordinator}) over a {@link CohortClient}.
 *
 * <p>Use it like a Kafka consumer without the records: call {@link #poll} in a loop; it joins the
 * group (with the MEMBER_ID_REQUIRED round trip), runs the assignor when this member is the
 * group's leader, syncs, and invokes the {@link RebalanceListener} on the calling thread. A
 * background thread heartbeats every {@code heartbeatInterval} (a third of the session timeout by
 * default) from one interval after each JoinGroup answer, through the sync phase and while stable,
 * as Kafka's heartbeat thread does ({@link HeartbeatSchedule}); when the coordinator answers
 * REBALANCE_IN_PROGRESS to a stable member the next poll rejoins, and when it answers
 * UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION the next poll reports the partitions lost and rejoins. If poll is not called for {@code rebalanceTimeout} (Kafka's max.poll.interval.ms), the
 * heartbeat thread leaves the group, as Kafka's does.
 *
 * <p>Commits ({@link #commitSync}, {@link #commitAsync} and auto-commit) carry the member's current
 * generation and are sent one at a time in the order they were made, so a retried commit can never
 * overwrite a newer one. A coordinator failover in any phase is absorbed by the client's retries: a
 * parked JoinGroup or SyncGroup that ends with NOT_COORDINATOR is resent to the new coordinator
 * with the same member id, and the replicated group state answers it as the old one would have.
 *
 * <p>Not thread-safe, like KafkaConsumer, except {@link #commitAsync}, {@link #assignment()} and
 * the read-only getters, which any thread may call. Unlike Kafka's poll, a poll that takes part in
 * a rebalance returns only when the join and sync phases end (bounded by the rebalance timeout).
 */
public final class GroupMember implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupMember.class);
    private static final String PROTOCOL_TYPE = "consumer";
    /** Kafka's client waits this much beyond the rebalance timeout for a JoinGroup answer. */
    private static final Duration JOIN_GRACE = Duration.ofSeconds(5);

    private enum State { UNJOINED, REBALANCING, STABLE, CLOSED }

    private final CohortClient client;
    private final String groupId;
    private final List<String> topics;
    private final TopicMetadata topicMetadata;
    private final List<ConsumerPartitionAssignor> assignors;
    private final RebalanceProtocol rebalanceProtocol;
    private final RebalanceListener listener;
    private final Duration sessionTimeout;
    private final Duration rebalanceTimeout;
    private final Duration heartbeatInterval;
    private final Optional<String> groupInstanceId;
    private final Optional<String> rackId;
    private final String clientHost;
    private final Duration autoCommitInterval;

    /** Guards the membership fields below, shared with the heartbeat thread. */
    private final Object lock = new Object();
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
    private CohortException fatal;
    /**
     * Poll thread only: whether the last failed join or sync may be retried at once. As Kafka's
     * AbstractCoordinator: after UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION or REBALANCE_IN_PROGRESS the
     * member rejoins without backing off (the coordinator is fine, the member's view is stale);
     * after a failure to reach the coordinator it backs off.
     */
    private boolean rejoinAtOnce;
    private volatile Set<TopicPartition> owned = Set.of();
    private long lastPollNanos = System.nanoTime();

    /** Positions to auto-commit (the next offset to process), by partition; poll thread only. */
    private final Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
    private long nextAutoCommitNanos;

    /** Sends commits one at a time, in submission order. */
    private final ExecutorService committer;
    private final Thread heartbeatThread;

    private GroupMember(Builder builder) {
        this.client = builder.client;
        this.groupId = builder.groupId;
        this.topics = List.copyOf(new TreeSet<>(builder.topics));
        this.topicMetadata = builder.topicMetadata;
        this.assignors = List.copyOf(builder.assignors);
        this.rebalanceProtocol = commonProtocol(assignors);
        this.listener = builder.listener;
        this.sessionTimeout = builder.sessionTimeout;
        this.rebalanceTimeout = builder.rebalanceTimeout;
        this.heartbeatInterval = builder.heartbeatInterval != null ? builder.heartbeatInterval
                : sessionTimeout.dividedBy(3);
        this.heartbeats = new HeartbeatSchedule(heartbeatInterval);
        this.groupInstanceId = builder.groupInstanceId;
        this.rackId = builder.rackId;
        this.clientHost = builder.clientHost;
        this.autoCommitInterval = builder.autoCommitInterval;
        this.nextAutoCommitNanos = System.nanoTime() + (autoCommitInterval == null ? 0 : autoCommitInterval.toNanos());
        String name = "cohort-" + groupId + "-" + client.clientId();
        this.committer = Executors.newSingleThreadExecutor(r -> daemon(r, name + "-committer"));
        this.heartbeatThread = daemon(this::heartbeatLoop, name + "-heartbeat");
        this.heartbeatThread.start();
    }

    public static Builder builder(CohortClient client, String groupId) {
        return new Builder(client, groupId);
    }

    // ---------------------------------------------------------------------------------------------
    // The poll loop

    /**
     * Keeps the membership alive: rejoins if needed (running the listener), auto-commits if due,
     * and returns the current assignment. Waits up to {@code timeout} for an assignment when the
     * member has none yet; a rebalance already under way completes even if that takes longer.
     *
     * @throws CohortException with a fatal code (FENCED_INSTANCE_ID, INCONSISTENT_GROUP_PROTOCOL,
     *     INVALID_SESSION_TIMEOUT, GROUP_MAX_SIZE_REACHED, ...): the member cannot go on
     */
    public Set<TopicPartition> poll(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            ensureOpen();
            lastPollNanos = System.nanoTime();
        }
        do {
            reportLostPartitionsIfFenced();
            if (needsRejoin()) {
                joinAndSync();
            }
            maybeAutoCommit();
        } while (needsRejoin() && System.nanoTime() < deadline);
        synchronized (lock) {
            lastPollNanos = System.nanoTime();
        }
        return owned;
    }

    /**
     * Waits until the member must take part in a rebalance (a heartbeat learned that the group is
     * rebalancing, or that this member's generation is gone), or until {@code timeout} passes;
     * returns whether it must, i.e. whether the next {@link #poll} will rejoin. For poll loops that
     * idle between polls: a Kafka consumer blocked in its poll reacts to a heartbeat's
     * REBALANCE_IN_PROGRESS at once, while a loop that sleeps instead notices it only when it
     * wakes, delaying the whole group's rebalance by up to the sleep. Also returns at once when the
     * member is closed or failed (poll then throws). Any thread may call it.
     */
    public boolean awaitRebalanceNeeded(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!rebalanceNeeded()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    throw new InterruptException(e);
                }
            }
            return true;
        }
    }

    /** Holding {@link #lock}: whether poll has work to do, or must throw. */
    private boolean rebalanceNeeded() {
        return rejoinNeeded || generationLost || state != State.STABLE || fatal != null;
    }

    /** The partitions this member owns now. */
    public Set<TopicPartition> assignment() {
        return owned;
    }

    /** The member id, "" until the first JoinGroup answered. */
    public String memberId() {
        synchronized (lock) {
            return memberId;
        }
    }

    /**
     * The generation of the current assignment (set when a rebalance completes, as Kafka's
     * {@code generationIfStable}); -1 if the member has none.
     */
    public int generationId() {
        synchronized (lock) {
            return assignmentGeneration;
        }
    }

    /** Whether this member led the last completed join phase. */
    public boolean isLeader() {
        synchronized (lock) {
            return leader;
        }
    }

    /** The assignor the coordinator selected for the current generation; "" before the first join. */
    public String protocolName() {
        synchronized (lock) {
            return protocolName;
        }
    }

    /** The rebalance protocol in use: COOPERATIVE if every configured assignor supports it, else EAGER. */
    public RebalanceProtocol rebalanceProtocol() {
        return rebalanceProtocol;
    }

    public String groupId() {
        return groupId;
    }

    /**
     * Records that the application processed {@code partition} up to {@code nextOffset} (the next
     * offset to process); auto-commit commits the latest positions. Poll thread only.
     */
    public void markProcessed(TopicPartition partition, long nextOffset) {
        positions.put(partition, new OffsetAndMetadata(nextOffset));
    }

    // ---------------------------------------------------------------------------------------------
    // Commits

    /**
     * Commits {@code offsets} for the current generation and waits for the acknowledgement
     * (retrying routing errors and failovers within the client's api timeout).
     *
     * @throws CommitFailedException if the member is no longer in the group's current generation;
     *     it rejoins on the next poll
     * @throws CohortException on other failures, e.g. OFFSET_METADATA_TOO_LARGE
     */
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        CompletableFuture<Void> commit = commitAsync(offsets);
        try {
            commit.get(client.apiTimeout().plus(client.requestTimeout()).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (TimeoutException e) {
            throw new CohortException(ErrorCode.REQUEST_TIMED_OUT, "commit for group '" + groupId + "' not answered");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR, "commit failed", e.getCause());
        }
    }

    /**
     * Commits {@code offsets} for the current generation in the background; the future completes
     * when the commit is acknowledged, or exceptionally as {@link #commitSync} would throw. Commits
     * are sent in the order of the calls. Any thread may call it.
     */
    public CompletableFuture<Void> commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, OffsetAndMetadata> copy = new TreeMap<>(offsets);
        int generation;
        String member;
        synchronized (lock) {
            ensureOpen();
            generation = assignmentGeneration;
            member = memberId;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (copy.isEmpty()) {
            done.complete(null);
            return done;
        }
        if (generation < 0) {
            // Kafka fails such a commit at once: there is no generation whose partitions it could cover.
            done.completeExceptionally(new CommitFailedException(ErrorCode.ILLEGAL_GENERATION,
                    "member of group '" + groupId + "' has no current generation (rebalancing or not joined)"));
            return done;
        }
        committer.execute(() -> {
            try {
                sendCommit(copy, generation, member);
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private void sendCommit(Map<TopicPartition, OffsetAndMetadata> offsets, int generation, String member) {
        OffsetCommitResponse response = client.offsetCommit(
                CohortClient.commitRequest(groupId, generation, member, groupInstanceId, offsets), client.apiTimeout());
        try {
            CohortClient.throwIfCommitFailed(response, groupId);
        } catch (CohortException e) {
            ErrorCode code = e.errorCode();
            if (code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.ILLEGAL_GENERATION
                    || code == ErrorCode.FENCED_INSTANCE_ID) {
                onFenced(code, generation, member, "commit");
                throw new CommitFailedException(code, e.getMessage());
            }
            if (code == ErrorCode.REBALANCE_IN_PROGRESS) {
                requestRejoin("commit answered REBALANCE_IN_PROGRESS");
                throw new CommitFailedException(code, e.getMessage());
            }
            throw e;
        }
    }

    private void maybeAutoCommit() {
        if (autoCommitInterval == null || System.nanoTime() < nextAutoCommitNanos) {
            return;
        }
        nextAutoCommitNanos = System.nanoTime() + autoCommitInterval.toNanos();
        commitPositionsQuietly("auto-commit");
    }

    /** Commits the positions of owned partitions, logging rather than throwing failures (as Kafka's auto-commit). */
    private void commitPositionsQuietly(String why) {
        Map<TopicPartition, OffsetAndMetadata> due = new TreeMap<>();
        Set<TopicPartition> mine = owned;
        positions.forEach((tp, offset) -> {
            if (mine.contains(tp)) {
                due.put(tp, offset);
            }
        });
        if (due.isEmpty() || generationId() < 0) {
            return;
        }
        try {
            commitSync(due);
        } catch (CohortException e) {
            LOG.warn("group {}: {} of {} partitions failed: {}", groupId, why, due.size(), e.getMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Join and sync (poll thread)

    private boolean needsRejoin() {
        synchronized (lock) {
            ensureOpen();
            return rejoinNeeded || state != State.STABLE;
        }
    }

    private void reportLostPartitionsIfFenced() {
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

    /** One rebalance from this member's side: prepare, join, (assign,) sync, and apply the assignment. */
    private void joinAndSync() {
        onJoinPrepare();
        int attempt = 0;
        while (true) {
            ensureNotFatal();
            // Every attempt is a rejoin from scratch: a failed one may have reset the generation
            // (state UNJOINED), and a generation completed from there must still end STABLE.
            synchronized (lock) {
                state = State.REBALANCING;
                rejoinNeeded = false;
                heartbeats.disable();
            }
            JoinOutcome joined = join();
            if (joined == null) {
                reportLostPartitionsIfFenced();
                backoffUnlessRejoinAtOnce(attempt++);
                continue;
            }
            Optional<Assignment> assignment = sync(joined);
            if (assignment.isPresent() && !stillIn(joined)) {
                // A heartbeat of the sync phase was told UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION and
                // reset the generation meanwhile (Kafka's joinGroupIfNeeded: "the generation/state was
                // modified by heartbeat thread"): this assignment is void, join again.
                LOG.info("group {}: generation {} ended during its sync; rejoining", groupId, joined.generationId());
                rejoinAtOnce = true;
                assignment = Optional.empty();
            }
            if (assignment.isEmpty()) {
                reportLostPartitionsIfFenced();
                backoffUnlessRejoinAtOnce(attempt++);
                continue;
            }
            onJoinComplete(joined, assignment.get());
            return;
        }
    }

    /** Whether the member is still in the generation {@code joined} gave it. */
    private boolean stillIn(JoinOutcome joined) {
        synchronized (lock) {
            return generationId == joined.generationId() && memberId.equals(joined.memberId());
        }
    }

    private void onJoinPrepare() {
        if (autoCommitInterval != null) {
            // Kafka commits consumed positions before giving partitions up, so the next owner starts there.
            commitPositionsQuietly("commit before rebalance");
        }
        reportLostPartitionsIfFenced();
        if (rebalanceProtocol == RebalanceProtocol.EAGER && !owned.isEmpty()) {
            Set<TopicPartition> revoked = owned;
            owned = Set.of();
            listener.onPartitionsRevoked(sorted(revoked));
        }
    }

    /** What a successful JoinGroup told this member. */
    private record JoinOutcome(int generationId, String memberId, String protocolName, boolean leader,
            boolean skipAssignment, JoinGroupResponse response) {
    }

    /**
     * Sends JoinGroup until the join phase completes for this member. Returns null when the member
     * must back off and join again (its generation or member id was reset, or the coordinator was
     * unreachable for the whole budget).
     */
    private JoinOutcome join() {
        rejoinAtOnce = false;
        while (true) {
            String member;
            int ownedGeneration;
            synchronized (lock) {
                member = memberId;
                ownedGeneration = assignmentGeneration;
            }
            JoinGroupRequest.Builder request = JoinGroupRequest.newBuilder().setGroupId(groupId)
                    .setSessionTimeoutMs(millis(sessionTimeout)).setRebalanceTimeoutMs(millis(rebalanceTimeout))
                    .setMemberId(member).setProtocolType(PROTOCOL_TYPE).setClientId(client.clientId())
                    .setClientHost(clientHost);
            groupInstanceId.ifPresent(request::setGroupInstanceId);
            for (ConsumerPartitionAssignor assignor : assignors) {
                Subscription subscription = new Subscription(topics, assignor.subscriptionUserData(Set.copyOf(topics)),
                        List.copyOf(owned), owned.isEmpty() ? Subscription.NO_GENERATION : ownedGeneration,
                        groupInstanceId, rackId);
                request.addProtocols(JoinGroupRequest.Protocol.newBuilder().setName(assignor.name())
                        .setMetadata(ConsumerProtocol.encode(subscription).toByteString()));
            }
            Duration attemptTimeout = rebalanceTimeout.plus(JOIN_GRACE);
            JoinGroupResponse response;
            long sentNanos = System.nanoTime();
            try {
                response = client.joinGroup(request.build(), attemptTimeout, attemptTimeout.plus(client.apiTimeout()));
            } catch (CohortException e) {
                if (!e.retriable()) {
                    throw fail(e);
                }
                LOG.info("group {}: join failed, will retry: {}", groupId, e.getMessage());
                return null;
            }
            ErrorCode code = response.getErrorCode();
            LOG.debug("group {}: JoinGroup as '{}' answered {} (generation {}) after {} us", groupId, member, code,
                    response.getGenerationId(), (System.nanoTime() - sentNanos) / 1_000);
            switch (code) {
                case NONE -> {
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
                    return new JoinOutcome(response.getGenerationId(), response.getMemberId(),
                            response.getProtocolName(), response.getLeader().equals(response.getMemberId()),
                            response.getSkipAssignment(), response);
                }
                case MEMBER_ID_REQUIRED -> {
                    // KIP-394: the coordinator minted our id; join again with it at once.
                    synchronized (lock) {
                        memberId = response.getMemberId();
                    }
                }
                case UNKNOWN_MEMBER_ID -> {
                    resetGeneration(true, "join answered " + code);
                    rejoinAtOnce = rejoinsAtOnce(code);
                    return null;
                }
                case ILLEGAL_GENERATION -> {
                    resetGeneration(false, "join answered " + code);
                    rejoinAtOnce = rejoinsAtOnce(code);
                    return null;
                }
                case REBALANCE_IN_PROGRESS -> {
                    // Not returned by JoinGroup today; rejoining is the right reaction if it ever is.
                }
                default -> {
                    if (ErrorCodes.isRetriable(code)) {
                        LOG.info("group {}: join answered {}, will retry", groupId, code);
                        return null;
                    }
                    throw fail(new CohortException(code, "joining group '" + groupId + "': "
                            + response.getErrorMessage()));
                }
            }
        }
    }

    /** Sends SyncGroup (with the assignment if leader). Empty when the member must join again. */
    private Optional<Assignment> sync(JoinOutcome joined) {
        rejoinAtOnce = false;
        SyncGroupRequest.Builder request = SyncGroupRequest.newBuilder().setGroupId(groupId)
                .setGenerationId(joined.generationId()).setMemberId(joined.memberId())
                .setProtocolType(PROTOCOL_TYPE).setProtocolName(joined.protocolName());
        groupInstanceId.ifPresent(request::setGroupInstanceId);
        if (joined.leader() && !joined.skipAssignment()) {
            assign(joined).forEach((member, assignment) -> request.addAssignments(SyncGroupRequest.Assignment
                    .newBuilder().setMemberId(member).setAssignment(ConsumerProtocol.encode(assignment).toByteString())));
        }
        Duration attemptTimeout = rebalanceTimeout.plus(JOIN_GRACE);
        SyncGroupResponse response;
        long sentNanos = System.nanoTime();
        try {
            response = client.syncGroup(request.build(), attemptTimeout, attemptTimeout.plus(client.apiTimeout()));
        } catch (CohortException e) {
            if (!e.retriable()) {
                throw fail(e);
            }
            LOG.info("group {}: sync failed, will rejoin: {}", groupId, e.getMessage());
            return Optional.empty();
        }
        ErrorCode code = response.getErrorCode();
        LOG.debug("group {}: SyncGroup of generation {} answered {} after {} us", groupId, joined.generationId(), code,
                (System.nanoTime() - sentNanos) / 1_000);
        switch (code) {
            case NONE -> {
                return Optional.of(ConsumerProtocol.decodeAssignment(response.getAssignment()));
            }
            case UNKNOWN_MEMBER_ID -> resetGeneration(true, "sync answered " + code);
            case ILLEGAL_GENERATION -> resetGeneration(false, "sync answered " + code);
            default -> {
                if (!ErrorCodes.isRetriable(code)) {
                    throw fail(new CohortException(code, "syncing group '" + groupId + "': " + response.getErrorMessage()));
                }
                // REBALANCE_IN_PROGRESS (a new rebalance began) or a routing error outlasting the budget.
                LOG.info("group {}: sync answered {}, rejoining", groupId, code);
            }
        }
        rejoinAtOnce = rejoinsAtOnce(code);
        return Optional.empty();
    }

    /** The leader's assignment of every member, by the selected assignor. */
    private Map<String, Assignment> assign(JoinOutcome joined) {
        ConsumerPartitionAssignor assignor = assignors.stream().filter(a -> a.name().equals(joined.protocolName()))
                .findFirst().orElseThrow(() -> fail(new CohortException(ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
                        "the coordinator selected assignor '" + joined.protocolName() + "', which this member lacks")));
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        Set<String> allTopics = new TreeSet<>();
        for (JoinGroupResponse.Member member : joined.response().getMembersList()) {
            Optional<String> instance = member.hasGroupInstanceId() ? Optional.of(member.getGroupInstanceId())
                    : Optional.empty();
            Subscription subscription;
            try {
                subscription = ConsumerProtocol.decodeSubscription(member.getMetadata(), instance);
            } catch (IllegalArgumentException e) {
                // A member that speaks another format gets nothing rather than breaking the group.
                LOG.warn("group {}: member {} sent an unreadable subscription: {}", groupId, member.getMemberId(),
                        e.getMessage());
                subscription = new Subscription(List.of());
            }
            subscriptions.put(member.getMemberId(), subscription);
            allTopics.addAll(subscription.topics());
        }
        Map<String, Integer> partitionsPerTopic = new TreeMap<>();
        for (String topic : allTopics) {
            OptionalInt count = topicMetadata.partitionCount(topic);
            if (count.isPresent()) {
                partitionsPerTopic.put(topic, count.getAsInt());
            } else {
                LOG.warn("group {}: no partition count known for topic {}; it is not assigned", groupId, topic);
            }
        }
        Map<String, Assignment> assignments = assignor.assign(partitionsPerTopic, subscriptions);
        LOG.debug("group {}: leader {} assigned generation {} with {}", groupId, joined.memberId(),
                joined.generationId(), assignor.name());
        return assignments;
    }

    private void onJoinComplete(JoinOutcome joined, Assignment assignment) {
        Set<TopicPartition> assigned = new TreeSet<>(assignment.partitions());
        Set<TopicPartition> before = owned;
        Set<TopicPartition> revoked = new TreeSet<>(before);
        revoked.removeAll(assigned);
        Set<TopicPartition> added = new TreeSet<>(assigned);
        added.removeAll(before);
        synchronized (lock) {
            assignmentGeneration = joined.generationId();
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
        synchronized (lock) {
            if (state == State.REBALANCING) {
                state = State.STABLE;
            }
            if (revokeFirst) {
                rejoinNeeded = true;
            }
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
                pollOverdue = state == State.STABLE && System.nanoTime() - lastPollNanos > rebalanceTimeout.toNanos();
            }
            if (pollOverdue) {
                // Kafka's max.poll.interval.ms: an application that stopped polling gives its partitions up.
                LOG.warn("group {}: poll not called for {} ms; leaving the group", groupId, rebalanceTimeout.toMillis());
                leave("poll interval exceeded");
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
    // Close

    /** {@link #close(Duration)} with the client's api timeout. */
    @Override
    public void close() {
        close(client.apiTimeout());
    }

    /**
     * Leaves the group: commits positions if auto-commit is on, revokes the owned partitions
     * through the listener, and sends LeaveGroup so the group rebalances at once (a static member
     * does not leave: its instance id keeps its place until the session times out, as in Kafka).
     * The client is not closed.
     */
    public void close(Duration timeout) {
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
        }
        try {
            if (autoCommitInterval != null && fatal == null) {
                commitPositionsQuietly("commit on close");
            }
            reportLostPartitionsIfFenced();
            if (!owned.isEmpty()) {
                Set<TopicPartition> revoked = owned;
                owned = Set.of();
                listener.onPartitionsRevoked(sorted(revoked));
            }
        } finally {
            synchronized (lock) {
                state = State.CLOSED;
                lock.notifyAll();
            }
            heartbeatThread.interrupt();
            committer.shutdown();
            try {
                committer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (groupInstanceId.isEmpty()) {
                leave("the member is closing");
            }
        }
    }

    private void leave(String reason) {
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
    // Helpers

    private CohortException fail(CohortException e) {
        synchronized (lock) {
            if (fatal == null) {
                fatal = e;
                lock.notifyAll();
            }
        }
        return e;
    }

    private void ensureNotFatal() {
        synchronized (lock) {
            if (fatal != null) {
                throw fatal;
            }
        }
    }

    private void ensureOpen() {
        if (state == State.CLOSED) {
            throw new IllegalStateException("the group member is closed");
        }
        if (fatal != null) {
            throw fatal;
        }
    }

    /** Whether a join or sync that failed with {@code code} is retried without backing off (see {@link #rejoinAtOnce}). */
    static boolean rejoinsAtOnce(ErrorCode code) {
        return code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.ILLEGAL_GENERATION
                || code == ErrorCode.REBALANCE_IN_PROGRESS;
    }

    /** Waits before rejoin attempt {@code attempt} with the client's backoff, unless {@link #rejoinAtOnce}. */
    private void backoffUnlessRejoinAtOnce(int attempt) {
        if (rejoinAtOnce) {
            return;
        }
        try {
            Thread.sleep(client.backoff().delayMs(attempt));
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        }
    }

    private static List<TopicPartition> sorted(Collection<TopicPartition> partitions) {
        return new ArrayList<>(new TreeSet<>(partitions));
    }

    private static int millis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, duration.toMillis());
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
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

    /** Settings of a {@link GroupMember}; defaults are Kafka's consumer defaults. */
    public static final class Builder {
        private final CohortClient client;
        private final String groupId;
        private final List<String> topics = new ArrayList<>();
        private TopicMetadata topicMetadata = topic -> OptionalInt.empty();
        private List<ConsumerPartitionAssignor> assignors = List.of(new RangeAssignor(), new CooperativeStickyAssignor());
        private RebalanceListener listener = new RebalanceListener() { };
        private Duration sessionTimeout = Duration.ofSeconds(45);
        private Duration rebalanceTimeout = Duration.ofMinutes(5);
        private Duration heartbeatInterval;
        private Optional<String> groupInstanceId = Optional.empty();
        private Optional<String> rackId = Optional.empty();
        private String clientHost = "";
        private Duration autoCommitInterval;

        private Builder(CohortClient client, String groupId) {
            this.client = Objects.requireNonNull(client, "client");
            if (groupId == null || groupId.isEmpty()) {
                throw new IllegalArgumentException("groupId must not be empty");
            }
            this.groupId = groupId;
        }

        /** The topics to subscribe to; at least one. */
        public Builder subscribe(Collection<String> topics) {
            this.topics.clear();
            this.topics.addAll(topics);
            return this;
        }

        /** The partition counts the leader's assignor uses. */
        public Builder topicMetadata(TopicMetadata topicMetadata) {
            this.topicMetadata = Objects.requireNonNull(topicMetadata, "topicMetadata");
            return this;
        }

        /** Fixed partition counts for the leader's assignor. */
        public Builder topicMetadata(Map<String, Integer> partitionCounts) {
            return topicMetadata(TopicMetadata.of(partitionCounts));
        }

        /** The assignors offered, preferred first (default: range, cooperative-sticky, as Kafka). */
        public Builder assignors(List<ConsumerPartitionAssignor> assignors) {
            if (assignors.isEmpty()) {
                throw new IllegalArgumentException("at least one assignor is needed");
            }
            this.assignors = List.copyOf(assignors);
            return this;
        }

        public Builder listener(RebalanceListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Kafka's session.timeout.ms (default 45 s); must lie in the cluster's allowed range. */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        /** Kafka's max.poll.interval.ms, sent as the rebalance timeout (default 5 min). */
        public Builder rebalanceTimeout(Duration rebalanceTimeout) {
            this.rebalanceTimeout = rebalanceTimeout;
            return this;
        }

        /** Kafka's heartbeat.interval.ms (default: a third of the session timeout). */
        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        /** Kafka's group.instance.id: makes the member static (KIP-345). */
        public Builder groupInstanceId(String groupInstanceId) {
            this.groupInstanceId = Optional.of(groupInstanceId);
            return this;
        }

        /** Kafka's client.rack, passed to rack-aware assignors. */
        public Builder rackId(String rackId) {
            this.rackId = Optional.of(rackId);
            return this;
        }

        /** The host reported by DescribeGroups (Kafka takes it from the connection). */
        public Builder clientHost(String clientHost) {
            this.clientHost = Objects.requireNonNull(clientHost, "clientHost");
            return this;
        }

        /**
         * Commits the positions recorded with {@link GroupMember#markProcessed} every
         * {@code interval} during poll, before each rebalance and on close (Kafka's
         * enable.auto.commit; off unless set).
         */
        public Builder autoCommit(Duration interval) {
            this.autoCommitInterval = interval;
            return this;
        }

        public GroupMember build() {
            if (topics.isEmpty()) {
                throw new IllegalArgumentException("subscribe to at least one topic");
            }
            if (heartbeatInterval != null && heartbeatInterval.compareTo(sessionTimeout) >= 0) {
                throw new IllegalArgumentException("heartbeatInterval must be shorter than sessionTimeout");
            }
            commonProtocol(assignors);
            return new GroupMember(this);
        }
    }
}
