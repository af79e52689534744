package io.cohort.core.consumer.assignor;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * The {@code range} server assignor: per topic, the members subscribed to it (in member-id order)
 * get contiguous ranges, the first P%M of them one partition more, as the classic range assignor.
 * <ul>
 *   <li>Sticky, as Kafka's server-side RangeAssignor: a member keeps its current-target partitions of
 *       the topic up to its quota (the lowest ones; one more if extra partitions are left), and only
 *       the rest is handed out again in ranges. A fresh group therefore gets exact ranges; a
 *       member joining or leaving moves only what the new quotas require.</li>
 *   <li>Co-partitioned: when every member subscribes to the same topics and they have the same
 *       partition count, the assignment is computed once over partition numbers and applied to
 *       every topic, so a member gets the same partition numbers of each topic (for joins). The
 *       stickiness input then is, for each partition number, the member holding it in most topics.</li>
 * </ul>
 * Subscribed topics missing from the spec are skipped.
 */
public final class RangeAssignor implements ServerAssignor {
    public static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GroupAssignment assign(AssignmentSpec spec) {
        if (spec.members().isEmpty()) {
            return new GroupAssignment(new TreeMap<>());
        }
        IndexedSpec indexed = new IndexedSpec(spec);
        int[][] owners = indexed.claimCurrentTargets();
        if (coPartitionable(indexed)) {
            int[] byPartitionNumber = stickyRanges(indexed.subscribers[0], mostCommonOwners(owners));
            for (int t = 0; t < owners.length; t++) {
                owners[t] = byPartitionNumber.clone();
            }
        } else {
            for (int t = 0; t < owners.length; t++) {
                owners[t] = stickyRanges(indexed.subscribers[t], owners[t]);
            }
        }
        return indexed.toGroupAssignment(owners);
    }

    private static boolean coPartitionable(IndexedSpec spec) {
        if (spec.topicCount() == 0 || !spec.homogeneous()) {
            return false;
        }
        for (int t = 1; t < spec.topicCount(); t++) {
            if (spec.partitionCount(t) != spec.partitionCount(0)) {
                return false;
            }
        }
        return true;
    }

    /** For each partition number, the member owning it in the most topics (ties: lowest member). */
    private static int[] mostCommonOwners(int[][] owners) {
        int partitionCount = owners[0].length;
        int[] result = new int[partitionCount];
        int[] ownersOfNumber = new int[owners.length];
        for (int partition = 0; partition < partitionCount; partition++) {
            for (int t = 0; t < owners.length; t++) {
                ownersOfNumber[t] = owners[t][partition];
            }
            Arrays.sort(ownersOfNumber);
            int best = IndexedSpec.NO_OWNER;
            int bestRun = 0;
            for (int i = 0; i < ownersOfNumber.length; ) {
                int j = i;
                while (j < ownersOfNumber.length && ownersOfNumber[j] == ownersOfNumber[i]) {
                    j++;
                }
                if (ownersOfNumber[i] != IndexedSpec.NO_OWNER && j - i > bestRun) {
                    best = ownersOfNumber[i];
                    bestRun = j - i;
                }
                i = j;
            }
            result[partition] = best;
        }
        return result;
    }

    /**
     * One topic's new owners from its current ones: each member (ascending) keeps its lowest current
     * partitions up to P/M, plus one more while extra partitions are left; then the free partitions
     * go out in ascending runs to the members below quota, in member order, the first ones
     * taking the extra partitions still left.
     *
     * @param members       the topic's subscribers, ascending member indices
     * @param currentOwners the current owner of each partition, or NO_OWNER (only subscribers)
     */
    static int[] stickyRanges(int[] members, int[] currentOwners) {
        int partitionCount = currentOwners.length;
        int memberCount = members.length;
        int minimumQuota = partitionCount / memberCount;
        int extraLeft = partitionCount % memberCount;
        int[][] current = currentPartitionsBySubscriber(members, currentOwners);
        int[] newOwners = new int[partitionCount];
        Arrays.fill(newOwners, IndexedSpec.NO_OWNER);
        int[] stillNeeded = new int[memberCount];
        boolean[] full = new boolean[memberCount];
        for (int i = 0; i < memberCount; i++) {
            int[] held = current[i];
            int kept = Math.min(held.length, minimumQuota);
            for (int j = 0; j < kept; j++) {
                newOwners[held[j]] = members[i];
            }
            if (held.length > minimumQuota && extraLeft > 0) {
                newOwners[held[minimumQuota]] = members[i];
                extraLeft--;
                full[i] = true;
            } else {
                stillNeeded[i] = minimumQuota - kept;
            }
        }
        int nextFree = 0;
        for (int i = 0; i < memberCount; i++) {
            if (full[i]) {
                continue;
            }
            int needed = stillNeeded[i];
            if (extraLeft > 0) {
                needed++;
                extraLeft--;
            }
            for (; needed > 0; needed--) {
                while (newOwners[nextFree] != IndexedSpec.NO_OWNER) {
                    nextFree++;
                }
                newOwners[nextFree] = members[i];
            }
        }
        return newOwners;
    }

    /** current[i]: the partitions members[i] owns now, ascending. */
    private static int[][] currentPartitionsBySubscriber(int[] members, int[] currentOwners) {
        int[] counts = new int[members.length];
        for (int owner : currentOwners) {
            if (owner != IndexedSpec.NO_OWNER) {
                counts[Arrays.binarySearch(members, owner)]++;
            }
        }
        int[][] current = new int[members.length][];
        for (int i = 0; i < members.length; i++) {
            current[i] = new int[counts[i]];
            counts[i] = 0;
        }
        for (int partition = 0; partition < currentOwners.length; partition++) {
            int owner = currentOwners[partition];
            if (owner != IndexedSpec.NO_OWNER) {
                int i = Arrays.binarySearch(members, owner);
                current[i][counts[i]++] = partition;
            }
        }
        return current;
    }
}
