package io.cohort.core.consumer.assignor;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

    IndexedSpec(AssignmentSpec spec) {
        this.spec = spec;
        int memberCount = spec.members().size();
        memberIds = spec.members().keySet().toArray(new String[0]);
        memberRacks = new String[memberCount];
        TreeMap<UUID, List<Integer>> subscribersByTopic = new TreeMap<>();
        for (int m = 0; m < memberCount; m++) {
            AssignmentSpec.MemberSpec member = spec.members().get(memberIds[m]);
            memberRacks[m] = member.rackId();
            for (UUID topicId : member.subscribedTopicIds()) {
                if (spec.topics().containsKey(topicId)) {
                    subscribersByTopic.computeIfAbsent(topicId, id -> new ArrayList<>()).add(m);
                }
            }
        }
        int topicCount = subscribersByTopic.size();
        topicIds = subscribersByTopic.keySet().toArray(new UUID[0]);
        topics = new TopicMetadata[topicCount];
        subscribers = new int[topicCount][];
        List<List<Integer>> memberTopics = new ArrayList<>(memberCount);
        for (int m = 0; m < memberCount; m++) {
            memberTopics.add(new ArrayList<>());
        }
        for (int t = 0; t < topicCount; t++) {
            topics[t] = spec.topics().get(topicIds[t]);
            List<Integer> list = subscribersByTopic.get(topicIds[t]);
            subscribers[t] = list.stream().mapToInt(Integer::intValue).toArray();
            for (int m : subscribers[t]) {
                memberTopics.get(m).add(t);
            }
        }
        subscriptions = new int[memberCount][];
        for (int m = 0; m < memberCount; m++) {
            subscriptions[m] = memberTopics.get(m).stream().mapToInt(Integer::intValue).toArray();
        }
        rackAware = computeRackAware();
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
        for (int m = 0; m < memberIds.length; m++) {
            Assignment current = spec.members().get(memberIds[m]).currentTarget();
            for (int t : subscriptions[m]) {
                int[] topicOwners = owners[t];
                for (int partition : current.partitionsOf(topicIds[t])) {
                    if (partition >= 0 && partition < topicOwners.length && topicOwners[partition] == NO_OWNER) {
                        topicOwners[partition] = m;
                    }
                }
            }
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
