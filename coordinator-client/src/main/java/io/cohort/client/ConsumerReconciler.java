package io.cohort.client;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ConsumerTopicPartitions;
import io.cohort.api.v1.ErrorCode;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

/**
 * The consumer protocol's membership state of one member, as Kafka's
 * {@code ConsumerMembershipManager} and {@code ConsumerHeartbeatRequestManager} keep it: a pure
 * state machine (no threads, no clock, no I/O) fed with heartbeat responses, asked for the next
 * request, and told what the application did with its partitions. {@link ConsumerMembership}
 * drives it; its tests drive it directly. Not thread-safe: the membership's lock guards it.
 *
 * <p>Lifecycle ({@link State}):
 * <ul>
 *   <li>JOINING: the next heartbeat is a full request with epoch 0 and no owned partitions. The
 *       first state, and the state after a fence once the lost partitions were reported.
 *   <li>ACTIVE: the member has an epoch; each heartbeat carries it, and only the fields that
 *       changed since the last request (absent = unchanged), unless the last one failed, after
 *       which the next is full.
 *   <li>FENCED: FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID (or the poll interval expired): no
 *       heartbeats until the poll thread has reported the owned partitions lost
 *       ({@link #takeLostPartitions}); then JOINING, with the same member id.
 *   <li>LEAVING / LEFT: the next heartbeat leaves (epoch -1, or -2 for a static member); then none.
 *   <li>FATAL: the coordinator refused the member for good (see {@link #FATAL_ERRORS}).
 * </ul>
 *
 * <p>Reconciliation. Every assignment the coordinator sends is the whole set the member may own
 * now. The poll thread asks {@link #nextReconciliation}: the owned partitions that are not in it
 * (to revoke first) and the ones it adds (whose topic names are known); it revokes, reports with
 * {@link #onRevoked} (the next heartbeat reports the reduced set at once), assigns, and reports with
 * {@link #onAssigned} (the next heartbeat acknowledges at once).
 */
final class ConsumerReconciler {
    /** Kafka's LEAVE_GROUP_MEMBER_EPOCH and LEAVE_GROUP_STATIC_MEMBER_EPOCH. */
    static final int LEAVE_EPOCH = -1;
    static final int LEAVE_STATIC_EPOCH = -2;

    /** Errors after which the member cannot go on: surfaced to the application by poll. */
    static final Set<ErrorCode> FATAL_ERRORS = EnumSet.of(ErrorCode.UNRELEASED_INSTANCE_ID,
            ErrorCode.GROUP_MAX_SIZE_REACHED, ErrorCode.UNSUPPORTED_ASSIGNOR, ErrorCode.INVALID_REQUEST,
            ErrorCode.GROUP_AUTHORIZATION_FAILED, ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            ErrorCode.INVALID_REGULAR_EXPRESSION, ErrorCode.FENCED_INSTANCE_ID, ErrorCode.UNSUPPORTED_VERSION,
            ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.INVALID_GROUP_ID);

    enum State { JOINING, ACTIVE, FENCED, LEAVING, LEFT, FATAL }

    /** What a heartbeat's answer (or failure) means for the loop that sent it. */
    enum Outcome {
        /** Accepted; the next heartbeat is due after the interval (or at once if something changed). */
        OK,
        /** Fenced: the poll thread must report the partitions lost; no heartbeat until then. */
        FENCED,
        /** A retriable failure: send again (a full request) after a backoff. */
        RETRY,
        /** The member cannot go on; {@link #fatalError} says why. */
        FATAL,
        /** The leave was sent; nothing more to send. */
        LEFT
    }

    /** The member's subscription, fixed for its life: what a full request carries. */
    record Subscription(String groupId, String memberId, Optional<String> instanceId, Optional<String> rackId,
            int rebalanceTimeoutMs, List<String> topicNames, Optional<String> topicRegex,
            Optional<String> serverAssignor, String clientId, String clientHost) {
    }

    /**
     * One step for the poll thread: revoke {@code revoked} (owned, not in the assignment), then
     * assign {@code added} (in the assignment, not owned, named). {@code unresolved} counts the
     * assigned partitions whose topic id has no known name yet (left for a later step).
     */
    record Reconciliation(SortedSet<TopicIdPartition> revoked, SortedSet<TopicIdPartition> added, int unresolved,
            long assignmentVersion) {
    }

    private final Subscription subscription;
    private State state = State.JOINING;
    private int memberEpoch;
    private int heartbeatIntervalMs;
    /** The last assignment received, by topic id; null before the first and after a fence. */
    private Map<UUID, SortedSet<Integer>> assignment;
    /** Bumped on every received assignment that differs from the previous one. */
    private long assignmentVersion;
    /** The assignment version the owned set reflects completely (every partition named). */
    private long reconciledVersion;
    /** What the application owns now. */
    private SortedSet<TopicIdPartition> owned = new TreeSet<>();
    /**
     * The partitions the poll thread is assigning right now (between {@link #nextReconciliation}
     * and {@link #onAssigned}): reported as owned already, so that a full request sent meanwhile
     * cannot tell the coordinator they are free while the application takes them.
     */
    private SortedSet<TopicIdPartition> assigning = new TreeSet<>();
    /** Whether the owned set changed since the last request: the next one reports it, at once. */
    private boolean ownedChangedUnreported;
    /** The fields of the last request that the coordinator may hold; null = send a full request. */
    private SentFields sent;
    /** Whether the member leaves for good (close) rather than to rejoin (poll interval expired). */
    private boolean rejoinAfterLeave;
    private boolean anyJoinSent;
    private CohortException fatalError;

    /** What the last request carried (Kafka's HeartbeatState.SentFields). */
    private record SentFields(Optional<String> instanceId, Optional<String> rackId, List<String> topicNames,
            Optional<String> topicRegex, Optional<String> serverAssignor, Set<TopicIdPartition> owned) {
    }

    ConsumerReconciler(Subscription subscription) {
        this.subscription = subscription;
    }

    // ---------------------------------------------------------------------------------------------
    // Requests

    /** Whether a heartbeat should go out now rather than after the interval. */
    boolean heartbeatUrgent() {
        return switch (state) {
            case JOINING, LEAVING -> true;
            case ACTIVE -> ownedChangedUnreported || sent == null;
            case FENCED, LEFT, FATAL -> false;
        };
    }

    /** Whether heartbeats are sent at all in this state. */
    boolean heartbeating() {
        return state == State.JOINING || state == State.ACTIVE || state == State.LEAVING;
    }

    /**
     * The next heartbeat, recording what it carries; empty in a state that sends none. Only the
     * fields that changed since the last request are set, except in a full request (join, or the
     * first request after a failure), and except the owned partitions, always sent.
     */
    Optional<ConsumerGroupHeartbeatRequest> nextRequest() {
        ConsumerGroupHeartbeatRequest.Builder request = ConsumerGroupHeartbeatRequest.newBuilder()
                .setGroupId(subscription.groupId()).setMemberId(subscription.memberId())
                .setClientId(subscription.clientId()).setClientHost(subscription.clientHost())
                .setRebalanceTimeoutMs(-1);
        switch (state) {
            case LEAVING -> {
                boolean staticLeave = subscription.instanceId().isPresent() && !rejoinAfterLeave;
                request.setMemberEpoch(staticLeave ? LEAVE_STATIC_EPOCH : LEAVE_EPOCH);
                subscription.instanceId().ifPresent(request::setInstanceId);
                return Optional.of(request.build());
            }
            case JOINING -> {
                // A join is a full request with no owned partitions (the coordinator insists on []).
                owned.clear();
                assigning.clear();
                sent = null;
                memberEpoch = 0;
                anyJoinSent = true;
            }
            case ACTIVE -> { }
            default -> {
                return Optional.empty();
            }
        }
        request.setMemberEpoch(memberEpoch);
        boolean full = sent == null;
        SortedSet<TopicIdPartition> reported = new TreeSet<>(owned);
        reported.addAll(assigning);
        SentFields now = new SentFields(subscription.instanceId(), subscription.rackId(), subscription.topicNames(),
                subscription.topicRegex(), subscription.serverAssignor(), Set.copyOf(reported));
        if (full) {
            request.setRebalanceTimeoutMs(subscription.rebalanceTimeoutMs());
        }
        if (full || !now.instanceId().equals(sent.instanceId())) {
            now.instanceId().ifPresent(request::setInstanceId);
        }
        if (full || !now.rackId().equals(sent.rackId())) {
            now.rackId().ifPresent(request::setRackId);
        }
        if (full || !now.topicNames().equals(sent.topicNames()) || !now.topicRegex().equals(sent.topicRegex())) {
            if (now.topicRegex().isPresent()) {
                request.setSubscribedTopicRegex(now.topicRegex().get());
            } else {
                request.setSubscribedTopicNames(ConsumerGroupHeartbeatRequest.TopicNames.newBuilder()
                        .addAllNames(now.topicNames()));
            }
        }
        if (full || !now.serverAssignor().equals(sent.serverAssignor())) {
            now.serverAssignor().ifPresent(request::setServerAssignor);
        }
        // The owned partitions go in every heartbeat, changed or not (Kafka sends them only when they
        // changed): a heartbeat the client resends after a transport failure may reach a new
        // coordinator that already applied it, and the coordinator accepts the previous epoch only
        // with the owned partitions to compare (throwIfMemberEpochIsInvalid); without them it fences
        // the member, which then gives up every partition (seen in ConsumerProtocolFailoverIT).
        request.setTopicPartitions(ownedPartitions(reported));
        sent = now;
        ownedChangedUnreported = false;
        return Optional.of(request.build());
    }

    private static ConsumerGroupHeartbeatRequest.OwnedPartitions ownedPartitions(Collection<TopicIdPartition> owned) {
        Map<UUID, SortedSet<Integer>> byTopic = new TreeMap<>();
        for (TopicIdPartition tp : owned) {
            byTopic.computeIfAbsent(tp.topicId(), id -> new TreeSet<>()).add(tp.partition());
        }
        ConsumerGroupHeartbeatRequest.OwnedPartitions.Builder out = ConsumerGroupHeartbeatRequest.OwnedPartitions
                .newBuilder();
        byTopic.forEach((id, partitions) -> out.addTopics(ConsumerTopicPartitions.newBuilder()
                .setTopicId(TopicIdPartition.bytesOf(id)).addAllPartitions(partitions)));
        return out.build();
    }

    // ---------------------------------------------------------------------------------------------
    // Responses

    /** Applies the coordinator's answer to the request {@link #nextRequest} last returned. */
    Outcome onResponse(ConsumerGroupHeartbeatResponse response) {
        if (state == State.LEAVING) {
            return onLeft();
        }
        if (state != State.JOINING && state != State.ACTIVE) {
            return Outcome.OK; // the answer to a heartbeat sent before a fence or a fatal error: stale
        }
        ErrorCode code = response.getErrorCode();
        if (code == ErrorCode.NONE) {
            state = State.ACTIVE;
            memberEpoch = response.getMemberEpoch();
            heartbeatIntervalMs = response.getHeartbeatIntervalMs();
            if (response.hasAssignment()) {
                Map<UUID, SortedSet<Integer>> received = new TreeMap<>();
                for (ConsumerTopicPartitions topic : response.getAssignment().getTopicPartitionsList()) {
                    received.computeIfAbsent(TopicIdPartition.uuidOf(topic.getTopicId()), id -> new TreeSet<>())
                            .addAll(topic.getPartitionsList());
                }
                received.values().removeIf(Set::isEmpty);
                if (!received.equals(assignment)) {
                    assignment = received;
                    assignmentVersion++;
                }
            }
            return Outcome.OK;
        }
        if (code == ErrorCode.FENCED_MEMBER_EPOCH || code == ErrorCode.UNKNOWN_MEMBER_ID) {
            fence();
            return Outcome.FENCED;
        }
        sent = null;
        if (FATAL_ERRORS.contains(code) || !ErrorCodes.isRetriable(code)) {
            return onFatal(new CohortException(code, "the coordinator of group '" + subscription.groupId()
                    + "' refused member " + subscription.memberId() + (response.getErrorMessage().isEmpty() ? ""
                    : ": " + response.getErrorMessage())));
        }
        return Outcome.RETRY;
    }

    /** The heartbeat could not be sent (the client gave up on the coordinator for its budget). */
    Outcome onFailure(CohortException e) {
        if (state == State.LEAVING) {
            return onLeft();
        }
        sent = null;
        if (!e.retriable() && e.errorCode() != ErrorCode.UNKNOWN_SERVER_ERROR) {
            return onFatal(e);
        }
        return Outcome.RETRY;
    }

    private Outcome onFatal(CohortException e) {
        state = State.FATAL;
        fatalError = e;
        return Outcome.FATAL;
    }

    private Outcome onLeft() {
        if (rejoinAfterLeave) {
            rejoinAfterLeave = false;
            fence();
            return Outcome.FENCED;
        }
        state = State.LEFT;
        return Outcome.LEFT;
    }

    /** Kafka's transitionToFenced: the epoch and the assignment are gone; the partitions are lost. */
    private void fence() {
        state = State.FENCED;
        memberEpoch = 0;
        assignment = null;
        sent = null;
    }

    /**
     * The application did not poll for the rebalance timeout: leave the group (epoch -1, even for a
     * static member, as Kafka), then report the partitions lost and rejoin on the next poll.
     */
    void onPollTimerExpired() {
        if (state == State.ACTIVE) {
            state = State.LEAVING;
            rejoinAfterLeave = true;
        }
    }

    /** Close: the next heartbeat leaves, if the member ever sent a join; else it is gone at once. */
    void leave() {
        if (state == State.FATAL || state == State.LEFT) {
            return;
        }
        rejoinAfterLeave = false;
        state = anyJoinSent ? State.LEAVING : State.LEFT;
    }

    // ---------------------------------------------------------------------------------------------
    // Reconciliation (poll thread)

    /** Whether the poll thread has work: lost partitions to report, or an assignment to reconcile. */
    boolean pollWorkPending() {
        return state == State.FENCED || (assignment != null && reconciledVersion != assignmentVersion);
    }

    /**
     * In FENCED: the owned partitions, now lost; the member clears them and rejoins (JOINING).
     * Empty in any other state.
     */
    Optional<SortedSet<TopicIdPartition>> takeLostPartitions() {
        if (state != State.FENCED) {
            return Optional.empty();
        }
        SortedSet<TopicIdPartition> lost = owned;
        owned = new TreeSet<>();
        assigning = new TreeSet<>();
        state = State.JOINING;
        reconciledVersion = assignmentVersion;
        return Optional.of(lost);
    }

    /**
     * What the poll thread must do to own the last assignment, naming topics with {@code names}
     * (null for an unknown id); empty if nothing (no assignment yet, already reconciled, or not
     * in a state that reconciles).
     */
    Optional<Reconciliation> nextReconciliation(Function<UUID, String> names) {
        if (state != State.ACTIVE || assignment == null || reconciledVersion == assignmentVersion) {
            return Optional.empty();
        }
        SortedSet<TopicIdPartition> revoked = new TreeSet<>();
        for (TopicIdPartition tp : owned) {
            SortedSet<Integer> partitions = assignment.get(tp.topicId());
            if (partitions == null || !partitions.contains(tp.partition())) {
                revoked.add(tp);
            }
        }
        SortedSet<TopicIdPartition> added = new TreeSet<>();
        int unresolved = 0;
        for (Map.Entry<UUID, SortedSet<Integer>> topic : assignment.entrySet()) {
            String name = names.apply(topic.getKey());
            for (int partition : topic.getValue()) {
                if (name == null) {
                    unresolved++;
                } else {
                    TopicIdPartition tp = new TopicIdPartition(topic.getKey(), name, partition);
                    if (!owned.contains(tp)) {
                        added.add(tp);
                    }
                }
            }
        }
        assigning = new TreeSet<>(added);
        return Optional.of(new Reconciliation(revoked, added, unresolved, assignmentVersion));
    }

    /** The poll thread revoked {@code step.revoked()}: the next heartbeat reports the reduced owned set at once. */
    void onRevoked(Reconciliation step) {
        if (!step.revoked().isEmpty() && owned.removeAll(step.revoked())) {
            ownedChangedUnreported = true;
        }
    }

    /**
     * The poll thread assigned {@code step.added()}: the next heartbeat reports the owned set at
     * once. The assignment counts as reconciled if every partition was named.
     */
    void onAssigned(Reconciliation step) {
        assigning = new TreeSet<>();
        if (owned.addAll(step.added())) {
            ownedChangedUnreported = true;
        }
        if (step.unresolved() == 0 && step.assignmentVersion() == assignmentVersion && state == State.ACTIVE) {
            reconciledVersion = step.assignmentVersion();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Views

    State state() {
        return state;
    }

    int memberEpoch() {
        return memberEpoch;
    }

    int heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    String memberId() {
        return subscription.memberId();
    }

    CohortException fatalError() {
        return fatalError;
    }

    /** The topic ids of the last assignment (to name them before reconciling). */
    Set<UUID> assignedTopicIds() {
        return assignment == null ? Set.of() : Set.copyOf(assignment.keySet());
    }

    SortedSet<TopicIdPartition> owned() {
        return new TreeSet<>(owned);
    }

    /** Whether the member holds an assignment it has reconciled completely (poll may return). */
    boolean settled() {
        return state == State.ACTIVE && assignment != null && reconciledVersion == assignmentVersion;
    }
}
