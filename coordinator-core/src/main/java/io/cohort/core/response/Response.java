package io.cohort.core.response;

/** A response the shard produces, for the caller of a command or for a parked call. */
public sealed interface Response permits JoinGroupResponse, SyncGroupResponse, HeartbeatResponse,
        LeaveGroupResponse, OffsetCommitResponse, DeleteGroupsResponse, OffsetDeleteResponse, AclChangeResponse,
        GroupConfigResponse, ConsumerGroupHeartbeatResponse, TopicChangeResponse {
}
