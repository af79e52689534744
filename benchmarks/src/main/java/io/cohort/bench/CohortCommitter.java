package io.cohort.bench;

import static io.cohort.bench.Target.COMMIT_TOPIC;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.client.CohortClient;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The commit, fetch and heartbeat workloads' client of one group on a Cohort cluster: commits and
 * fetches through the Java client; for the heartbeat workload the group's one member, classic
 * (JoinGroup, SyncGroup, Heartbeat) or KIP-848 (ConsumerGroupHeartbeat), on the raw API calls so
 * that each heartbeat is one timed call. Closes its client.
 */
final class CohortCommitter implements Target.Committer {
    static final TopicPartition TP = new TopicPartition(COMMIT_TOPIC, 0);
    /** The heartbeat workload's members: a session that a window's pauses never expire (Kafka's default 45 s). */
    private static final int MEMBER_SESSION_TIMEOUT_MS = 45_000;
    private static final Duration MEMBER_CALL_TIMEOUT = Duration.ofSeconds(60);
    /** The consumer-protocol heartbeat members' subscription: no such topic, so nothing is assigned. */
    private static final String HEARTBEAT_TOPIC = "bench-heartbeat-no-such-topic";
    /** The heartbeat members' regex with {@code --registry-topics}: matches none of the registry's topics. */
    private static final String HEARTBEAT_REGEX = "bench-heartbeat-no-such-topic-.*";

    private final CohortClient client;
    private final String groupId;
    private final boolean consumerProtocol;
    private final boolean regexSubscription;
    /** The heartbeat workload's classic member: set by {@link #join}. */
    private HeartbeatRequest heartbeat;
    /** The heartbeat workload's consumer-protocol member: its next heartbeat, set by {@link #join}. */
    private ConsumerGroupHeartbeatRequest consumerHeartbeat;

    /**
     * @param consumerProtocol  the heartbeat workload's member is a KIP-848 one
     * @param regexSubscription that member subscribes by {@value #HEARTBEAT_REGEX}, not by name
     */
    CohortCommitter(CohortClient client, String groupId, boolean consumerProtocol, boolean regexSubscription) {
        this.client = client;
        this.groupId = groupId;
        this.consumerProtocol = consumerProtocol;
        this.regexSubscription = regexSubscription;
    }

    @Override
    public void commit(long offset) {
        client.commitOffsets(groupId, Map.of(TP, new OffsetAndMetadata(offset)));
    }

    @Override
    public long fetch() {
        OffsetAndMetadata committed = client.fetchOffsets(groupId, List.of(TP)).get(TP);
        return committed == null ? -1 : committed.offset();
    }

    @Override
    public void join() {
        if (consumerProtocol) {
            joinConsumerGroup();
            return;
        }
        JoinGroupRequest.Builder join = JoinGroupRequest.newBuilder().setGroupId(groupId)
                .setSessionTimeoutMs(MEMBER_SESSION_TIMEOUT_MS).setRebalanceTimeoutMs(MEMBER_SESSION_TIMEOUT_MS)
                .setProtocolType("consumer").setClientId(client.clientId()).setClientHost("bench")
                .addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("range"));
        JoinGroupResponse joined = client.joinGroup(join.build(), MEMBER_CALL_TIMEOUT, MEMBER_CALL_TIMEOUT);
        if (joined.getErrorCode() == io.cohort.api.v1.ErrorCode.MEMBER_ID_REQUIRED) {
            joined = client.joinGroup(join.setMemberId(joined.getMemberId()).build(), MEMBER_CALL_TIMEOUT,
                    MEMBER_CALL_TIMEOUT);
        }
        expectNone("JoinGroup", joined.getErrorCode());
        SyncGroupResponse synced = client.syncGroup(SyncGroupRequest.newBuilder().setGroupId(groupId)
                .setGenerationId(joined.getGenerationId()).setMemberId(joined.getMemberId())
                .setProtocolType("consumer").setProtocolName(joined.getProtocolName())
                .addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(joined.getMemberId()))
                .build(), MEMBER_CALL_TIMEOUT, MEMBER_CALL_TIMEOUT);
        expectNone("SyncGroup", synced.getErrorCode());
        heartbeat = HeartbeatRequest.newBuilder().setGroupId(groupId)
                .setGenerationId(joined.getGenerationId()).setMemberId(joined.getMemberId()).build();
    }

    @Override
    public void heartbeat() {
        if (consumerProtocol) {
            consumerHeartbeat(consumerHeartbeat);
            return;
        }
        expectNone("Heartbeat", client.heartbeat(heartbeat, MEMBER_CALL_TIMEOUT).getErrorCode());
    }

    /**
     * KIP-848: the full join request (epoch 0, a subscription to a topic that does not exist,
     * so the assignment is empty, and no owned partitions), then the steady state of Cohort's
     * client: member id and epoch, owned partitions (none) and nothing else, each answered
     * without a Raft entry when nothing changes.
     */
    private void joinConsumerGroup() {
        String memberId = UUID.randomUUID().toString();
        ConsumerGroupHeartbeatRequest.Builder join = ConsumerGroupHeartbeatRequest.newBuilder()
                .setGroupId(groupId).setMemberId(memberId).setMemberEpoch(0)
                .setRebalanceTimeoutMs(MEMBER_SESSION_TIMEOUT_MS)
                .setTopicPartitions(ConsumerGroupHeartbeatRequest.OwnedPartitions.getDefaultInstance())
                .setClientId(client.clientId()).setClientHost("bench");
        if (regexSubscription) {
            join.setSubscribedTopicRegex(HEARTBEAT_REGEX);
        } else {
            join.setSubscribedTopicNames(ConsumerGroupHeartbeatRequest.TopicNames.newBuilder().addNames(HEARTBEAT_TOPIC));
        }
        consumerHeartbeat = join.build();
        consumerHeartbeat(consumerHeartbeat);
        // The second heartbeat reports the (empty) assignment as owned: the member is then stable.
        consumerHeartbeat(consumerHeartbeat);
    }

    /** Sends {@code request}; keeps the next one at the epoch the answer gives. */
    private void consumerHeartbeat(ConsumerGroupHeartbeatRequest request) {
        ConsumerGroupHeartbeatResponse answer = client.consumerGroupHeartbeat(request, MEMBER_CALL_TIMEOUT);
        expectNone("ConsumerGroupHeartbeat", answer.getErrorCode());
        if (request.getMemberEpoch() != answer.getMemberEpoch() || request.hasSubscribedTopicNames()
                || request.hasSubscribedTopicRegex()) {
            consumerHeartbeat = ConsumerGroupHeartbeatRequest.newBuilder().setGroupId(groupId)
                    .setMemberId(request.getMemberId()).setMemberEpoch(answer.getMemberEpoch())
                    .setRebalanceTimeoutMs(-1)
                    .setTopicPartitions(ConsumerGroupHeartbeatRequest.OwnedPartitions.getDefaultInstance())
                    .setClientId(client.clientId()).setClientHost("bench").build();
        }
    }

    private void expectNone(String rpc, io.cohort.api.v1.ErrorCode code) {
        if (code != io.cohort.api.v1.ErrorCode.NONE) {
            throw new IllegalStateException(rpc + " of group " + groupId + " answered " + code);
        }
    }

    @Override
    public void close() {
        if (consumerHeartbeat != null) {
            // Leave (epoch -1), as a closing consumer does.
            try {
                client.consumerGroupHeartbeat(consumerHeartbeat.toBuilder().setMemberEpoch(-1).build(),
                        MEMBER_CALL_TIMEOUT);
            } catch (RuntimeException e) {
                Machine.log("group " + groupId + ": leave failed (" + e.getMessage() + ")");
            }
        }
        if (heartbeat != null) {
            // Leave, as a closing consumer does: the next window's member of this group then
            // joins at once instead of waiting out this one's rebalance timeout (45 s).
            try {
                client.leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(groupId)
                        .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(heartbeat.getMemberId()))
                        .build(), MEMBER_CALL_TIMEOUT);
            } catch (RuntimeException e) {
                Machine.log("group " + groupId + ": leave failed (" + e.getMessage() + "); its next member "
                        + "waits for this one's session to expire");
            }
        }
        client.close();
    }
}
