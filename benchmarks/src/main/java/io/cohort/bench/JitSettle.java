package io.cohort.bench;

/**
 * The end of a warm-up: waits until the nodes' JIT compilers are idle. A fixed warm-up was not
 * enough on a loaded 2-core machine (three node JVMs and the driver compiling at once): the C2
 * compiler threads still used 20-30% of the nodes' CPU 80 s into a run, so the first windows
 * measured code still being compiled and later ones did not, and the figures depended on what ran
 * before them (issue 15).
 */
final class JitSettle {
    /** Idle: every node's compiler threads used less than this share of one core over a check. */
    static final int IDLE_JIT_CPU_PCT = 5;
    private static final long CHECK_MS = 5_000;

    private JitSettle() {
    }

    /**
     * Idle checks in a row that end the wait. One was not enough: a secured cluster (more code: TLS,
     * the authorizer) passed one quiet check and then compiled at 28% of a core on its leader during
     * the measured window (run 20261202-075900, round 1: 0.64 of plaintext against 0.93 and 0.80).
     */
    static final int IDLE_CHECKS = 2;

    /** Waits (at most {@code maxS} seconds) until the JIT is idle on every node; returns the seconds waited. */
    static long await(Target target, int maxS) {
        long start = System.nanoTime();
        long deadline = start + maxS * 1_000_000_000L;
        int idleInARow = 0;
        while (System.nanoTime() < deadline) {
            NodeCost.Snapshot a = NodeCost.take(target);
            Machine.sleep(CHECK_MS);
            Object pct = NodeCost.between(a, NodeCost.take(target), 0).get("jit_cpu_pct");
            if (pct instanceof java.util.List<?> perNode
                    && perNode.stream().allMatch(p -> ((Number) p).longValue() < IDLE_JIT_CPU_PCT)) {
                if (++idleInARow == IDLE_CHECKS) {
                    return (System.nanoTime() - start) / 1_000_000_000L;
                }
                continue;
            }
            idleInARow = 0;
            Machine.log(target.system() + ": JIT compilers still busy (% of a core per node): " + pct);
        }
        Machine.log(target.system() + ": JIT compilers still busy after " + maxS + " s more warm-up; measuring anyway");
        return maxS;
    }
}
