package io.cohort.client.assignor;

import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * Kafka's {@code StickyAssignor} ("sticky"): a balanced assignment that moves as few partitions as
 * possible away from their current owners.
 *
 * <p>Goals, in priority order:
 * <ol>
 *   <li><b>Balance.</b> When every member has the same subscription, partition counts differ by at
 *       most one. Otherwise the result is balanced as far as single moves go: no partition could move
 *       from its member to another member subscribed to its topic that has at least two partitions
 *       fewer (Kafka's notion of a balanced assignment for different subscriptions).</li>
 *   <li><b>Stickiness.</b> Every member keeps the partitions it validly owns (see below) unless the
 *       balance needs them elsewhere; with the same subscription everywhere, a member keeps
 *       {@code min(owned, floor(partitions / members))} of its owned partitions, so an unchanged,
 *       balanced group gets its previous assignment back.</li>
 * </ol>
 *
 * <p><b>Which ownership counts.</b> A member's {@link Subscription#ownedPartitions()} claim is
 * ignored for topics it no longer subscribes to and for partitions that no longer exist. When two
 * members claim the same partition, the claim of the higher {@link Subscription#generationId()} wins
 * (the other member missed a rebalance and its view is stale); claims of the same, highest generation
 * cancel each other out, since the assignor cannot tell which one is right, and the partition is
 * treated as unowned. This is decided partition by partition: a member of an older generation still
 * keeps the partitions nobody newer claims.
 *
 * <p><b>Algorithm</b> (greedy, about {@code O(P * T log M)} for {@code P} partitions, {@code M}
 * members, {@code T} topics a member subscribes to):
 * <ol>
 *   <li>every member keeps its validly owned partitions;</li>
 *   <li>the remaining partitions, the most constrained first (topics with the fewest subscribers),
 *       go one by one to the least-loaded subscribed member, ties to the smallest member id;</li>
 *   <li>while some partition could go from a member to a subscribed member with at least two fewer
 *       partitions, the most loaded such member gives one to the least loaded one, preferring a
 *       partition it did not own before this rebalance.</li>
 * </ol>
 * Step 3 terminates: each move lowers the sum of the squared partition counts by at least two.
 *
 * <p>Eager only; {@link CooperativeStickyAssignor} adds KIP-429's two-step hand-over on top.
 */
public final class StickyAssignor implements ConsumerPartitionAssignor {
    /** The protocol name, as Kafka's. */
    public static final String NAME = "sticky";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        return AssignorSupport.toAssignments(stickyAssignment(partitionsPerTopic, subscriptions));
    }

    /**
     * The balanced, sticky assignment for every member of {@code subscriptions}, by member id; shared
     * with {@link CooperativeStickyAssignor}.
     */
    static SortedMap<String, List<TopicPartition>> stickyAssignment(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        return new Balancer(partitionsPerTopic, subscriptions).run();
    }

    /**
     * One assignment computation. Members, topics and partitions are numbered densely so that the
     * hot loops work on int arrays: member {@code m} is the m-th member id in sorted order, topic
     * {@code t} the t-th assignable topic in sorted order, and partition {@code p} the global index
     * {@code firstPartition[t] + partition}, so numeric order is {@link TopicPartition} order.
     * Every tie is broken on these numbers, which keeps the result deterministic.
     */
    private static final class Balancer {
        private final Map<String, Subscription> subscriptions;
        private final String[] members;
        private final String[] topics;
        private final int[] firstPartition;
        private final int[] topicOf;
        /** The topics each member subscribes to (sorted topic numbers), and the same as a set. */
        private final int[][] topicsOf;
        private final BitSet[] subscribes;
        /** The subscribers of each topic. */
        private final int[][] subscribersOf;

        /** The validly owned partition's previous owner, or -1; fixed once resolved. */
        private final int[] previousOwner;
        /** The current owner of each partition in this computation, or -1. */
        private final int[] owner;
        /** How many partitions each member holds now. */
        private final int[] load;
        /**
         * held.get(m).get(i): the partitions member m holds of topic topicsOf[m][i], in the order m would give
         * them away: first those it did not own before (moving them costs no stickiness), then the
         * highest partition first.
         */
        private final List<List<TreeSet<Integer>>> held = new ArrayList<>();
        /** Per topic, its subscribers and, separately, the members holding any of its partitions, by load. */
        private final List<TreeSet<Integer>> subscribersByLoad = new ArrayList<>();
        private final List<TreeSet<Integer>> holdersByLoad = new ArrayList<>();

        Balancer(Map<String, Integer> partitionsPerTopic, Map<String, Subscription> subscriptions) {
            this.subscriptions = subscriptions;
            this.members = subscriptions.keySet().stream().sorted().toArray(String[]::new);
            this.topics = AssignorSupport.assignableTopics(partitionsPerTopic, subscriptions).toArray(String[]::new);

            Map<String, Integer> topicNumber = new HashMap<>(); // lookups only, never iterated
            firstPartition = new int[topics.length + 1];
            for (int t = 0; t < topics.length; t++) {
                topicNumber.put(topics[t], t);
                firstPartition[t + 1] = firstPartition[t]
                        + AssignorSupport.partitionCount(partitionsPerTopic, topics[t]);
            }
            int partitions = firstPartition[topics.length];
            topicOf = new int[partitions];
            for (int t = 0; t < topics.length; t++) {
                Arrays.fill(topicOf, firstPartition[t], firstPartition[t + 1], t);
            }

            topicsOf = new int[members.length][];
            subscribes = new BitSet[members.length];
            List<List<Integer>> subscribers = new ArrayList<>();
            for (int t = 0; t < topics.length; t++) {
                subscribers.add(new ArrayList<>());
            }
            for (int m = 0; m < members.length; m++) {
                subscribes[m] = new BitSet(topics.length);
                for (String topic : subscriptions.get(members[m]).topics()) {
                    Integer t = topicNumber.get(topic);
                    if (t != null) {
                        subscribes[m].set(t);
                    }
                }
                topicsOf[m] = subscribes[m].stream().toArray();
                for (int t : topicsOf[m]) {
                    subscribers.get(t).add(m);
                }
            }
            subscribersOf = subscribers.stream()
                    .map(list -> list.stream().mapToInt(Integer::intValue).toArray())
                    .toArray(int[][]::new);

            previousOwner = resolvePreviousOwners(topicNumber, partitions);
            owner = new int[partitions];
            Arrays.fill(owner, -1);
            load = new int[members.length];

            // Ties on load go to the smaller member number, i.e. the smaller member id.
            Comparator<Integer> byLoad = (a, b) -> load[a] != load[b] ? Integer.compare(load[a], load[b])
                    : Integer.compare(a, b);
            for (int t = 0; t < topics.length; t++) {
                subscribersByLoad.add(new TreeSet<>(byLoad));
                holdersByLoad.add(new TreeSet<>(byLoad));
                for (int m : subscribersOf[t]) {
                    subscribersByLoad.get(t).add(m);
                }
            }
            for (int m = 0; m < members.length; m++) {
                int member = m;
                Comparator<Integer> giveOrder = (a, b) -> {
                    boolean ownedA = previousOwner[a] == member;
                    boolean ownedB = previousOwner[b] == member;
                    return ownedA != ownedB ? (ownedA ? 1 : -1) : Integer.compare(b, a);
                };
                List<TreeSet<Integer>> byTopic = new ArrayList<>();
                for (int i = 0; i < topicsOf[m].length; i++) {
                    byTopic.add(new TreeSet<>(giveOrder));
                }
                held.add(byTopic);
            }
        }

        /**
         * Applies the ownership rules of the class comment: valid claims only, the highest generation
         * wins, a tie at the highest generation leaves the partition unowned.
         */
        private int[] resolvePreviousOwners(Map<String, Integer> topicNumber, int partitions) {
            int[] claimant = new int[partitions];
            int[] claimGeneration = new int[partitions];
            boolean[] tied = new boolean[partitions];
            Arrays.fill(claimant, -1);
            for (int m = 0; m < members.length; m++) {
                Subscription subscription = subscriptions.get(members[m]);
                int generation = subscription.generationId();
                // A member listing a partition twice is one claim, not a conflict with itself.
                for (TopicPartition tp : new TreeSet<>(subscription.ownedPartitions())) {
                    Integer t = topicNumber.get(tp.topic());
                    // Skip an unknown or deleted topic, an unsubscribed topic, a partition that no longer exists.
                    if (t == null || !subscribes[m].get(t) || firstPartition[t] + tp.partition() >= firstPartition[t + 1]) {
                        continue;
                    }
                    int p = firstPartition[t] + tp.partition();
                    if (claimant[p] < 0 || generation > claimGeneration[p]) {
                        claimant[p] = m;
                        claimGeneration[p] = generation;
                        tied[p] = false;
                    } else if (generation == claimGeneration[p]) {
                        tied[p] = true;
                    }
                }
            }
            for (int p = 0; p < partitions; p++) {
                if (tied[p]) {
                    claimant[p] = -1;
                }
            }
            return claimant;
        }

        SortedMap<String, List<TopicPartition>> run() {
            // 1. Keep what is validly owned.
            for (int p = 0; p < owner.length; p++) {
                if (previousOwner[p] >= 0) {
                    give(p, previousOwner[p]);
                }
            }

            // 2. Hand out the rest, most constrained topics first so that members with few options get
            //    served before the flexible members fill up.
            List<Integer> unassigned = new ArrayList<>();
            for (int p = 0; p < owner.length; p++) {
                if (owner[p] < 0) {
                    unassigned.add(p);
                }
            }
            unassigned.sort(Comparator.<Integer>comparingInt(p -> subscribersOf[topicOf[p]].length)
                    .thenComparingInt(p -> p));
            for (int p : unassigned) {
                give(p, subscribersByLoad.get(topicOf[p]).first());
            }

            // 3. Even out what keeping owned partitions left unbalanced.
            rebalance();

            SortedMap<String, List<TopicPartition>> result = AssignorSupport.emptyAssignment(subscriptions);
            for (int p = 0; p < owner.length; p++) {
                int t = topicOf[p];
                result.get(members[owner[p]]).add(new TopicPartition(topics[t], p - firstPartition[t]));
            }
            return result;
        }

        /**
         * Moves single partitions from the most loaded to the least loaded member while some move
         * narrows a gap of two or more. Per topic, the widest gap is between its most loaded holder
         * and its least loaded subscriber; the move takes the widest gap over all topics.
         */
        private void rebalance() {
            while (true) {
                int bestTopic = -1;
                int bestGap = 1; // a gap of one cannot be narrowed by a move, only swapped
                for (int t = 0; t < topics.length; t++) {
                    if (holdersByLoad.get(t).isEmpty()) {
                        continue;
                    }
                    int gap = load[holdersByLoad.get(t).last()] - load[subscribersByLoad.get(t).first()];
                    if (gap > bestGap) {
                        bestGap = gap;
                        bestTopic = t;
                    }
                }
                if (bestTopic < 0) {
                    return;
                }
                int giver = holdersByLoad.get(bestTopic).last();
                int receiver = subscribersByLoad.get(bestTopic).first();
                int partition = partitionToGive(giver, receiver);
                take(partition);
                give(partition, receiver);
            }
        }

        /**
         * Which partition {@code giver} hands to {@code receiver}: one of a topic the receiver
         * subscribes to, preferably one the giver got in this computation rather than one it owned.
         */
        private int partitionToGive(int giver, int receiver) {
            int fallback = -1;
            for (int i = 0; i < topicsOf[giver].length; i++) {
                TreeSet<Integer> ofTopic = held.get(giver).get(i);
                if (ofTopic.isEmpty() || !subscribes[receiver].get(topicsOf[giver][i])) {
                    continue;
                }
                int candidate = ofTopic.first();
                if (previousOwner[candidate] != giver) {
                    return candidate;
                }
                if (fallback < 0) {
                    fallback = candidate;
                }
            }
            return fallback; // never -1: the giver holds a partition of a topic the receiver subscribes to
        }

        private void give(int partition, int member) {
            detach(member);
            load[member]++;
            owner[partition] = member;
            held.get(member).get(localTopic(member, topicOf[partition])).add(partition);
            attach(member);
        }

        private void take(int partition) {
            int member = owner[partition];
            detach(member);
            load[member]--;
            owner[partition] = -1;
            held.get(member).get(localTopic(member, topicOf[partition])).remove(partition);
            attach(member);
        }

        /** Takes the member out of the by-load sets before its load changes (a TreeSet key must not mutate). */
        private void detach(int member) {
            for (int t : topicsOf[member]) {
                subscribersByLoad.get(t).remove(member);
                holdersByLoad.get(t).remove(member);
            }
        }

        private void attach(int member) {
            for (int i = 0; i < topicsOf[member].length; i++) {
                int t = topicsOf[member][i];
                subscribersByLoad.get(t).add(member);
                if (!held.get(member).get(i).isEmpty()) {
                    holdersByLoad.get(t).add(member);
                }
            }
        }

        private int localTopic(int member, int topic) {
            return Arrays.binarySearch(topicsOf[member], topic);
        }
    }
}
