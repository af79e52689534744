package io.cohort.core.consumer.assignor;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * The uniform assignment when members subscribe to different topics: Balance (as far as the
 * subscriptions allow) > Stickiness > Rack matching.
 * <ol>
 *   <li>Every member keeps its current-target partitions of topics it still subscribes to.</li>
 *   <li>The free partitions are handed out topic by topic (most partitions per subscriber first, as
 *       Kafka orders them), each to the least loaded subscriber ({@link PartitionFill} then picks
 *       which partition goes where, by rack).</li>
 *   <li>Balancing by cost-reducing paths: while some member A can pass a partition along a chain
 *       A -> B -> ... -> Z (each hop a partition of a topic the next member subscribes to) to a
 *       member Z holding at least two fewer, move one partition per hop. When no such chain
 *       remains the assignment is as balanced as the subscriptions allow (the optimality condition
 *       of semi-matchings: it minimises the largest load, then the next, and so on). Kafka's
 *       builder moves partitions only within one topic's subscribers, so it can stop at 9/10/11
 *       where 10/10/10 is possible; a chain of two hops finds that. Shortest chains first, and on
 *       each hop the partition that was not in the giver's current target, so stickiness suffers
 *       as little as balance allows.</li>
 * </ol>
 */
final class UniformHeterogeneousBuilder {
    private final IndexedSpec spec;
    private final int[][] owners;
    /** The owners of the current targets, to tell a member's kept partitions from new ones. */
    private final int[][] currentOwners;
    private final int[] loads;
    /** heldCounts[m][k]: the partitions member m holds of its k-th subscribed topic. */
    private final int[][] heldCounts;

    UniformHeterogeneousBuilder(IndexedSpec spec) {
        this.spec = spec;
        this.owners = spec.claimCurrentTargets();
        this.currentOwners = new int[owners.length][];
        for (int t = 0; t < owners.length; t++) {
            currentOwners[t] = owners[t].clone();
        }
        this.loads = new int[spec.memberCount()];
        this.heldCounts = new int[spec.memberCount()][];
        for (int m = 0; m < heldCounts.length; m++) {
            heldCounts[m] = new int[spec.subscriptions[m].length];
        }
        for (int t = 0; t < owners.length; t++) {
            for (int owner : owners[t]) {
                if (owner != IndexedSpec.NO_OWNER) {
                    loads[owner]++;
                    heldCounts[owner][position(owner, t)]++;
                }
            }
        }
    }

    GroupAssignment build() {
        for (int topic : topicsInAssignmentOrder()) {
            assignFreePartitions(topic);
        }
        balance();
        return spec.toGroupAssignment(owners);
    }

    /** Topics by partitions per subscriber descending, then subscriber count ascending, then id. */
    private Integer[] topicsInAssignmentOrder() {
        Integer[] order = new Integer[spec.topicCount()];
        for (int t = 0; t < order.length; t++) {
            order[t] = t;
        }
        Arrays.sort(order, (a, b) -> {
            long perSubscriberA = (long) spec.partitionCount(a) * spec.subscribers[b].length;
            long perSubscriberB = (long) spec.partitionCount(b) * spec.subscribers[a].length;
            if (perSubscriberA != perSubscriberB) {
                return Long.compare(perSubscriberB, perSubscriberA);
            }
            if (spec.subscribers[a].length != spec.subscribers[b].length) {
                return Integer.compare(spec.subscribers[a].length, spec.subscribers[b].length);
            }
            return Integer.compare(a, b);
        });
        return order;
    }

    /** How many free partitions each subscriber gets: one at a time to the least loaded. */
    private void assignFreePartitions(int topic) {
        int[] topicOwners = owners[topic];
        long[] free = new long[topicOwners.length];
        int freeCount = 0;
        for (int partition = 0; partition < topicOwners.length; partition++) {
            if (topicOwners[partition] == IndexedSpec.NO_OWNER) {
                free[freeCount++] = PartitionFill.encode(topic, partition);
            }
        }
        if (freeCount == 0) {
            return;
        }
        int[] subscribers = spec.subscribers[topic];
        int[] room = new int[spec.memberCount()];
        PriorityQueue<Integer> leastLoaded = new PriorityQueue<>((a, b) -> {
            int loadA = loads[a] + room[a];
            int loadB = loads[b] + room[b];
            return loadA != loadB ? Integer.compare(loadA, loadB) : Integer.compare(a, b);
        });
        for (int member : subscribers) {
            leastLoaded.add(member);
        }
        for (int i = 0; i < freeCount; i++) {
            int member = leastLoaded.poll();
            room[member]++;
            leastLoaded.add(member);
        }
        int[] before = new int[subscribers.length];
        for (int i = 0; i < subscribers.length; i++) {
            before[i] = loads[subscribers[i]];
        }
        PartitionFill.fill(spec, owners, loads, free, freeCount, subscribers, room);
        for (int i = 0; i < subscribers.length; i++) {
            heldCounts[subscribers[i]][position(subscribers[i], topic)] += loads[subscribers[i]] - before[i];
        }
    }

    /**
     * Moves partitions along cost-reducing paths until none is left (see the class comment).
     *
     * <p>A level whose search failed never succeeds later: the members reachable from its sources
     * all hold more than level - 2, and a later chain found at a lower level cannot pass through
     * them (it would have made its end reachable too), so their partitions, loads and edges stay
     * as they were. So each level fails at most once, and the searches that find nothing cost
     * at most one per level over the whole balancing.
     */
    private void balance() {
        int ceiling = Integer.MAX_VALUE;
        // Each move lowers the sum of squared loads by at least 2: this bound is never reached.
        long movesLeft = 2L * totalPartitions() + spec.memberCount() + 16;
        while (movesLeft-- > 0) {
            int maxLoad = Integer.MIN_VALUE;
            int minLoad = Integer.MAX_VALUE;
            for (int m = 0; m < loads.length; m++) {
                if (spec.subscriptions[m].length > 0) {
                    maxLoad = Math.max(maxLoad, loads[m]);
                    minLoad = Math.min(minLoad, loads[m]);
                }
            }
            if (maxLoad == Integer.MIN_VALUE) {
                return;
            }
            int level = Math.min(maxLoad, ceiling);
            while (level >= minLoad + 2 && !moveAlongShortestPath(level)) {
                level--;
            }
            if (level < minLoad + 2) {
                return;
            }
            ceiling = level;
        }
    }

    /**
     * One breadth-first search from every member holding at least {@code level} partitions to a
     * member holding at most {@code level - 2}; if found, moves one partition along each hop.
     */
    private boolean moveAlongShortestPath(int level) {
        int memberCount = loads.length;
        int[] parent = new int[memberCount];
        int[] parentTopic = new int[memberCount];
        boolean[] visited = new boolean[memberCount];
        boolean[] topicExpanded = new boolean[spec.topicCount()];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int m = 0; m < memberCount; m++) {
            if (loads[m] >= level) {
                visited[m] = true;
                parent[m] = -1;
                queue.add(m);
            }
        }
        while (!queue.isEmpty()) {
            int giver = queue.poll();
            int[] topics = spec.subscriptions[giver];
            for (int k = 0; k < topics.length; k++) {
                int topic = topics[k];
                if (heldCounts[giver][k] == 0 || topicExpanded[topic]) {
                    continue;
                }
                topicExpanded[topic] = true;
                for (int taker : spec.subscribers[topic]) {
                    if (visited[taker]) {
                        continue;
                    }
                    visited[taker] = true;
                    parent[taker] = giver;
                    parentTopic[taker] = topic;
                    if (loads[taker] <= level - 2) {
                        moveAlong(taker, parent, parentTopic);
                        return true;
                    }
                    queue.add(taker);
                }
            }
        }
        return false;
    }

    private void moveAlong(int last, int[] parent, int[] parentTopic) {
        for (int taker = last; parent[taker] != -1; taker = parent[taker]) {
            int giver = parent[taker];
            int topic = parentTopic[taker];
            int partition = partitionToPass(giver, taker, topic);
            owners[topic][partition] = taker;
            loads[giver]--;
            loads[taker]++;
            heldCounts[giver][position(giver, topic)]--;
            heldCounts[taker][position(taker, topic)]++;
        }
    }

    /**
     * The partition of {@code topic} that {@code giver} passes to {@code taker}: best one not in
     * the giver's current target (moving it costs no stickiness), then one on the taker's rack,
     * then one off the giver's rack; ties to the lowest partition.
     */
    private int partitionToPass(int giver, int taker, int topic) {
        int[] topicOwners = owners[topic];
        int best = -1;
        int bestScore = -1;
        for (int partition = 0; partition < topicOwners.length; partition++) {
            if (topicOwners[partition] != giver) {
                continue;
            }
            int score = (currentOwners[topic][partition] != giver ? 4 : 0)
                    + (spec.onRack(taker, topic, partition) ? 2 : 0)
                    + (spec.onRack(giver, topic, partition) ? 0 : 1);
            if (score > bestScore) {
                best = partition;
                bestScore = score;
            }
        }
        if (best == -1) {
            throw new AssignorException("member " + spec.memberIds[giver] + " holds no partition of topic "
                    + spec.topicIds[topic] + " to pass on");
        }
        return best;
    }

    private int position(int member, int topic) {
        return Arrays.binarySearch(spec.subscriptions[member], topic);
    }

    private long totalPartitions() {
        long total = 0;
        for (int[] topicOwners : owners) {
            total += topicOwners.length;
        }
        return total;
    }
}
