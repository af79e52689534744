package io.cohort.raft;

import io.cohort.core.shard.Result;
import java.util.List;

/**
 * A {@link PartitionListener} that passes every event on to another: a wrapper (metrics, the
 * storage-failure hook, a test's gate) overrides only the events it adds to, and cannot drop one
 * by forgetting to forward it.
 */
public abstract class ForwardingPartitionListener implements PartitionListener {
    protected final PartitionListener delegate;

    protected ForwardingPartitionListener(PartitionListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onApplied(int partition, List<Result> results) {
        delegate.onApplied(partition, results);
    }

    @Override
    public void onLeaderReady(int partition) {
        delegate.onLeaderReady(partition);
    }

    @Override
    public void onStepDown(int partition) {
        delegate.onStepDown(partition);
    }

    @Override
    public void onLeaderChanged(int partition, int leaderNodeId) {
        delegate.onLeaderChanged(partition, leaderNodeId);
    }

    @Override
    public void onStorageFailed(String description, Throwable cause) {
        delegate.onStorageFailed(description, cause);
    }
}
