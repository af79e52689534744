package io.cohort.core.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where each offsets partition's Raft group lives: a pure function of (partitions, nodes with their
 * optional rack labels, replication factor) to each partition's ordered replica list, the first
 * being the preferred leader. Every node computes it from the cluster's fixed metadata and gets the
 * same answer, so it is never stored; it must therefore never change for the same input (a later
 * version that placed differently would move the replicas of existing clusters).
 *
 * <p>The layout:
 * <ul>
 *   <li>{@code RF >= N}: every node holds every partition and the preferred leader of {@code p} is
 *       the {@code (p mod N)}-th node in id order, the layout of every cluster created before the
 *       replication factor existed.</li>
 *   <li>{@code RF < N}: the nodes form a ring (id order; with rack labels, the racks interleaved so
 *       that neighbours sit in different racks) and the replicas are dealt round it as one stream of
 *       {@code P * RF} slots, partition {@code p} taking slots {@code p*RF .. p*RF+RF-1}: every node
 *       gets {@code floor} or {@code ceil} of {@code P*RF/N} replicas. The preferred leader is one of
 *       those slots, shifted by {@code (p / (N/g)) mod g} with {@code g = gcd(RF, N)}, so that every
 *       run of {@code N} partitions gives each node exactly one leadership (without the shift, a
 *       6-node cluster at RF 3 would have leaders on only two nodes).</li>
 *   <li>With rack labels, a partition's replicas span {@code min(RF, racks)} racks: with racks of
 *       equal size the interleaved ring gives that by itself; with unequal racks a replica in a rack
 *       the partition already uses is swapped for the least loaded node of a rack it does not use
 *       (never the leader), which may unbalance the replica counts (a rack of one node must then
 *       hold more than its share: the spread comes first).</li>
 * </ul>
 *
 * <p>Deterministic: it depends on the nodes' ids and labels only, not their order in the input.
 */
public final class ReplicaPlacement {
    private ReplicaPlacement() {
    }

    /** A node of the cluster with its rack (or zone) label, if any. */
    public record Node(int id, Optional<String> rack) {
        public Node {
            Objects.requireNonNull(rack, "rack");
            rack.ifPresent(r -> {
                if (r.isBlank()) {
                    throw new IllegalArgumentException("node " + id + ": a rack label must not be blank");
                }
            });
        }

        public static Node of(int id) {
            return new Node(id, Optional.empty());
        }

        public static Node of(int id, String rack) {
            return new Node(id, Optional.of(rack));
        }
    }

    /**
     * The ordered replica list of every partition, index = partition: distinct node ids, the first
     * the preferred leader, {@code min(replicationFactor, nodes)} of them.
     *
     * @throws IllegalArgumentException for no nodes, duplicate ids, {@code partitions < 1},
     *         {@code replicationFactor < 1}, or rack labels on some nodes but not all
     */
    public static List<List<Integer>> place(int partitions, Collection<Node> nodes, int replicationFactor) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be positive, got " + partitions);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("the replication factor must be positive, got " + replicationFactor);
        }
        List<Node> sorted = sortedDistinct(nodes);
        int n = sorted.size();
        if (replicationFactor >= n) {
            return everyNodeEverywhere(partitions, sorted);
        }
        List<Node> ring = ring(sorted);
        int g = gcd(replicationFactor, n);
        int period = n / g;
        int[] load = new int[n];
        List<List<Integer>> placement = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            int first = (int) ((long) p * replicationFactor % n);
            int leaderSlot = (p / period) % g;
            List<Integer> positions = new ArrayList<>(replicationFactor);
            positions.add((first + leaderSlot) % n);
            for (int i = 0; i < replicationFactor; i++) {
                if (i != leaderSlot) {
                    positions.add((first + i) % n);
                }
            }
            spreadOverRacks(positions, ring, load);
            List<Integer> replicas = new ArrayList<>(replicationFactor);
            for (int position : positions) {
                load[position]++;
                replicas.add(ring.get(position).id());
            }
            placement.add(List.copyOf(replicas));
        }
        return List.copyOf(placement);
    }

    /** The layout of every cluster before the replication factor: all nodes, leader {@code p mod N}. */
    private static List<List<Integer>> everyNodeEverywhere(int partitions, List<Node> sorted) {
        int n = sorted.size();
        List<List<Integer>> placement = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            List<Integer> replicas = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                replicas.add(sorted.get((p + i) % n).id());
            }
            placement.add(List.copyOf(replicas));
        }
        return List.copyOf(placement);
    }

    private static List<Node> sortedDistinct(Collection<Node> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a cluster needs at least one node");
        }
        List<Node> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparingInt(Node::id));
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i).id() == sorted.get(i - 1).id()) {
                throw new IllegalArgumentException("node " + sorted.get(i).id() + " is listed twice");
            }
        }
        long labelled = sorted.stream().filter(node -> node.rack().isPresent()).count();
        if (labelled != 0 && labelled != sorted.size()) {
            throw new IllegalArgumentException("either every node has a rack label or none has; " + labelled
                    + " of " + sorted.size() + " have one");
        }
        return sorted;
    }

    /**
     * Id order without labels; with labels, one node of each rack in turn (racks by name, nodes by
     * id), so consecutive ring positions sit in different racks as long as racks remain.
     */
    private static List<Node> ring(List<Node> sorted) {
        if (sorted.get(0).rack().isEmpty()) {
            return sorted;
        }
        Map<String, List<Node>> byRack = new TreeMap<>();
        for (Node node : sorted) {
            byRack.computeIfAbsent(node.rack().orElseThrow(), r -> new ArrayList<>()).add(node);
        }
        List<Node> ring = new ArrayList<>(sorted.size());
        for (int round = 0; ring.size() < sorted.size(); round++) {
            for (List<Node> rack : byRack.values()) {
                if (round < rack.size()) {
                    ring.add(rack.get(round));
                }
            }
        }
        return ring;
    }

    /**
     * Makes the replicas at {@code positions} span as many racks as they can: while two share a
     * rack and a rack is unused, the later of the two (never the leader at index 0) moves to the
     * least loaded node of the first unused rack. No-op without labels or when already spread.
     */
    private static void spreadOverRacks(List<Integer> positions, List<Node> ring, int[] load) {
        if (ring.get(0).rack().isEmpty()) {
            return;
        }
        Map<String, List<Integer>> positionsByRack = new TreeMap<>();
        for (int i = 0; i < ring.size(); i++) {
            positionsByRack.computeIfAbsent(ring.get(i).rack().orElseThrow(), r -> new ArrayList<>()).add(i);
        }
        while (true) {
            Map<String, Integer> used = new LinkedHashMap<>();
            int duplicateIndex = -1;
            for (int i = 0; i < positions.size(); i++) {
                String rack = ring.get(positions.get(i)).rack().orElseThrow();
                if (used.containsKey(rack)) {
                    duplicateIndex = i;
                } else {
                    used.put(rack, i);
                }
            }
            String unusedRack = positionsByRack.keySet().stream().filter(r -> !used.containsKey(r)).findFirst()
                    .orElse(null);
            if (duplicateIndex < 0 || unusedRack == null) {
                return;
            }
            int replacement = positionsByRack.get(unusedRack).stream()
                    .min(Comparator.<Integer>comparingInt(position -> load[position]).thenComparingInt(position -> position))
                    .orElseThrow();
            positions.set(duplicateIndex, replacement);
        }
    }

    /** How many replicas and preferred leaderships each node holds in {@code placement}. */
    public static Map<Integer, int[]> loadByNode(List<List<Integer>> placement) {
        Map<Integer, int[]> load = new HashMap<>();
        for (List<Integer> replicas : placement) {
            for (int i = 0; i < replicas.size(); i++) {
                int[] counts = load.computeIfAbsent(replicas.get(i), id -> new int[2]);
                counts[0]++;
                if (i == 0) {
                    counts[1]++;
                }
            }
        }
        return load;
    }

    /** The partitions {@code nodeId} holds a replica of in {@code placement}, ascending. */
    public static Set<Integer> partitionsOf(List<List<Integer>> placement, int nodeId) {
        Set<Integer> hosted = new TreeSet<>();
        for (int p = 0; p < placement.size(); p++) {
            if (placement.get(p).contains(nodeId)) {
                hosted.add(p);
            }
        }
        return hosted;
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
