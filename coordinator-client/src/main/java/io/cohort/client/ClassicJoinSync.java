package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.client.assignor.Assignment;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.Subscription;
import io.cohort.client.internal.ConsumerProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JoinGroup and SyncGroup exchanges of a classic member's rebalance attempt, on the member's
 * rebalance thread ({@link ClassicMembership}): JoinGroup with the MEMBER_ID_REQUIRED round
 * (KIP-394), the leader's assignment by the selected assignor, SyncGroup, and what each answer
 * means for the member. The member's state stays in the membership; these calls change it only
 * through {@link Member}.
 */
final class ClassicJoinSync {
    private static final Logger LOG = LoggerFactory.getLogger(ClassicJoinSync.class);
    private static final String PROTOCOL_TYPE = "consumer";
    /** Kafka's client waits this much beyond the rebalance timeout for a JoinGroup answer. */
    private static final Duration JOIN_GRACE = Duration.ofSeconds(5);

    /** What the exchanges change in the member, under the membership's lock. */
    interface Member {
        /** The member id to join with: "" before the coordinator minted one. */
        String memberId();

        /** A JoinGroup answered NONE: the member is in its generation (and heartbeats from now on). */
        void onJoined(JoinGroupResponse response);

        /** A JoinGroup answered MEMBER_ID_REQUIRED with the id to join with. */
        void onMemberIdMinted(String memberId);

        /** The coordinator no longer knows the generation (or the member id): forget it. */
        void resetGeneration(boolean resetMemberId, String why);

        /** Records a fatal error and returns it to throw. */
        CohortException fail(CohortException e);
    }

    private final CohortClient client;
    private final String groupId;
    private final List<String> topics;
    private final TopicMetadata topicMetadata;
    private final List<ConsumerPartitionAssignor> assignors;
    private final Duration sessionTimeout;
    private final Duration rebalanceTimeout;
    private final Optional<String> groupInstanceId;
    private final Optional<String> rackId;
    private final String clientHost;
    private final Member memberState;
    /**
     * Rebalance thread only, within one attempt: whether the attempt's failed join or sync may be
     * retried at once. As Kafka's AbstractCoordinator: after UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION
     * or REBALANCE_IN_PROGRESS the member rejoins without backing off (the coordinator is fine, the
     * member's view is stale); after a failure to reach the coordinator it backs off.
     */
    private boolean rejoinAtOnce;

    ClassicJoinSync(MemberConfig config, TopicMetadata topicMetadata, List<ConsumerPartitionAssignor> assignors,
            Duration sessionTimeout, Member member) {
        this.client = config.client();
        this.groupId = config.groupId();
        this.topics = config.topics();
        this.topicMetadata = topicMetadata;
        this.assignors = assignors;
        this.sessionTimeout = sessionTimeout;
        this.rebalanceTimeout = config.rebalanceTimeout();
        this.groupInstanceId = config.groupInstanceId();
        this.rackId = config.rackId();
        this.clientHost = config.clientHost();
        this.memberState = member;
    }

    /** How an attempt ended: with an assignment, or (assignment null) with the member to join again. */
    record AttemptResult(JoinOutcome joined, Assignment assignment, boolean rejoinAtOnce) {
    }

    /** One attempt, on the rebalance thread: after {@code delayMs}, join, (assign,) sync. */
    AttemptResult attempt(JoinGroupRequest request, long delayMs) throws InterruptedException {
        if (delayMs > 0) {
            Thread.sleep(delayMs);
        }
        JoinOutcome joined = join(request);
        if (joined == null) {
            return new AttemptResult(null, null, rejoinAtOnce);
        }
        Optional<Assignment> assignment = sync(joined);
        return new AttemptResult(joined, assignment.orElse(null), rejoinAtOnce);
    }

    /** What a successful JoinGroup told this member. */
    record JoinOutcome(int generationId, String memberId, String protocolName, boolean leader,
            boolean skipAssignment, JoinGroupResponse response) {
    }

    /**
     * Poll thread: the JoinGroup of the next attempt, without its member id (the attempt sets the
     * one current when it sends), for a member that owns {@code owns} from generation
     * {@code ownedGeneration}. The assignors' user data is read here.
     */
    JoinGroupRequest joinRequest(Set<TopicPartition> owns, int ownedGeneration) {
        JoinGroupRequest.Builder request = JoinGroupRequest.newBuilder().setGroupId(groupId)
                .setSessionTimeoutMs(Membership.millis(sessionTimeout)).setRebalanceTimeoutMs(Membership.millis(rebalanceTimeout))
                .setProtocolType(PROTOCOL_TYPE).setClientId(client.clientId()).setClientHost(clientHost);
        groupInstanceId.ifPresent(request::setGroupInstanceId);
        for (ConsumerPartitionAssignor assignor : assignors) {
            Subscription subscription = new Subscription(topics, assignor.subscriptionUserData(Set.copyOf(topics)),
                    List.copyOf(owns), owns.isEmpty() ? Subscription.NO_GENERATION : ownedGeneration,
                    groupInstanceId, rackId);
            request.addProtocols(JoinGroupRequest.Protocol.newBuilder().setName(assignor.name())
                    .setMetadata(ConsumerProtocol.encode(subscription).toByteString()));
        }
        return request.build();
    }

    /**
     * Rebalance thread: sends JoinGroup until the join phase completes for this member. Returns null
     * when the member must back off and join again (its generation or member id was reset, or the
     * coordinator was unreachable for the whole budget).
     */
    private JoinOutcome join(JoinGroupRequest prepared) {
        rejoinAtOnce = false;
        while (true) {
            String member = memberState.memberId();
            JoinGroupRequest request = prepared.toBuilder().setMemberId(member).build();
            Duration attemptTimeout = rebalanceTimeout.plus(JOIN_GRACE);
            JoinGroupResponse response;
            long sentNanos = System.nanoTime();
            try {
                response = client.joinGroup(request, attemptTimeout, attemptTimeout.plus(client.apiTimeout()));
            } catch (CohortException e) {
                if (!e.retriable()) {
                    throw memberState.fail(e);
                }
                LOG.info("group {}: join failed, will retry: {}", groupId, e.getMessage());
                return null;
            }
            ErrorCode code = response.getErrorCode();
            LOG.debug("group {}: JoinGroup as '{}' answered {} (generation {}) after {} us", groupId, member, code,
                    response.getGenerationId(), (System.nanoTime() - sentNanos) / 1_000);
            switch (code) {
                case NONE -> {
                    memberState.onJoined(response);
                    return new JoinOutcome(response.getGenerationId(), response.getMemberId(),
                            response.getProtocolName(), response.getLeader().equals(response.getMemberId()),
                            response.getSkipAssignment(), response);
                }
                case MEMBER_ID_REQUIRED -> {
                    // KIP-394: the coordinator minted our id; join again with it at once.
                    memberState.onMemberIdMinted(response.getMemberId());
                }
                case UNKNOWN_MEMBER_ID -> {
                    memberState.resetGeneration(true, "join answered " + code);
                    rejoinAtOnce = ClassicMembership.rejoinsAtOnce(code);
                    return null;
                }
                case ILLEGAL_GENERATION -> {
                    memberState.resetGeneration(false, "join answered " + code);
                    rejoinAtOnce = ClassicMembership.rejoinsAtOnce(code);
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
                    throw memberState.fail(new CohortException(code, "joining group '" + groupId + "': "
                            + response.getErrorMessage()));
                }
            }
        }
    }

    /** Rebalance thread: sends SyncGroup (with the assignment if leader). Empty when the member must join again. */
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
                throw memberState.fail(e);
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
            case UNKNOWN_MEMBER_ID -> memberState.resetGeneration(true, "sync answered " + code);
            case ILLEGAL_GENERATION -> memberState.resetGeneration(false, "sync answered " + code);
            default -> {
                if (!ErrorCodes.isRetriable(code)) {
                    throw memberState.fail(new CohortException(code, "syncing group '" + groupId + "': " + response.getErrorMessage()));
                }
                // REBALANCE_IN_PROGRESS (a new rebalance began) or a routing error outlasting the budget.
                LOG.info("group {}: sync answered {}, rejoining", groupId, code);
            }
        }
        rejoinAtOnce = ClassicMembership.rejoinsAtOnce(code);
        return Optional.empty();
    }

    /** The leader's assignment of every member, by the selected assignor. */
    private Map<String, Assignment> assign(JoinOutcome joined) {
        ConsumerPartitionAssignor assignor = assignors.stream().filter(a -> a.name().equals(joined.protocolName()))
                .findFirst().orElseThrow(() -> memberState.fail(new CohortException(ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
                        "the coordinator selected assignor '" + joined.protocolName() + "', which this member lacks")));
        Map<String, Assignment> assignments = ClassicLeaderAssignment.assign(groupId, assignor, topicMetadata,
                joined.response().getMembersList());
        LOG.debug("group {}: leader {} assigned generation {} with {}", groupId, joined.memberId(),
                joined.generationId(), assignor.name());
        return assignments;
    }
}
