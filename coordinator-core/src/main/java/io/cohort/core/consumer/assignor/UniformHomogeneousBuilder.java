package io.cohort.core.consumer.assignor;

import java.util.Arrays;

/**
 * The uniform assignment when every member subscribes to the same topics: Balance > Stickiness >
 * Rack matching.
 * <ul>
 *   <li>Balance: with P partitions and M members, every member gets P/M, and P%M of them one more.</li>
 *   <li>Stickiness: the extra partitions go to the members that hold the most of their current
 *       target, and a member keeps its current partitions up to its quota, so the number of
 *       partitions that change owner is the least any balanced assignment allows (Kafka's builder
 *       hands the extras out in member order instead, which can move one partition more per
 *       member).</li>
 *   <li>Racks: a member over its quota gives up the partitions off its rack first, and the freed
 *       partitions go to members on their replicas' racks first ({@link PartitionFill}).</li>
 * </ul>
 */
final class UniformHomogeneousBuilder {
    private final IndexedSpec spec;

    UniformHomogeneousBuilder(IndexedSpec spec) {
        this.spec = spec;
    }

    GroupAssignment build() {
        int memberCount = spec.memberCount();
        int[][] owners = spec.claimCurrentTargets();
        int totalPartitions = 0;
        int[] loads = new int[memberCount];
        for (int[] topicOwners : owners) {
            totalPartitions += topicOwners.length;
            for (int owner : topicOwners) {
                if (owner != IndexedSpec.NO_OWNER) {
                    loads[owner]++;
                }
            }
        }
        int[] quotas = quotas(loads, totalPartitions);
        revokeOverQuota(owners, loads, quotas);

        long[] free = new long[totalPartitions];
        int freeCount = 0;
        for (int t = 0; t < owners.length; t++) {
            for (int partition = 0; partition < owners[t].length; partition++) {
                if (owners[t][partition] == IndexedSpec.NO_OWNER) {
                    free[freeCount++] = PartitionFill.encode(t, partition);
                }
            }
        }
        int[] members = new int[memberCount];
        int[] room = new int[memberCount];
        for (int m = 0; m < memberCount; m++) {
            members[m] = m;
            room[m] = quotas[m] - loads[m];
        }
        PartitionFill.fill(spec, owners, loads, free, freeCount, members, room);
        return spec.toGroupAssignment(owners);
    }

    /**
     * Each member's quota: P/M, plus one for the P%M members holding the most partitions now (ties
     * to the lower member id), which maximises what members keep.
     */
    private static int[] quotas(int[] loads, int totalPartitions) {
        int memberCount = loads.length;
        int minimumQuota = totalPartitions / memberCount;
        int membersWithExtra = totalPartitions % memberCount;
        Integer[] byLoadDescending = new Integer[memberCount];
        for (int m = 0; m < memberCount; m++) {
            byLoadDescending[m] = m;
        }
        Arrays.sort(byLoadDescending, (a, b) -> loads[a] != loads[b] ? Integer.compare(loads[b], loads[a])
                : Integer.compare(a, b));
        int[] quotas = new int[memberCount];
        for (int rank = 0; rank < memberCount; rank++) {
            quotas[byLoadDescending[rank]] = minimumQuota + (rank < membersWithExtra ? 1 : 0);
        }
        return quotas;
    }

    /**
     * Frees the partitions of members over their quota: the ones off the member's rack first, then
     * from the end (highest topic id, highest partition), so the member keeps a contiguous prefix.
     */
    private void revokeOverQuota(int[][] owners, int[] loads, int[] quotas) {
        int[] excess = new int[loads.length];
        boolean anyExcess = false;
        for (int m = 0; m < loads.length; m++) {
            excess[m] = Math.max(0, loads[m] - quotas[m]);
            anyExcess |= excess[m] > 0;
        }
        if (!anyExcess) {
            return;
        }
        if (spec.rackAware) {
            revokeFromTheEnd(owners, loads, excess, true);
        }
        revokeFromTheEnd(owners, loads, excess, false);
    }

    private void revokeFromTheEnd(int[][] owners, int[] loads, int[] excess, boolean offRackOnly) {
        for (int t = owners.length - 1; t >= 0; t--) {
            int[] topicOwners = owners[t];
            for (int partition = topicOwners.length - 1; partition >= 0; partition--) {
                int owner = topicOwners[partition];
                if (owner != IndexedSpec.NO_OWNER && excess[owner] > 0
                        && (!offRackOnly || !spec.onRack(owner, t, partition))) {
                    topicOwners[partition] = IndexedSpec.NO_OWNER;
                    excess[owner]--;
                    loads[owner]--;
                }
            }
        }
    }
}
