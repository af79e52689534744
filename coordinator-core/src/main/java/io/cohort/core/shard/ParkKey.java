package io.cohort.core.shard;

import java.util.Objects;

/**
 * Names a parked long-poll call: the JoinGroup or SyncGroup of one member of one group. A command
 * that completes parked calls addresses its responses by this key; the leader's front end holds the
 * waiting gRPC calls under it, and replicas with no such call simply drop the response.
 */
public record ParkKey(String groupId, String memberId, Kind kind) {
    public enum Kind {
        JOIN,
        SYNC
    }

    public ParkKey {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(memberId, "memberId");
        Objects.requireNonNull(kind, "kind");
    }

    public static ParkKey join(String groupId, String memberId) {
        return new ParkKey(groupId, memberId, Kind.JOIN);
    }

    public static ParkKey sync(String groupId, String memberId) {
        return new ParkKey(groupId, memberId, Kind.SYNC);
    }
}
