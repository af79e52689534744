package io.cohort.raft;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clears a leader that Ratis 3.3.0 leaves "stepping down" for good after a leadership transfer
 * failed at once.
 *
 * <p>Ratis's {@code TransferLeadership.start} marks the leader as stepping down (it then refuses
 * every write) and clears the mark only when the transfer times out or a leader is elected. When
 * the first attempt fails at once (StartLeaderElection to a transferee that just died fails before
 * Ratis checks it, or the leader's last entry moved meanwhile), Ratis answers the transfer request
 * but schedules no timeout, so the mark stays until some leader is elected in the group: with the
 * transferee down, the partition refuses writes indefinitely. (Seen as a flaky
 * {@code ReplicationTest} that transfers to a stopped node.)
 *
 * <p>The watch, run from the node's balancing loop, notes since when each partition this node
 * leads has been stepping down; one that has been for longer than any transfer Cohort asks for
 * is stepped down for real (Ratis's transfer with no transferee), which elects a leader and so
 * clears the mark. Costs one election, instead of an outage until the transferee returns.
 * Ratis exposes the mark only package-privately, so it is read reflectively; if that fails the
 * watch logs once and does nothing.
 */
final class StuckStepDownWatch {
    private static final Logger LOG = LoggerFactory.getLogger(StuckStepDownWatch.class);

    private final int nodeId;
    private final long stuckAfterMs;
    /** Per partition: since when (ms) this node's leader has been seen stepping down, or -1. */
    private final AtomicLongArray steppingDownSinceMs;
    private volatile boolean unavailable;

    StuckStepDownWatch(int nodeId, int partitions, long stuckAfterMs) {
        this.nodeId = nodeId;
        this.stuckAfterMs = stuckAfterMs;
        this.steppingDownSinceMs = new AtomicLongArray(partitions);
        for (int p = 0; p < partitions; p++) {
            steppingDownSinceMs.set(p, -1);
        }
    }

    /**
     * Whether {@code division} (this node's replica of {@code partition}, a leader) has been
     * stepping down for longer than a transfer may take, as of {@code nowMs}.
     */
    boolean isStuck(int partition, RaftServer.Division division, long nowMs) {
        if (!isSteppingDown(division)) {
            steppingDownSinceMs.set(partition, -1);
            return false;
        }
        steppingDownSinceMs.compareAndSet(partition, -1, nowMs);
        if (nowMs - steppingDownSinceMs.get(partition) < stuckAfterMs) {
            return false;
        }
        steppingDownSinceMs.set(partition, -1);
        LOG.warn("node {}: partition {} has refused writes as 'stepping down' for over {} ms with no transfer"
                + " under way (Ratis left the mark of a transfer that failed at once); stepping down to clear it",
                nodeId, partition, stuckAfterMs);
        return true;
    }

    /** Forgets what was seen of {@code partition} (this node does not lead it). */
    void reset(int partition) {
        steppingDownSinceMs.set(partition, -1);
    }

    private boolean isSteppingDown(RaftServer.Division division) {
        if (unavailable) {
            return false;
        }
        try {
            Method method = division.getClass().getDeclaredMethod("isSteppingDown");
            method.setAccessible(true);
            return (Boolean) method.invoke(division);
        } catch (ReflectiveOperationException | RuntimeException e) {
            unavailable = true;
            LOG.warn("node {}: cannot read Ratis's stepping-down state ({}); a leader left stepping down by a failed"
                    + " transfer is not cleared", nodeId, e.toString());
            return false;
        }
    }
}
