package io.cohort.core.consumer.assignor;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * An {@link AssignmentSpec} numbered for the assignors: members 0..M-1 in member-id order, the
 * subscribed topics that exist 0..T-1 in topic-id order, and partition owners as plain int arrays.
 * Numbering by the spec's sorted order is what makes every assignor deterministic: all their loops
 * run over these indices, never over hash orders.
 */
final class IndexedSpec {
    /** The owner of a partition nobody holds. */
    static final int NO_OWNER = -1;

    final String[] memberIds;
    /** Each member's rack, or null. */
    final String[] memberRacks;
    /** Each member's subscribed topics that exist, as ascending topic indices. */
    final int[][] subscriptions;
    final UUID[] topicIds;
    final TopicMetadata[] topics;
    /** For each topic, the members subscribed to it, ascending. */
    final int[][] subscribers;
    /** Whether rack matching applies: some member's rack holds a replica of some subscribed partition. */
    final boolean rackAware;
    private final AssignmentSpec spec;
    private final Map<UUID, Integer> topicIndices;

    IndexedSpec(AssignmentSpec spec) {
        this.spec = spec;
        int memberCount = spec.members().size();
        memberIds = new String[memberCount];
        memberRacks = new String[memberCount];
        AssignmentSpec.MemberSpec[] members = spec.members().values().toArray(new AssignmentSpec.MemberSpec[0]);
        spec.members().keySet().toArray(memberIds);
        // Most groups are homogeneous: a subscription equal to the previous member's is numbered once.
        TreeSet<UUID> existing = new TreeSet<>();
        SortedSet<UUID> previous = null;
        for (int m = 0; m < memberCount; m++) {
            memberRacks[m] = members[m].rackId();
            SortedSet<UUID> subscription = members[m].subscribedTopicIds();
            if (!sameTopics(previous, subscription)) {
                for (UUID topicId : subscription) {
                    if (spec.topics().containsKey(topicId)) {
                        existing.add(topicId);
                    }
                }
                previous = subscription;
            }
        }
        topicIds = existing.toArray(new UUID[0]);
        int topicCount = topicIds.length;
        topics = new TopicMetadata[topicCount];
        // Looked up by key only, never iterated: its hash order cannot leak into the result.
        topicIndices = new HashMap<>(topicCount * 2);
        for (int t = 0; t < topicCount; t++) {
            topics[t] = spec.topics().get(topicIds[t]);
            topicIndices.put(topicIds[t], t);
        }
        subscriptions = new int[memberCount][];
        int[] subscriberCounts = new int[topicCount];
        previous = null;
        for (int m = 0; m < memberCount; m++) {
            SortedSet<UUID> subscription = members[m].subscribedTopicIds();
            if (sameTopics(previous, subscription)) {
                subscriptions[m] = subscriptions[m - 1];
            } else {
                subscriptions[m] = indicesOf(subscription);
                previous = subscription;
            }
            for (int t : subscriptions[m]) {
                subscriberCounts[t]++;
            }
        }
        subscribers = new int[topicCount][];
        for (int t = 0; t < topicCount; t++) {
            subscribers[t] = new int[subscriberCounts[t]];
            subscriberCounts[t] = 0;
        }
        for (int m = 0; m < memberCount; m++) {
            for (int t : subscriptions[m]) {
                subscribers[t][subscriberCounts[t]++] = m;
            }
        }
        rackAware = computeRackAware();
    }

    /** Equal sorted sets, compared in one ordered pass (Set.equals looks every element up). */
    private static boolean sameTopics(SortedSet<UUID> a, SortedSet<UUID> b) {
        if (a == b) {
            return true;
        }
        if (a == null || a.size() != b.size()) {
            return false;
        }
        Iterator<UUID> other = b.iterator();
        for (UUID topicId : a) {
            if (!topicId.equals(other.next())) {
                return false;
            }
        }
        return true;
    }

    /** The indices of the existing topics of a subscription, ascending (topic ids are sorted). */
    private int[] indicesOf(SortedSet<UUID> subscription) {
        int[] indices = new int[subscription.size()];
        int count = 0;
        for (UUID topicId : subscription) {
            Integer index = topicIndices.get(topicId);
            if (index != null) {
                indices[count++] = index;
            }
        }
        return count == indices.length ? indices : Arrays.copyOf(indices, count);
    }

    int memberCount() {
        return memberIds.length;
    }

    int topicCount() {
        return topicIds.length;
    }

    int partitionCount(int topic) {
        return topics[topic].partitionCount();
    }

    /** Whether every member subscribes to the same existing topics (unknown topics do not count). */
    boolean homogeneous() {
        for (int m = 1; m < subscriptions.length; m++) {
            if (!Arrays.equals(subscriptions[0], subscriptions[m])) {
                return false;
            }
        }
        return true;
    }

    boolean subscribes(int member, int topic) {
        return Arrays.binarySearch(subscriptions[member], topic) >= 0;
    }

    /** Whether a replica of the partition is on the member's rack (false without rack information). */
    boolean onRack(int member, int topic, int partition) {
        String rack = memberRacks[member];
        return rack != null && topics[topic].racksOf(partition).contains(rack);
    }

    /**
     * Every partition of every topic an owner: the member whose current target holds it, if that
     * member still subscribes to the topic and the partition still exists; else {@link #NO_OWNER}.
     * A partition in two members' current targets (never produced by an assignor, but a spec can
     * say so) goes to the first member in member-id order.
     */
    int[][] claimCurrentTargets() {
        int[][] owners = new int[topicCount()][];
        for (int t = 0; t < owners.length; t++) {
            owners[t] = new int[partitionCount(t)];
            Arrays.fill(owners[t], NO_OWNER);
        }
        int m = 0;
        for (AssignmentSpec.MemberSpec member : spec.members().values()) {
            for (Map.Entry<UUID, SortedSet<Integer>> held : member.currentTarget().partitions().entrySet()) {
                Integer t = topicIndices.get(held.getKey());
                if (t == null || !subscribes(m, t)) {
                    continue;
                }
                int[] topicOwners = owners[t];
                for (int partition : held.getValue()) {
                    if (partition >= 0 && partition < topicOwners.length && topicOwners[partition] == NO_OWNER) {
                        topicOwners[partition] = m;
                    }
                }
            }
            m++;
        }
        return owners;
    }

    /** The assignors' output: one entry per member, built from the owner arrays. */
    GroupAssignment toGroupAssignment(int[][] owners) {
        List<TreeMap<UUID, SortedSet<Integer>>> perMember = new ArrayList<>(memberIds.length);
        for (int m = 0; m < memberIds.length; m++) {
            perMember.add(new TreeMap<>());
        }
        for (int t = 0; t < owners.length; t++) {
            for (int partition = 0; partition < owners[t].length; partition++) {
                int owner = owners[t][partition];
                if (owner != NO_OWNER) {
                    perMember.get(owner).computeIfAbsent(topicIds[t], id -> new TreeSet<>()).add(partition);
                }
            }
        }
        TreeMap<String, Assignment> members = new TreeMap<>();
        for (int m = 0; m < memberIds.length; m++) {
            members.put(memberIds[m], new Assignment(perMember.get(m)));
        }
        return new GroupAssignment(members);
    }

    private boolean computeRackAware() {
        TreeSet<String> racks = new TreeSet<>();
        for (String rack : memberRacks) {
            if (rack != null) {
                racks.add(rack);
            }
        }
        if (racks.isEmpty()) {
            return false;
        }
        for (TopicMetadata topic : topics) {
            for (List<String> partitionRacks : topic.partitionRacks()) {
                for (String rack : partitionRacks) {
                    if (racks.contains(rack)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
