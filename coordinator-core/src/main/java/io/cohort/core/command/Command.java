package io.cohort.core.command;

import io.cohort.core.Bytes;
import io.cohort.core.GroupSettings;
import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.group.Protocol;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A command is what a Raft log entry carries: a client request that changes state, or an operation
 * the leader issues itself when a timer fires. Every replica hands the same commands, with the same
 * leader time, to {@code GroupCoordinatorShard.handle}; a timer command is re-validated there, since
 * the state may have moved on between the firing and the commit.
 */
public sealed interface Command permits Command.JoinGroup, Command.SyncGroup, Command.LeaveGroup,
        Command.OffsetCommit, Command.DeleteGroups, Command.OffsetDelete, Command.ExpireMemberSession,
        Command.FireJoinTimer, Command.FireSyncTimer, Command.ExpireOffsets, Command.CreateAcls, Command.DeleteAcls,
        Command.SetGroupConfig, ConsumerGroupHeartbeat, Command.ExpireConsumerMember,
        Command.FireConsumerRebalanceTimeout, Command.CreateTopics, Command.AlterTopics, Command.DeleteTopics {

    /** The newest Kafka API versions, whose semantics Cohort's public API follows. */
    short JOIN_GROUP_LATEST_VERSION = 9;
    short OFFSET_COMMIT_LATEST_VERSION = 9;

    /**
     * JoinGroup (reference 1.2).
     *
     * @param memberIdSuffix a unique suffix the leader chose before proposing (Kafka's UUID), so member
     *                       ids are in the log and every replica derives the same id
     * @param apiVersion     Kafka JoinGroup version semantics: 4+ requires a known member id
     *                       (MEMBER_ID_REQUIRED), 9+ allows SkipAssignment for static leaders
     */
    record JoinGroup(String groupId, String memberId, String groupInstanceId, String protocolType,
                     List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs, String clientId,
                     String clientHost, String reason, short apiVersion, String memberIdSuffix) implements Command {
        public JoinGroup {
            Objects.requireNonNull(memberId, "memberId");
            protocols = List.copyOf(protocols);
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            Objects.requireNonNull(memberIdSuffix, "memberIdSuffix");
        }

        /** Kafka v0 had no rebalance timeout and used the session timeout instead. */
        public int effectiveRebalanceTimeoutMs() {
            return rebalanceTimeoutMs < 0 ? sessionTimeoutMs : rebalanceTimeoutMs;
        }

        public boolean requiresKnownMemberId() {
            return apiVersion >= 4;
        }

        public boolean supportsSkippingAssignment() {
            return apiVersion >= 9;
        }
    }

    /** SyncGroup (reference 1.3); protocol type and name are checked only when present. */
    record SyncGroup(String groupId, int generationId, String memberId, String groupInstanceId, String protocolType,
                     String protocolName, List<MemberAssignment> assignments) implements Command {
        public SyncGroup {
            Objects.requireNonNull(memberId, "memberId");
            assignments = List.copyOf(assignments);
        }
    }

    /** One member's assignment in the leader's SyncGroup. */
    record MemberAssignment(String memberId, Bytes assignment) {
        public MemberAssignment {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(assignment, "assignment");
        }
    }

    /** LeaveGroup (reference 1.5), several members at once. */
    record LeaveGroup(String groupId, List<LeavingMember> members) implements Command {
        public LeaveGroup {
            members = List.copyOf(members);
        }
    }

    /** One leaving member: a member id, or "" and a static instance id (admin removal). */
    record LeavingMember(String memberId, String groupInstanceId, String reason) {
        public LeavingMember {
            Objects.requireNonNull(memberId, "memberId");
        }
    }

    /**
     * OffsetCommit (reference 1.6 and 3.1).
     *
     * @param retentionTimeMs an explicit retention (Kafka v2-4), or -1 for the broker's retention
     * @param apiVersion      Kafka OffsetCommit version semantics: 9+ answers GROUP_ID_NOT_FOUND for
     *                        an unknown group with a generation, older versions ILLEGAL_GENERATION
     */
    record OffsetCommit(String groupId, int generationId, String memberId, String groupInstanceId,
                        long retentionTimeMs, List<TopicCommit> topics, short apiVersion) implements Command {
        public OffsetCommit {
            Objects.requireNonNull(memberId, "memberId");
            topics = List.copyOf(topics);
        }
    }

    /** The partitions of one topic in an OffsetCommit. */
    record TopicCommit(String topic, List<PartitionCommit> partitions) {
        public TopicCommit {
            Objects.requireNonNull(topic, "topic");
            partitions = List.copyOf(partitions);
        }
    }

    /** One partition's commit; {@code leaderEpoch} -1 for none; {@code metadata} may be null. */
    record PartitionCommit(int partition, long offset, int leaderEpoch, String metadata) {
    }

    /**
     * DeleteGroups (reference 1.11) for the groups of one partition. A null id is kept (not rejected
     * here): the shard answers it with INVALID_GROUP_ID, as Kafka does, and answers the others.
     */
    record DeleteGroups(List<String> groupIds) implements Command {
        public DeleteGroups {
            groupIds = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(groupIds));
        }
    }

    /** OffsetDelete (reference 1.12). */
    record OffsetDelete(String groupId, List<TopicPartitions> topics) implements Command {
        public OffsetDelete {
            topics = List.copyOf(topics);
        }
    }

    /** A topic and some of its partitions. */
    record TopicPartitions(String topic, List<Integer> partitions) {
        public TopicPartitions {
            Objects.requireNonNull(topic, "topic");
            partitions = List.copyOf(partitions);
        }
    }

    /** Timer: a member's (or pending member's) session, or a new member's join timeout, expired. */
    record ExpireMemberSession(String groupId, String memberId) implements Command {
    }

    /** Timer: the join-phase timer armed with {@code deadlineMs} fired. */
    record FireJoinTimer(String groupId, long deadlineMs) implements Command {
    }

    /** Timer: the pending-sync timer of {@code generationId} armed with {@code deadlineMs} fired. */
    record FireSyncTimer(String groupId, int generationId, long deadlineMs) implements Command {
    }

    /** Timer: the periodic offset-expiration job (KIP-211), judged at the command's leader time. */
    record ExpireOffsets() implements Command {
    }

    /**
     * Adds ACLs (ClusterAdmin.CreateAcls). Carried by partition 0's log only: the cluster's ACLs are
     * partition 0's state. Adding an ACL that exists changes nothing.
     */
    record CreateAcls(List<AclBinding> bindings) implements Command {
        public CreateAcls {
            bindings = List.copyOf(bindings);
        }
    }

    /** Removes every ACL each filter selects (ClusterAdmin.DeleteAcls); partition 0's log only. */
    record DeleteAcls(List<AclBindingFilter> filters) implements Command {
        public DeleteAcls {
            filters = List.copyOf(filters);
        }
    }

    /**
     * Changes the online group settings of the partition whose log carries it (ClusterAdmin
     * AlterGroupConfig proposes one to every partition). Applied only if {@code settings} supersede
     * the partition's current ones ({@link GroupSettings#ORDER}); a group left over the new
     * group.max.size is rebalanced, as Kafka does for a group loaded over the limit. Written in log
     * entries of format 3: a build that cannot apply it stops rather than skip it.
     */
    record SetGroupConfig(GroupSettings settings) implements Command {
        public SetGroupConfig {
            Objects.requireNonNull(settings, "settings");
        }
    }

    /**
     * Adds topics to the topic registry (ClusterAdmin.CreateTopics); partition 0's log only, like the
     * ACL commands. Entry format 4.
     *
     * @param validateOnly check every rule and answer as if created, but change nothing (Kafka's
     *                     validate_only)
     */
    record CreateTopics(List<NewTopic> topics, boolean validateOnly) implements Command {
        public CreateTopics {
            topics = List.copyOf(topics);
        }
    }

    /**
     * One topic of a CreateTopics. Unlike {@link io.cohort.core.topic.TopicMetadata} it may hold any
     * count and racks: the handler, not the constructor, refuses bad ones, with Kafka's error.
     *
     * @param topicId        chosen by the proposing node (core never generates one), kept for the
     *                       topic's life
     * @param partitionRacks empty, or one list of rack ids per partition
     */
    record NewTopic(UUID topicId, String name, int partitionCount, List<List<String>> partitionRacks) {
        public NewTopic {
            Objects.requireNonNull(topicId, "topicId");
            Objects.requireNonNull(name, "name");
            partitionRacks = partitionRacks.stream().map(List::copyOf).toList();
        }
    }

    /** Changes topics' partition counts (never lower) and racks (ClusterAdmin.AlterTopics); partition 0's log only. */
    record AlterTopics(List<TopicChange> topics, boolean validateOnly) implements Command {
        public AlterTopics {
            topics = List.copyOf(topics);
        }
    }

    /** One topic of an AlterTopics: its new partition count and racks (empty: none). */
    record TopicChange(String name, int partitionCount, List<List<String>> partitionRacks) {
        public TopicChange {
            Objects.requireNonNull(name, "name");
            partitionRacks = partitionRacks.stream().map(List::copyOf).toList();
        }
    }

    /** Removes topics from the registry (ClusterAdmin.DeleteTopics); partition 0's log only. */
    record DeleteTopics(List<String> names) implements Command {
        public DeleteTopics {
            names = List.copyOf(names);
        }
    }

    /**
     * Timer: a consumer-protocol member's session expired (no heartbeat within
     * group.consumer.session.timeout.ms): the member is fenced if it is still in the group.
     */
    record ExpireConsumerMember(String groupId, String memberId) implements Command {
        public ExpireConsumerMember {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
        }
    }

    /**
     * Timer: a consumer-protocol member armed at {@code memberEpoch} with partitions to revoke did not
     * revoke them within its rebalance timeout: fenced if it is still at that epoch and still
     * UNREVOKED_PARTITIONS when the command applies.
     */
    record FireConsumerRebalanceTimeout(String groupId, String memberId, int memberEpoch) implements Command {
        public FireConsumerRebalanceTimeout {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(memberId, "memberId");
        }
    }
}
