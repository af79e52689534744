package io.cohort.bench;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running 3-node cluster of one system (Cohort or Kafka), as the workloads see it. Every workload
 * goes through the system's own client: the Cohort Java client, or Kafka's consumer and admin client.
 */
interface Target extends AutoCloseable {
    /** The topic of the commit and failover workloads: every committer commits its partition 0. */
    String COMMIT_TOPIC = "bench-topic";
    /** The group protocols of the rebalance workload ({@code --protocol}): Kafka's group.protocol values. */
    String CLASSIC = "classic";
    String CONSUMER = "consumer";

    /** "cohort" or "kafka". */
    String system();

    /** The node ids, 1..3. */
    Collection<Integer> nodeIds();

    /** The OS process ids of the running nodes (for the CPU shares of a window). */
    List<Long> nodePids();

    /** A new committer of {@code groupId} with its own client, as one application process would have. */
    Committer committer(String groupId);

    /** The committed offset of {@code groupId}'s partition 0 of {@link #COMMIT_TOPIC}, -1 if none; linearizable. */
    long fetchCommitted(String groupId) throws Exception;

    /** The node coordinating {@code groupId} now. */
    int coordinatorOf(String groupId) throws Exception;

    /** Facts about the node before it is killed (Kafka: whether it leads the KRaft quorum). */
    default Map<String, Object> beforeKill(int nodeId) throws Exception {
        return new LinkedHashMap<>();
    }

    /** SIGKILL of node {@code nodeId}'s JVM; returns once the process is gone. */
    void kill(int nodeId) throws Exception;

    /** Starts the node again and waits until it serves and has caught up with the cluster. */
    void restartAndCatchUp(int nodeId) throws Exception;

    /** SIGKILL of every node, one after the other without a pause; returns once every process is gone. */
    default void killAll() throws Exception {
        for (int nodeId : nodeIds()) {
            kill(nodeId);
        }
    }

    /**
     * Starts every node at once on its data, as a supervisor does after a power loss; returns once
     * every node reported that it serves (Cohort: SERVING on stdout; Kafka: its "started" line).
     */
    void startAll() throws Exception;

    /** After {@link #startAll}: waits until every node has caught up, as {@link #restartAndCatchUp} does for one. */
    void awaitAllCaughtUp() throws Exception;

    /**
     * After a restart: waits until the cluster is back in its normal shape (Cohort: every partition
     * led by its preferred node again); returns false if that did not happen in time.
     */
    default boolean settleAfterRestart() throws Exception {
        return true;
    }

    /** Creates a topic with {@code partitions} partitions in the system's topic registry (if it exists already, keeps it). */
    void prepareTopic(String topic, int partitions) throws Exception;

    /**
     * A group member of {@code protocol} ({@link #CLASSIC} or {@link #CONSUMER}) subscribed to
     * {@code topic}; it reports its assignments to {@code tracker} as index {@code index}.
     */
    Member member(String groupId, String topic, int partitions, int index, GenerationTracker tracker, String protocol);

    /** Keeps the cluster's files (logs, data) when it closes: something failed. */
    void keepFiles();

    /** What the nodes run with, for the result lines. */
    Map<String, Object> describe();

    @Override
    void close();

    /**
     * Commits offsets of one group synchronously, generation -1 (a "simple" group, no membership),
     * and reads them back.
     */
    interface Committer extends AutoCloseable {
        /** Commits {@code offset} for partition 0 of {@link #COMMIT_TOPIC}; returns when acknowledged. */
        void commit(long offset) throws Exception;

        /**
         * The group's committed offset of partition 0 of {@link #COMMIT_TOPIC} (-1 if none), through
         * the same client, as a consumer asks for it at start or after a rebalance (OffsetFetch:
         * Cohort's client reads linearizably on the coordinator; Kafka's consumer {@code committed()}).
         */
        long fetch() throws Exception;

        /**
         * Joins the group as its one classic member (JoinGroup, then SyncGroup as the group's leader
         * with an empty assignment), or with {@code --protocol consumer} as its one consumer-protocol
         * member (ConsumerGroupHeartbeat at epoch 0, then once more to report its empty assignment);
         * returns when the member is in a generation. The heartbeat workload's set-up; Cohort only.
         */
        default void join() throws Exception {
            throw new UnsupportedOperationException("the heartbeat workload is Cohort only");
        }

        /** One Heartbeat (or ConsumerGroupHeartbeat) of the member {@link #join} made; throws unless it is answered NONE. Cohort only. */
        default void heartbeat() throws Exception {
            throw new UnsupportedOperationException("the heartbeat workload is Cohort only");
        }

        @Override
        void close();
    }

    /** A consumer-group member; {@link #run} is its poll loop, on its own thread. */
    interface Member {
        /** Polls until {@code stop}, then leaves the group and closes. */
        void run(AtomicBoolean stop);
    }
}
