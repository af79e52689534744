package io.cohort.core.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.placement.ReplicaPlacement.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Properties of {@link ReplicaPlacement} over every combination of partitions 1..60, nodes 1..9
 * (ids with gaps), replication factor 1..N+1, without labels, with equal racks and with unequal
 * racks; plus pinned outputs so the function cannot change under existing clusters.
 */
class ReplicaPlacementTest {
    private static final int[] PARTITIONS = {1, 2, 3, 4, 5, 6, 7, 10, 12, 13, 17, 24, 50, 60};

    @Test
    void everyPartitionHasMinOfRfAndNDistinctReplicas() {
        forEveryShape((nodes, p, rf, placement) -> {
            assertThat(placement).hasSize(p);
            Set<Integer> ids = ids(nodes);
            for (List<Integer> replicas : placement) {
                assertThat(replicas).hasSize(Math.min(rf, nodes.size())).doesNotHaveDuplicates();
                assertThat(ids).containsAll(replicas);
            }
        });
    }

    @Test
    void replicaCountsPerNodeDifferByAtMostOneWithoutLabelsOrWithEqualRacks() {
        forEveryShape((nodes, p, rf, placement) -> {
            if (unequalRacks(nodes)) {
                return;
            }
            int[] replicas = counts(nodes, placement, false);
            assertThat(max(replicas) - min(replicas)).as("replica counts %s, P=%d RF=%d nodes %s",
                    java.util.Arrays.toString(replicas), p, rf, nodes).isLessThanOrEqualTo(1);
        });
    }

    @Test
    void preferredLeaderCountsPerNodeDifferByAtMostOne() {
        forEveryShape((nodes, p, rf, placement) -> {
            int[] leaders = counts(nodes, placement, true);
            assertThat(max(leaders) - min(leaders)).as("leader counts %s, P=%d RF=%d nodes %s",
                    java.util.Arrays.toString(leaders), p, rf, nodes).isLessThanOrEqualTo(1);
        });
    }

    @Test
    void replicasSpanAsManyRacksAsTheyCan() {
        forEveryShape((nodes, p, rf, placement) -> {
            if (nodes.get(0).rack().isEmpty()) {
                return;
            }
            long racks = nodes.stream().map(Node::rack).distinct().count();
            for (List<Integer> replicas : placement) {
                long spanned = replicas.stream().map(id -> rackOf(nodes, id)).distinct().count();
                assertThat(spanned).as("partition replicas %s, P=%d RF=%d nodes %s", replicas, p, rf, nodes)
                        .isEqualTo(Math.min(Math.min(rf, nodes.size()), racks));
            }
        });
    }

    @Test
    void sameInputGivesSameOutputWhateverTheOrderOfTheNodes() {
        forEveryShape((nodes, p, rf, placement) -> {
            List<Node> reversed = new ArrayList<>(nodes);
            Collections.reverse(reversed);
            List<Node> rotated = new ArrayList<>(nodes);
            Collections.rotate(rotated, 2);
            assertThat(ReplicaPlacement.place(p, reversed, rf)).isEqualTo(placement);
            assertThat(ReplicaPlacement.place(p, rotated, rf)).isEqualTo(placement);
            assertThat(ReplicaPlacement.place(p, nodes, rf)).isEqualTo(placement);
        });
    }

    /** RF >= N is the layout of clusters created before the replication factor existed. */
    @Test
    void replicationFactorOfAtLeastNReproducesTheLayoutWhereEveryNodeHoldsEveryPartition() {
        for (int n = 1; n <= 7; n++) {
            List<Node> nodes = IntStream.rangeClosed(1, n).mapToObj(id -> Node.of(id * 3)).toList();
            for (int rf = n; rf <= n + 2; rf++) {
                for (int p : PARTITIONS) {
                    List<List<Integer>> placement = ReplicaPlacement.place(p, nodes, rf);
                    for (int partition = 0; partition < p; partition++) {
                        // Today's ClusterSpec.preferredLeader: the (p mod N)-th peer in id order.
                        int todaysPreferred = nodes.get(partition % n).id();
                        assertThat(placement.get(partition).get(0)).isEqualTo(todaysPreferred);
                        assertThat(new HashSet<>(placement.get(partition))).isEqualTo(ids(nodes));
                    }
                }
            }
        }
    }

    /** Pinned: a change here moves the replicas of existing clusters. */
    @Test
    void pinnedLayouts() {
        List<Node> five = IntStream.rangeClosed(1, 5).mapToObj(Node::of).toList();
        assertThat(ReplicaPlacement.place(6, five, 3)).containsExactly(
                List.of(1, 2, 3), List.of(4, 5, 1), List.of(2, 3, 4), List.of(5, 1, 2), List.of(3, 4, 5),
                List.of(1, 2, 3));
        List<Node> six = IntStream.rangeClosed(1, 6).mapToObj(Node::of).toList();
        assertThat(ReplicaPlacement.place(6, six, 3)).containsExactly(
                List.of(1, 2, 3), List.of(4, 5, 6), List.of(2, 1, 3), List.of(5, 4, 6), List.of(3, 1, 2),
                List.of(6, 4, 5));
        List<Node> racked = List.of(Node.of(1, "a"), Node.of(2, "a"), Node.of(3, "b"), Node.of(4, "b"),
                Node.of(5, "c"), Node.of(6, "c"));
        assertThat(ReplicaPlacement.place(3, racked, 3)).containsExactly(
                List.of(1, 3, 5), List.of(2, 4, 6), List.of(3, 1, 5));
        assertThat(ReplicaPlacement.place(3, List.of(Node.of(1), Node.of(2), Node.of(3)), 3)).containsExactly(
                List.of(1, 2, 3), List.of(2, 3, 1), List.of(3, 1, 2));
    }

    @Test
    void refusesWhatCannotBePlaced() {
        List<Node> three = List.of(Node.of(1), Node.of(2), Node.of(3));
        assertThatThrownBy(() -> ReplicaPlacement.place(0, three, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReplicaPlacement.place(3, three, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReplicaPlacement.place(3, List.of(), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReplicaPlacement.place(3, List.of(Node.of(1), Node.of(1)), 1))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> ReplicaPlacement.place(3, List.of(Node.of(1, "a"), Node.of(2)), 1))
                .hasMessageContaining("rack label");
    }

    // ---- the shapes ----

    private interface Check {
        void check(List<Node> nodes, int partitions, int rf, List<List<Integer>> placement);
    }

    private static void forEveryShape(Check check) {
        int shapes = 0;
        for (int n = 1; n <= 9; n++) {
            for (List<Node> nodes : labellings(n)) {
                for (int rf = 1; rf <= n + 1; rf++) {
                    for (int p : PARTITIONS) {
                        check.check(nodes, p, rf, ReplicaPlacement.place(p, nodes, rf));
                        shapes++;
                    }
                }
            }
        }
        assertThat(shapes).isGreaterThan(1_000);
    }

    /** No labels; racks of equal size where N allows; unequal racks (round-robin and lopsided). */
    private static List<List<Node>> labellings(int n) {
        List<Integer> ids = IntStream.range(0, n).mapToObj(i -> 10 + i * 7).toList();
        List<List<Node>> labellings = new ArrayList<>();
        labellings.add(ids.stream().map(Node::of).toList());
        for (int racks = 2; racks <= 3; racks++) {
            int r = racks;
            labellings.add(IntStream.range(0, n).mapToObj(i -> Node.of(ids.get(i), "rack-" + (i % r))).toList());
        }
        labellings.add(IntStream.range(0, n).mapToObj(i -> Node.of(ids.get(i), i == n - 1 ? "z-small" : "a-big"))
                .toList());
        return labellings;
    }

    private static boolean unequalRacks(List<Node> nodes) {
        if (nodes.get(0).rack().isEmpty()) {
            return false;
        }
        Map<Object, Long> sizes = nodes.stream().collect(java.util.stream.Collectors.groupingBy(Node::rack,
                java.util.stream.Collectors.counting()));
        return sizes.values().stream().distinct().count() > 1;
    }

    private static Set<Integer> ids(List<Node> nodes) {
        Set<Integer> ids = new HashSet<>();
        nodes.forEach(node -> ids.add(node.id()));
        return ids;
    }

    private static String rackOf(List<Node> nodes, int id) {
        return nodes.stream().filter(node -> node.id() == id).findFirst().orElseThrow().rack().orElseThrow();
    }

    private static int[] counts(List<Node> nodes, List<List<Integer>> placement, boolean leadersOnly) {
        Map<Integer, int[]> load = ReplicaPlacement.loadByNode(placement);
        return nodes.stream().mapToInt(node -> {
            int[] c = load.get(node.id());
            return c == null ? 0 : c[leadersOnly ? 1 : 0];
        }).toArray();
    }

    private static int max(int[] values) {
        return java.util.Arrays.stream(values).max().orElse(0);
    }

    private static int min(int[] values) {
        return java.util.Arrays.stream(values).min().orElse(0);
    }
}
