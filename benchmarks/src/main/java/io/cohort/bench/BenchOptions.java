package io.cohort.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The settings of one benchmark run, resolved from the command line (see {@link BenchMain}). */
record BenchOptions(
        Path serverJar,
        Path workDir,
        Path outDir,
        Path kafkaClasspath,
        boolean vsKafka,
        boolean kafkaOnly,
        boolean quick,
        boolean keep,
        String gitRev,
        List<Integer> partitionCounts,
        Map<String, String> cohortSettings,
        List<String> cohortJvmArgs,
        List<String> kafkaJvmArgs,
        int warmupS,
        int measureS,
        int cWarmupS,
        int jitSettleMaxS,
        int idleS,
        List<Integer> cs,
        List<Integer> ns,
        int rebalanceSettleMs,
        int rebalanceTimeoutS,
        long memberPollMs,
        int kills,
        int kafkaKills,
        /** {@code --restarts}: the restart workload's whole-cluster restarts, per system. */
        int restarts,
        int failoverCommitters,
        int preKillS,
        int observeS,
        int killSettleS,
        int catchUpTimeoutS,
        int groups,
        int offsetsPerGroup,
        int scaleThreads,
        int scaleClients,
        int scaleVerify,
        String scaleHeap,
        boolean tls,
        boolean vsSecure,
        Set<String> securedParts,
        int nodes,
        List<String> protocols,
        int rounds,
        boolean interleave,
        Map<String, String> variantSettings,
        List<String> variantJvmArgs,
        /** {@code --vs-server-jar}: the variant cluster's node jar (another build), or null: the run's own. */
        Path variantServerJar,
        int commitGapMs,
        /**
         * {@code --registry-topics}: heartbeat with {@code --protocol consumer}: topics created in the
         * registry before the run, none matched by the members' regex subscription (0: members
         * subscribe by name, no regex).
         */
        int registryTopics,
        /** {@code --driver-cpus}: the driver's and the nodes' CPUs, or null (all share every CPU). */
        CpuSplit cpuSplit) {

    /** Whether a {@code --vs-set} / {@code --vs-jvm-opt} / {@code --vs-server-jar} variant cluster runs beside the plain one. */
    boolean hasVariant() {
        return !variantSettings.isEmpty() || !variantJvmArgs.isEmpty() || variantServerJar != null;
    }

    /** The variant's difference from the plain cluster, for the table's title. */
    String variantDescription() {
        List<String> parts = new ArrayList<>();
        if (!variantSettings.isEmpty()) {
            parts.add(variantSettings.toString());
        }
        if (!variantJvmArgs.isEmpty()) {
            parts.add("JVM " + String.join(" ", variantJvmArgs));
        }
        if (variantServerJar != null) {
            parts.add("node jar " + variantServerJar);
        }
        return String.join(", ", parts);
    }

    /** The words before every node's java command: taskset with the nodes' CPUs, or none. */
    List<String> nodeCommandPrefix() {
        return cpuSplit == null ? List.of() : cpuSplit.nodeCommandPrefix();
    }

    boolean runCohort() {
        return !kafkaOnly;
    }

    /** Whether the secured system of {@code --vs-secure} has {@code part} ({@link BenchMain#SECURED_PARTS}). */
    boolean securedWith(String part) {
        return securedParts.contains(part);
    }

    boolean runKafka() {
        return vsKafka || kafkaOnly;
    }
}
