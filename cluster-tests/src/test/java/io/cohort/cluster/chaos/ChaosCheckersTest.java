package io.cohort.cluster.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checkers find what they are meant to find, on small hand-made histories. */
class ChaosCheckersTest {
    private final List<Op> ops = new ArrayList<>();
    private long clock;

    private void op(String process, String type, String function, String key, long value, int generation,
            String detail) {
        ops.add(new Op(clock += 1_000_000, process, type, function, key, value, generation, detail));
    }

    private void commit(String process, String key, long value, String outcome) {
        op(process, Op.INVOKE, "commit", key, value, 1, "");
        op(process, outcome, "commit", key, value, 1, outcome.equals(Op.FAIL) ? "ILLEGAL_GENERATION" : "");
    }

    private void fetch(String process, String key, long value) {
        op(process, Op.INVOKE, "fetch", key, -1, -1, "");
        op(process, Op.OK, "fetch", key, value, -1, "");
    }

    @Test
    void testALinearizableHistoryPasses() {
        fetch("r", "g/t:0", -1);
        commit("w", "g/t:0", 1, Op.OK);
        fetch("r", "g/t:0", 1);
        commit("w", "g/t:0", 2, Op.INFO);
        fetch("r", "g/t:0", 2); // an unknown commit may have taken effect
        commit("w", "g/t:0", 3, Op.OK);
        fetch("r", "g/t:0", 3);
        assertThat(ChaosCheckers.linearizable(ops, Map.of("g/t:0", 3L), clock + 1)).isEmpty();
        assertThat(ChaosCheckers.lostAcknowledged(ops, Map.of("g/t:0", 3L))).isZero();
    }

    @Test
    void testAStaleReadALostAckAndAnInversionAreFound() {
        commit("w", "g/t:0", 1, Op.OK);
        commit("w", "g/t:0", 2, Op.OK);
        fetch("r", "g/t:0", 1); // stale: 2 was acknowledged before
        assertThat(ChaosCheckers.linearizable(ops, Map.of(), clock + 1)).singleElement()
                .asString().contains("stale read");

        assertThat(ChaosCheckers.linearizable(ops.subList(0, 4), Map.of("g/t:0", 1L), clock + 1))
                .anyMatch(v -> v.contains("acknowledged commit was lost"));
        assertThat(ChaosCheckers.lostAcknowledged(ops, Map.of("g/t:0", 1L))).isEqualTo(1);

        ops.clear();
        commit("w", "g/t:0", 1, Op.INFO);
        commit("w", "g/t:0", 2, Op.INFO);
        fetch("r", "g/t:0", 2);
        fetch("r", "g/t:0", 1); // went back
        assertThat(ChaosCheckers.linearizable(ops, Map.of(), clock + 1)).singleElement()
                .asString().contains("went back");
    }

    @Test
    void testReadingARefusedOrUnwrittenValueIsFound() {
        commit("w", "g/t:0", 1, Op.FAIL);
        fetch("r", "g/t:0", 1);
        fetch("r", "g/t:0", 7);
        assertThat(ChaosCheckers.linearizable(ops, Map.of(), clock + 1))
                .anyMatch(v -> v.contains("refused")).anyMatch(v -> v.contains("no commit wrote"));
    }

    @Test
    void testDoubleOwnershipInOneGenerationIsFoundButNotAcrossGenerations() {
        op("m1", Op.EVENT, "assigned", "g", -1, 3, "[t:0, t:1] of [t:0, t:1]");
        op("m2", Op.EVENT, "assigned", "g", -1, 3, "[t:1] of [t:1]");
        Map<String, Integer> overlaps = new HashMap<>();
        assertThat(ChaosCheckers.ownership(ops, overlaps)).hasSize(2)
                .anyMatch(v -> v.contains("same generation")).anyMatch(v -> v.contains("assigned to both"));

        ops.clear();
        op("m1", Op.EVENT, "assigned", "g", -1, 3, "[t:0] of [t:0]");
        op("m2", Op.EVENT, "assigned", "g", -1, 4, "[t:0] of [t:0]"); // m1 fenced, not aware yet
        op("m1", Op.EVENT, "lost", "g", -1, -1, "[t:0]");
        op("m1", Op.EVENT, "assigned", "g", -1, 2, "[] of []");
        assertThat(ChaosCheckers.ownership(ops, overlaps)).singleElement().asString().contains("back to 2");
        assertThat(overlaps).containsEntry("g/t:0", 1);
    }

    @Test
    void testConsumerProtocolGroupsMayNotOverlapAtAllUnlessThePreviousOwnerWasFenced() {
        // Member epochs differ between members: m2 at epoch 5 taking t:0 while m1 (epoch 4) still
        // owns it, and m1 later revoking it normally, is a violation of revoke-before-assign.
        op("m1", Op.EVENT, "assigned", "k", -1, 4, "[t:0, t:1] of [t:0, t:1]");
        op("m2", Op.EVENT, "assigned", "k", -1, 5, "[t:0] of [t:0]");
        op("m1", Op.EVENT, "revoked", "k", -1, 4, "[t:0]");
        Map<String, Integer> overlaps = new HashMap<>();
        assertThat(ChaosCheckers.ownership(ops, overlaps, Set.of("k"))).singleElement().asString()
                .contains("k/t:0 assigned to m2").contains("later revokes it");
        // The same history in a classic group: an overlap across generations, counted, not flagged.
        assertThat(ChaosCheckers.ownership(ops, overlaps, Set.of())).isEmpty();
        assertThat(overlaps).containsEntry("k/t:0", 1);

        // Revoke first, then assign: fine; and the fenced owner that reports the partition lost is
        // the one legal overlap (counted).
        ops.clear();
        overlaps.clear();
        op("m1", Op.EVENT, "assigned", "k", -1, 4, "[t:0, t:1] of [t:0, t:1]");
        op("m1", Op.EVENT, "revoked", "k", -1, 4, "[t:0]");
        op("m2", Op.EVENT, "assigned", "k", -1, 5, "[t:0] of [t:0]");
        op("m3", Op.EVENT, "assigned", "k", -1, 7, "[t:1] of [t:1]");
        op("m1", Op.EVENT, "lost", "k", -1, -1, "[t:1]");
        assertThat(ChaosCheckers.ownership(ops, overlaps, Set.of("k"))).isEmpty();
        assertThat(overlaps).containsOnly(Map.entry("k/t:1", 1));

        // An owner that never gives the partition up.
        ops.clear();
        op("m1", Op.EVENT, "assigned", "k", -1, 4, "[t:0] of [t:0]");
        op("m2", Op.EVENT, "assigned", "k", -1, 5, "[t:0] of [t:0]");
        assertThat(ChaosCheckers.ownership(ops, overlaps, Set.of("k"))).singleElement().asString()
                .contains("never gives it up");
    }

    @Test
    void testAFencedCommitThatSucceedsIsFoundAndNoProbeIsAViolation() {
        Map<String, Integer> summary = new HashMap<>();
        assertThat(ChaosCheckers.fencing(ops, summary)).singleElement().asString().contains("not tested");

        op("probe", Op.INVOKE, "fence-commit", "p0", 1, 1, "");
        op("probe", Op.FAIL, "fence-commit", "p0", 1, 1, "UNKNOWN_MEMBER_ID");
        op("probe", Op.INVOKE, "fence-commit", "p1", 1, 1, "");
        op("probe", Op.OK, "fence-commit", "p1", 1, 1, "NONE");
        assertThat(ChaosCheckers.fencing(ops, summary)).singleElement().asString().contains("had expired");
    }

    @Test
    void testFailoverCountsOnlyAcknowledgementsAfterTheKilledNodesWereGone() {
        commit("w", "g/t:0", 1, Op.OK);
        long killSent = clock;
        commit("w", "g/t:0", 2, Op.OK); // acknowledged by the node before it died: not a failover
        commit("w", "h/t:0", 1, Op.OK); // another partition's group: not affected
        long gone = clock;
        commit("w", "h/t:0", 2, Op.OK);
        commit("w", "g/t:0", 3, Op.OK); // the first after the kill took effect
        long firstAfter = clock;
        java.util.function.ToIntFunction<String> partitionOf = group -> group.equals("g") ? 0 : 1;

        List<ChaosCheckers.Failover> failovers = ChaosCheckers.failoverTimes(ops, List.of(
                new Nemesis.Kill(killSent, gone, 2, Set.of(0), "KILL_LEADER"),
                new Nemesis.Kill(killSent, gone, -1, Set.of(0, 1), "RESTART_ALL"),
                new Nemesis.Kill(killSent, gone, 3, Set.of(), "KILL_RANDOM"),
                new Nemesis.Kill(firstAfter, firstAfter, 1, Set.of(0), "KILL_LEADER")), partitionOf);

        assertThat(failovers).hasSize(3); // a node that led nothing is not measured
        assertThat(failovers.get(0).gapMs()).isEqualTo((firstAfter - killSent) / 1_000_000);
        assertThat(failovers.get(0).wholeCluster()).isFalse();
        assertThat(failovers.get(0).longestWait()).isFalse();
        // Every partition: the other partition's group answered first.
        assertThat(failovers.get(1).gapMs()).isEqualTo((firstAfter - 2_000_000 - killSent) / 1_000_000);
        assertThat(failovers.get(1).wholeCluster()).isTrue();
        assertThat(failovers.get(1).label()).contains("every node", "RESTART_ALL");
        assertThat(failovers.get(2).gapMs()).isEqualTo(-1); // nothing acknowledged after it
    }

    @Test
    void testADiskFullNodeCountsTheLongestWaitUntilItsProcessWasGone() {
        long filled = clock;
        commit("w", "g/t:0", 1, Op.OK); // still served after the fill: 2 ms
        clock += 5_000_000;
        commit("w", "g/t:0", 2, Op.OK); // the successor, before the process was gone: 7 ms wait
        commit("w", "g/t:0", 3, Op.OK);
        long gone = clock;
        commit("w", "g/t:0", 4, Op.OK); // the first after: 2 ms

        List<ChaosCheckers.Failover> failovers = ChaosCheckers.failoverTimes(ops,
                List.of(new Nemesis.Kill(filled, gone, 1, Set.of(0), "DISK_FULL")), group -> 0);

        assertThat(failovers).singleElement().extracting(ChaosCheckers.Failover::gapMs).isEqualTo(7L);
        assertThat(failovers.get(0).longestWait()).isTrue();
    }

    @Test
    void testTheFailoverPercentilesCountOnlyKillsNotFullRestartsOrNodesThatStoppedThemselves() {
        commit("w", "g/t:0", 1, Op.OK);
        long firstKill = clock;
        clock += 4_000_000;
        commit("w", "g/t:0", 2, Op.OK); // 6 ms after the first kill
        long filled = clock;
        clock += 9_000_000;
        commit("w", "g/t:0", 3, Op.OK); // an 11 ms wait after the fill
        long restart = clock;
        clock += 20_000_000;
        commit("w", "g/t:0", 4, Op.OK);

        List<ChaosCheckers.Failover> failovers = ChaosCheckers.failoverTimes(ops, List.of(
                new Nemesis.Kill(firstKill, firstKill, 2, Set.of(0), "KILL_LEADER"),
                new Nemesis.Kill(filled, filled, 1, Set.of(0), "DISK_FULL"),
                new Nemesis.Kill(restart, restart, -1, Set.of(0), "RESTART_ALL")), group -> 0);

        assertThat(failovers).extracting(ChaosCheckers.Failover::gapMs).containsExactly(6L, 11L, 22L);
        assertThat(ChaosCheckers.killGaps(failovers)).containsExactly(6L);
    }
}
