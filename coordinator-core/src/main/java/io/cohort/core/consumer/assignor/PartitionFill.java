package io.cohort.core.consumer.assignor;

import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Hands free partitions to members that have room, after the counts are decided (balance first):
 * with rack information, a partition goes to a member on one of its replicas' racks when one has
 * room (the one with the most room left, so racks fill evenly); what is left goes out in order,
 * the members in member-id order each taking a contiguous run (as Kafka's uniform assignor does).
 * Only which partition goes where depends on racks, never how many, so racks never cost balance.
 */
final class PartitionFill {
    private PartitionFill() {
    }

    /** A free partition encoded as one long: topic index in the high half, partition in the low. */
    static long encode(int topic, int partition) {
        return ((long) topic << 32) | (partition & 0xffffffffL);
    }

    static int topicOf(long encoded) {
        return (int) (encoded >>> 32);
    }

    static int partitionOf(long encoded) {
        return (int) encoded;
    }

    /**
     * Gives every partition of {@code free} (ascending encoded order) to one of {@code members}
     * (ascending), member m taking exactly {@code room[m]} of them; updates {@code owners} and
     * {@code loads}.
     *
     * @throws AssignorException if the members' room is less than the free partitions (a bug)
     */
    static void fill(IndexedSpec spec, int[][] owners, int[] loads, long[] free, int freeCount,
                     int[] members, int[] room) {
        boolean[] placed = new boolean[freeCount];
        int remaining = freeCount;
        if (spec.rackAware) {
            remaining -= fillOnRack(spec, owners, loads, free, freeCount, members, room, placed);
        }
        int next = 0;
        for (int i = 0; i < freeCount && remaining > 0; i++) {
            if (placed[i]) {
                continue;
            }
            while (next < members.length && room[members[next]] == 0) {
                next++;
            }
            if (next == members.length) {
                throw new AssignorException(remaining + " partitions left unassigned: no member has room");
            }
            int member = members[next];
            place(owners, loads, free[i], member, room);
            remaining--;
        }
    }

    private static int fillOnRack(IndexedSpec spec, int[][] owners, int[] loads, long[] free, int freeCount,
                                  int[] members, int[] room, boolean[] placed) {
        Comparator<Integer> mostRoomFirst = Comparator.<Integer>comparingInt(m -> -room[m])
                .thenComparingInt(m -> m);
        TreeMap<String, TreeSet<Integer>> membersByRack = new TreeMap<>();
        for (int member : members) {
            String rack = spec.memberRacks[member];
            if (rack != null && room[member] > 0) {
                membersByRack.computeIfAbsent(rack, r -> new TreeSet<>(mostRoomFirst)).add(member);
            }
        }
        int placedCount = 0;
        for (int i = 0; i < freeCount && !membersByRack.isEmpty(); i++) {
            int topic = topicOf(free[i]);
            List<String> racks = spec.topics[topic].racksOf(partitionOf(free[i]));
            Integer best = null;
            for (String rack : racks) {
                TreeSet<Integer> candidates = membersByRack.get(rack);
                if (candidates != null && (best == null || mostRoomFirst.compare(candidates.first(), best) < 0)) {
                    best = candidates.first();
                }
            }
            if (best == null) {
                continue;
            }
            TreeSet<Integer> rackMembers = membersByRack.get(spec.memberRacks[best]);
            rackMembers.remove(best);
            place(owners, loads, free[i], best, room);
            if (room[best] > 0) {
                rackMembers.add(best);
            } else if (rackMembers.isEmpty()) {
                membersByRack.remove(spec.memberRacks[best]);
            }
            placed[i] = true;
            placedCount++;
        }
        return placedCount;
    }

    private static void place(int[][] owners, int[] loads, long encoded, int member, int[] room) {
        owners[topicOf(encoded)][partitionOf(encoded)] = member;
        loads[member]++;
        room[member]--;
    }
}
