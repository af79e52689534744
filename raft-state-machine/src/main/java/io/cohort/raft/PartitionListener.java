package io.cohort.raft;

import io.cohort.core.shard.Result;
import java.util.List;

/**
 * What the node's front end hears from its partitions. All methods have empty defaults; they run
 * on Ratis threads (apply or role-change), so implementations hand work off rather than block.
 */
public interface PartitionListener {
    /**
     * An entry of {@code partition} was applied on this node. The results' completions answer
     * parked JoinGroup/SyncGroup calls, which exist only on the leader.
     */
    default void onApplied(int partition, List<Result> results) {
    }

    /** This node's replica of {@code partition} became leader-ready: it may serve the group API. */
    default void onLeaderReady(int partition) {
    }

    /** This node stopped leading {@code partition}: fail its parked calls with NOT_COORDINATOR. */
    default void onStepDown(int partition) {
    }

    /** Some node (or none, -1) now leads {@code partition}, as this node learned it. */
    default void onLeaderChanged(int partition, int leaderNodeId) {
    }

    /**
     * This node's storage failed ({@code description} says what, for the operator): it takes no
     * more writes and cannot recover in place, so the front end stops the node. Called once.
     */
    default void onStorageFailed(String description, Throwable cause) {
    }
}
