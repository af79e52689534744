package io.cohort.client;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.TopicDescription;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer protocol's membership loop (KIP-848), as Kafka's {@code ConsumerMembershipManager}
 * with its heartbeat request manager: the member id is a UUID this member generates once; it joins
 * with epoch 0 and then heartbeats every {@code heartbeat_interval_ms} the coordinator sets, on the
 * {@link ConsumerHeartbeatExecutor} shared by every consumer-protocol member of the JVM (no thread
 * per member). The state (epochs, the assignment, what the last request carried) lives in a
 * {@link ConsumerReconciler}, a pure class guarded by {@link #lock}.
 *
 * <p>Each poll reconciles the member with the last assignment received: the owned partitions that
 * left it are revoked first (auto-commit if on, then the listener's onPartitionsRevoked, then the
 * next heartbeat reports the reduced owned set at once), then the new ones are assigned
 * (onPartitionsAssigned). Topic ids are named with ListTopics ({@link TopicNames}).
 *
 * <p>Errors: FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID make the next poll report the partitions
 * lost and rejoin with epoch 0 and the same member id; the errors of
 * {@link ConsumerReconciler#FATAL_ERRORS} are thrown by the next poll; routing errors are retried
 * by the client (re-finding the coordinator) and then by the loop with backoff.
 */
final class ConsumerMembership extends Membership {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerMembership.class);

    /** How a member sends heartbeats and lists topics: the client, or a test's script. */
    interface Transport {
        ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequest request, Duration budget);

        List<TopicDescription> listTopics();
    }

    private final ConsumerReconciler reconciler;
    private final Transport transport;
    private final TopicNames names;
    private final Optional<String> serverAssignor;
    /** Null in tests that send heartbeats by hand ({@link #heartbeatOnce}). */
    private final ConsumerHeartbeatExecutor executor;

    // Guarded by lock.
    private boolean closed;
    private boolean inFlight;
    private long nextHeartbeatNanos;
    private int retryAttempt;
    /** Heartbeat answers received so far: a commit refused STALE_MEMBER_EPOCH waits for the next. */
    private long responses;
    private ScheduledFuture<?> scheduled;
    private long lastPollNanos = System.nanoTime();
    /** Poll thread: the assignment version onPartitionsAssigned was last called for. */
    private long assignedCallbackVersion = -1;

    ConsumerMembership(MemberConfig config, Optional<String> serverAssignor) {
        this(config, serverAssignor, clientTransport(config.client()), ConsumerHeartbeatExecutor.shared());
    }

    ConsumerMembership(MemberConfig config, Optional<String> serverAssignor, Transport transport,
            ConsumerHeartbeatExecutor executor) {
        super(config);
        this.serverAssignor = serverAssignor;
        this.transport = transport;
        this.executor = executor;
        this.names = new TopicNames(transport::listTopics,
                TimeUnit.MILLISECONDS.toNanos(client.backoff().maxMs()));
        this.reconciler = new ConsumerReconciler(new ConsumerReconciler.Subscription(groupId,
                UUID.randomUUID().toString(), config.groupInstanceId(), config.rackId(),
                millis(config.rebalanceTimeout()), config.topics(), config.topicRegex(), serverAssignor,
                client.clientId(), config.clientHost()));
        synchronized (lock) {
            scheduleLocked(0);
        }
    }

    private static Transport clientTransport(CohortClient client) {
        return new Transport() {
            @Override
            public ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequest request, Duration budget) {
                return client.consumerGroupHeartbeat(request, budget);
            }

            @Override
            public List<TopicDescription> listTopics() {
                return client.consumerGroupCalls().listTopics();
            }
        };
    }

    String serverAssignor() {
        return serverAssignor.orElse("");
    }

    // ---------------------------------------------------------------------------------------------
    // Heartbeats (shared executor)

    /**
     * Sends one heartbeat if one is due and none is in flight, applies the answer and schedules
     * the next. Blocking; runs on the shared executor (or a test's thread).
     */
    void heartbeatOnce() {
        try {
            sendHeartbeat();
        } catch (RuntimeException e) {
            // Runs on a shared pool that would swallow it: say so, and keep the member heartbeating.
            LOG.error("group {}: heartbeat of member {} failed unexpectedly; retrying", groupId, reconciler.memberId(), e);
            synchronized (lock) {
                inFlight = false;
                if (!closed) {
                    scheduleLocked(TimeUnit.MILLISECONDS.toNanos(client.backoff().delayMs(retryAttempt++)));
                }
            }
        }
    }

    private void sendHeartbeat() {
        ConsumerGroupHeartbeatRequest request;
        synchronized (lock) {
            if (closed || inFlight || !reconciler.heartbeating()) {
                return;
            }
            if (reconciler.state() == ConsumerReconciler.State.ACTIVE
                    && System.nanoTime() - lastPollNanos > config.rebalanceTimeout().toNanos()) {
                // Kafka's max.poll.interval.ms: an application that stopped polling gives its partitions up.
                LOG.warn("group {}: poll not called for {} ms; leaving the group", groupId,
                        config.rebalanceTimeout().toMillis());
                reconciler.onPollTimerExpired();
            }
            Optional<ConsumerGroupHeartbeatRequest> next = reconciler.nextRequest();
            if (next.isEmpty()) {
                return;
            }
            request = next.get();
            inFlight = true;
        }
        ConsumerGroupHeartbeatResponse response = null;
        CohortException failure = null;
        try {
            response = transport.heartbeat(request, client.requestTimeout());
        } catch (CohortException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR, "heartbeat failed: " + e.getMessage(), e);
        }
        synchronized (lock) {
            inFlight = false;
            responses++;
            lock.notifyAll();
            if (closed) {
                return; // the closing thread sends the leave itself
            }
            ConsumerReconciler.Outcome outcome;
            try {
                outcome = response != null ? reconciler.onResponse(response) : reconciler.onFailure(failure);
            } catch (RuntimeException e) {
                // A bug here must not end the member's heartbeats (its session would expire while
                // the application still polls): log it, and try again after a backoff.
                LOG.error("group {}: member {} could not apply a heartbeat answer ({}); retrying", groupId,
                        reconciler.memberId(), response != null ? response.getErrorCode() : failure.getMessage(), e);
                scheduleLocked(TimeUnit.MILLISECONDS.toNanos(client.backoff().delayMs(retryAttempt++)));
                return;
            }
            LOG.debug("group {}: heartbeat of {} with epoch {} answered {} -> {} (epoch {})", groupId,
                    reconciler.memberId(), request.getMemberEpoch(),
                    response != null ? response.getErrorCode() : failure.getMessage(), outcome,
                    reconciler.memberEpoch());
            switch (outcome) {
                case OK -> {
                    retryAttempt = 0;
                    scheduleLocked(reconciler.heartbeatUrgent() ? 0
                            : TimeUnit.MILLISECONDS.toNanos(Math.max(1, reconciler.heartbeatIntervalMs())));
                }
                case RETRY -> scheduleLocked(TimeUnit.MILLISECONDS.toNanos(client.backoff().delayMs(retryAttempt++)));
                case FENCED -> LOG.info("group {}: member {} fenced ({}); its partitions are lost, it rejoins on the "
                        + "next poll", groupId, reconciler.memberId(), fencedBy(response));
                case FATAL -> fatal = reconciler.fatalError();
                case LEFT -> { }
            }
        }
    }

    /**
     * Why a heartbeat's outcome fenced the member: the coordinator's FENCED_MEMBER_EPOCH or
     * UNKNOWN_MEMBER_ID, or else its own leave after the poll interval ran out (the leave's answer,
     * whatever its code, ends the membership, as in Kafka's consumer).
     */
    private static String fencedBy(ConsumerGroupHeartbeatResponse response) {
        if (response != null && (response.getErrorCode() == ErrorCode.FENCED_MEMBER_EPOCH
                || response.getErrorCode() == ErrorCode.UNKNOWN_MEMBER_ID)) {
            return response.getErrorCode().name();
        }
        return "poll interval exceeded: it left the group"
                + (response != null ? ", answered " + response.getErrorCode() : "");
    }

    /** Holding {@link #lock}: (re)schedules the next heartbeat {@code delayNanos} from now, unless one comes sooner. */
    private void scheduleLocked(long delayNanos) {
        long at = System.nanoTime() + delayNanos;
        if (scheduled != null && !scheduled.isDone()) {
            if (nextHeartbeatNanos <= at) {
                return;
            }
            scheduled.cancel(false);
        }
        nextHeartbeatNanos = at;
        if (executor != null) {
            scheduled = executor.schedule(this::heartbeatOnce, delayNanos);
        }
    }

    /**
     * Holding {@link #lock}: a safety net run by every poll. If no heartbeat is in flight and the
     * next one is overdue by more than two intervals although the member should be heartbeating,
     * the schedule was lost (a failure nothing foresaw): send one now, so the member's session
     * lives as long as the application polls.
     */
    private void restartHeartbeatsIfStalledLocked() {
        if (executor == null || inFlight || closed || fatal != null || !reconciler.heartbeating()) {
            return;
        }
        long overdueNanos = System.nanoTime() - nextHeartbeatNanos;
        long intervalNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, reconciler.heartbeatIntervalMs()));
        if (overdueNanos > 2 * intervalNanos + TimeUnit.MILLISECONDS.toNanos(client.requestTimeout().toMillis())) {
            LOG.warn("group {}: member {} sent no heartbeat for {} ms; sending one now", groupId,
                    reconciler.memberId(), TimeUnit.NANOSECONDS.toMillis(overdueNanos + intervalNanos));
            if (scheduled != null) {
                scheduled.cancel(false);
            }
            scheduled = null;
            scheduleLocked(0);
        }
    }

    /** Holding {@link #lock}: if the state asks for an immediate heartbeat (owned set changed, rejoin), sends it now. */
    private void heartbeatNowIfUrgentLocked() {
        if (reconciler.heartbeatUrgent()) {
            scheduleLocked(0);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The poll thread

    @Override
    void pollOnce(long deadlineNanos) {
        synchronized (lock) {
            ensureOpen();
            lastPollNanos = System.nanoTime();
            restartHeartbeatsIfStalledLocked();
        }
        reportLostPartitionsIfFenced();
        boolean worked = reconcile();
        synchronized (lock) {
            lastPollNanos = System.nanoTime();
            if (!worked && !reconciler.settled() && fatal == null) {
                // Nothing to do until a heartbeat answers (or an unnamed topic can be named).
                long waitNanos = Math.min(deadlineNanos - System.nanoTime(),
                        TimeUnit.MILLISECONDS.toNanos(client.backoff().maxMs()));
                if (waitNanos > 0) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, waitNanos);
                    } catch (InterruptedException e) {
                        throw new InterruptException(e);
                    }
                }
            }
        }
    }

    /** One reconciliation step: revoke, then assign. Returns whether there was one. */
    private boolean reconcile() {
        Set<UUID> ids;
        synchronized (lock) {
            ids = reconciler.assignedTopicIds();
        }
        names.refreshIfUnknown(ids);
        Optional<ConsumerReconciler.Reconciliation> next;
        synchronized (lock) {
            next = reconciler.nextReconciliation(names::name);
        }
        if (next.isEmpty()) {
            return false;
        }
        ConsumerReconciler.Reconciliation step = next.get();
        boolean callAssigned = !step.added().isEmpty() || step.assignmentVersion() != assignedCallbackVersion;
        if (!step.revoked().isEmpty()) {
            // Kafka commits consumed positions before giving partitions up, so the next owner starts there.
            config.autoCommitBeforeRevoke().accept("commit before revocation");
            Set<TopicPartition> kept = new TreeSet<>(owned);
            kept.removeAll(topicPartitions(step.revoked()));
            owned = Set.copyOf(kept);
            listener.onPartitionsRevoked(List.copyOf(topicPartitions(step.revoked())));
            synchronized (lock) {
                reconciler.onRevoked(step);
                heartbeatNowIfUrgentLocked();
            }
        }
        if (callAssigned) {
            Set<TopicPartition> now = new TreeSet<>(owned);
            now.addAll(topicPartitions(step.added()));
            owned = Set.copyOf(now);
            assignedCallbackVersion = step.assignmentVersion();
            LOG.info("group {}: member {} owns {} partitions ({} added, {} revoked{})", groupId, reconciler.memberId(),
                    now.size(), step.added().size(), step.revoked().size(),
                    step.unresolved() > 0 ? ", " + step.unresolved() + " of unknown topics pending" : "");
            listener.onPartitionsAssigned(List.copyOf(topicPartitions(step.added())));
        }
        synchronized (lock) {
            reconciler.onAssigned(step);
            heartbeatNowIfUrgentLocked();
        }
        return callAssigned || !step.revoked().isEmpty();
    }

    @Override
    void reportLostPartitionsIfFenced() {
        Optional<SortedSet<TopicIdPartition>> lost;
        synchronized (lock) {
            lost = reconciler.takeLostPartitions();
            if (lost.isPresent()) {
                assignedCallbackVersion = -1;
                // Rejoin (epoch 0, same member id) once the listener has been told.
            }
        }
        if (lost.isEmpty()) {
            return;
        }
        Set<TopicPartition> gone = owned;
        owned = Set.of();
        if (!gone.isEmpty()) {
            LOG.info("group {}: member {} lost {} partitions (fenced)", groupId, reconciler.memberId(), gone.size());
            listener.onPartitionsLost(sorted(gone));
        }
        synchronized (lock) {
            heartbeatNowIfUrgentLocked();
        }
    }

    @Override
    boolean pollWorkPending() {
        synchronized (lock) {
            ensureOpen();
            return !reconciler.settled();
        }
    }

    @Override
    boolean rebalanceNeededLocked() {
        return closed || fatal != null || reconciler.pollWorkPending();
    }

    // ---------------------------------------------------------------------------------------------
    // Commits

    @Override
    String memberId() {
        return reconciler.memberId();
    }

    @Override
    int commitGeneration() {
        synchronized (lock) {
            return reconciler.state() == ConsumerReconciler.State.ACTIVE ? reconciler.memberEpoch() : -1;
        }
    }

    /**
     * STALE_MEMBER_EPOCH: the commit carried an epoch the coordinator has moved past (or not reached
     * yet). Waits for the next heartbeat answer, which brings the current epoch, and retries with it.
     */
    @Override
    CommitTarget retryCommitAfter(ErrorCode code, CommitTarget failed, long deadlineNanos) {
        if (code != ErrorCode.STALE_MEMBER_EPOCH) {
            return null;
        }
        synchronized (lock) {
            long seen = responses;
            scheduleLocked(0);
            // A fenced member sends no heartbeat until the poll thread (maybe this one) rejoins: no
            // answer is coming, so the commit fails now (CommitFailedException), as Kafka's does.
            while (responses == seen && !closed && fatal == null
                    && reconciler.state() == ConsumerReconciler.State.ACTIVE) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    throw new InterruptException(e);
                }
            }
            if (closed || reconciler.state() != ConsumerReconciler.State.ACTIVE) {
                return null;
            }
            return new CommitTarget(reconciler.memberEpoch(), reconciler.memberId());
        }
    }

    @Override
    RuntimeException onCommitFailed(CohortException e, CommitTarget target) {
        ErrorCode code = e.errorCode();
        if (code == ErrorCode.STALE_MEMBER_EPOCH || code == ErrorCode.FENCED_MEMBER_EPOCH
                || code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.ILLEGAL_GENERATION) {
            return new CommitFailedException(code, e.getMessage());
        }
        return e;
    }

    // ---------------------------------------------------------------------------------------------
    // Close

    @Override
    boolean closedLocked() {
        return closed;
    }

    @Override
    void stop() {
        synchronized (lock) {
            closed = true;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
            lock.notifyAll();
        }
    }

    /** Sends the leave heartbeat (epoch -1; -2 for a static member) on the closing thread. */
    @Override
    void leave() {
        ConsumerGroupHeartbeatRequest request;
        synchronized (lock) {
            long deadline = System.nanoTime() + client.requestTimeout().toNanos();
            while (inFlight && System.nanoTime() < deadline) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, deadline - System.nanoTime());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            reconciler.leave();
            Optional<ConsumerGroupHeartbeatRequest> next = reconciler.nextRequest();
            if (reconciler.state() != ConsumerReconciler.State.LEAVING || next.isEmpty()) {
                return;
            }
            request = next.get();
        }
        try {
            ConsumerGroupHeartbeatResponse response = transport.heartbeat(request, client.requestTimeout().multipliedBy(2));
            synchronized (lock) {
                reconciler.onResponse(response);
            }
        } catch (RuntimeException e) {
            // The session timeout removes the member anyway.
            LOG.info("group {}: leaving as {} failed: {}", groupId, reconciler.memberId(), e.getMessage());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // For tests

    ConsumerReconciler.State stateForTest() {
        synchronized (lock) {
            return reconciler.state();
        }
    }

    private static SortedSet<TopicPartition> topicPartitions(Set<TopicIdPartition> partitions) {
        SortedSet<TopicPartition> out = new TreeSet<>();
        partitions.forEach(tp -> out.add(tp.toTopicPartition()));
        return out;
    }
}
