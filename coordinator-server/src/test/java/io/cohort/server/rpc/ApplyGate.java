package io.cohort.server.rpc;

import io.cohort.core.shard.Result;
import io.cohort.raft.ForwardingPartitionListener;
import io.cohort.raft.PartitionListener;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Passes every event on to the node's ParkedCalls; once closed for a partition, holds that
 * partition's apply thread at its next applied entry until opened, as a long replay would.
 */
final class ApplyGate extends ForwardingPartitionListener {
    private volatile int heldPartition = -1;
    private volatile CountDownLatch release = new CountDownLatch(0);
    private volatile boolean holding;

    ApplyGate(PartitionListener delegate) {
        super(delegate);
    }

    void close(int partition) {
        release = new CountDownLatch(1);
        heldPartition = partition;
    }

    void open() {
        heldPartition = -1;
        release.countDown();
    }

    boolean holding() {
        return holding;
    }

    @Override
    public void onApplied(int partition, List<Result> results) {
        if (partition == heldPartition) {
            holding = true;
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                holding = false;
            }
        }
        delegate.onApplied(partition, results);
    }
}
