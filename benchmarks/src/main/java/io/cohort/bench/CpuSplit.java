package io.cohort.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code --driver-cpus}: the driver on some CPUs, every node (Cohort's and Kafka's) on the others,
 * through Linux's {@code taskset}. On a machine the driver shares with the nodes, whatever the driver
 * spends per request (TLS at the client end, say) is taken from the nodes; with the CPUs split, it is
 * not, which is as close as one machine gets to a driver on another machine. The nodes then have fewer
 * CPUs than the machine, so absolute figures are not comparable with an unsplit run: compare within
 * the run.
 */
final class CpuSplit {
    private final String driverCpus;
    private final String nodeCpus;

    private CpuSplit(String driverCpus, String nodeCpus) {
        this.driverCpus = driverCpus;
        this.nodeCpus = nodeCpus;
    }

    /**
     * The split for {@code driverCpus} (a comma-separated list of CPU numbers) on a machine of
     * {@code cpuCount} CPUs: the nodes get every CPU the driver does not.
     *
     * @throws IllegalArgumentException on a malformed list, a CPU the machine does not have, or a list
     *         that leaves the nodes no CPU
     */
    static CpuSplit of(String driverCpus, int cpuCount) {
        TreeSet<Integer> driver = new TreeSet<>();
        for (String part : driverCpus.split(",")) {
            int cpu;
            try {
                cpu = Integer.parseInt(part.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--driver-cpus: '" + part.trim() + "' is not a CPU number");
            }
            if (cpu < 0 || cpu >= cpuCount) {
                throw new IllegalArgumentException("--driver-cpus: CPU " + cpu + " does not exist (this machine has "
                        + cpuCount + ": 0-" + (cpuCount - 1) + ")");
            }
            driver.add(cpu);
        }
        List<String> nodes = new ArrayList<>();
        for (int cpu = 0; cpu < cpuCount; cpu++) {
            if (!driver.contains(cpu)) {
                nodes.add(String.valueOf(cpu));
            }
        }
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("--driver-cpus " + driverCpus + " leaves the nodes no CPU");
        }
        List<String> driverList = driver.stream().map(String::valueOf).toList();
        return new CpuSplit(String.join(",", driverList), String.join(",", nodes));
    }

    /** The words before a node's {@code java}: taskset execs it, so the node's pid stays the java process's. */
    List<String> nodeCommandPrefix() {
        return List.of("taskset", "-c", nodeCpus);
    }

    /**
     * Moves every thread of this JVM to the driver's CPUs; threads started later inherit it from the
     * thread that starts them.
     */
    void pinDriver() throws IOException, InterruptedException {
        try {
            Machine.run(List.of("taskset", "-a", "-cp", driverCpus, String.valueOf(ProcessHandle.current().pid())), 10);
        } catch (IOException e) {
            throw new IOException("--driver-cpus: could not pin the driver to CPUs " + driverCpus
                    + " with taskset (util-linux; is it on the PATH?): " + e.getMessage(), e);
        }
        Machine.log("driver on CPUs " + driverCpus + ", every node on CPUs " + nodeCpus);
    }

    /** Adds {@code node_cpus} and {@code driver_cpus} to a result line's {@code cluster} description. */
    void describeInto(Map<String, Object> cluster) {
        cluster.put("node_cpus", nodeCpus);
        cluster.put("driver_cpus", driverCpus);
    }
}
