package io.cohort.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The benchmark driver behind scripts/bench.sh: runs the workloads of docs/BENCHMARKS.md against a
 * fresh 3-node Cohort cluster and, with {@code --vs-kafka}, the same workload in the same run against
 * a fresh 3-node Kafka 4.4.0 KRaft cluster (one cluster at a time); prints one JSON line per result,
 * appends it to {@code <out>/bench-<workload>.jsonl}, then prints the Cohort/Kafka ratio table and
 * writes SVG charts. Exits 1 if any workload failed or lost an acknowledged commit.
 */
@Command(name = "bench.sh", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Cohort benchmarks (docs/BENCHMARKS.md), optionally side by side with Apache Kafka.")
public final class BenchMain implements Callable<Integer> {
    static final String RUN_ID = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));

    @Parameters(index = "0", description = "commit | fetch | heartbeat | rebalance | failover | restart | scale | roll | all (fetch, heartbeat, restart, roll: not in all)")
    String workload;

    @Option(names = "--vs-kafka", description = "Also run each workload (but scale) against a 3-node Kafka 4.4.0 KRaft cluster.")
    boolean vsKafka;

    @Option(names = "--kafka-only", description = "Run only the Kafka side (re-measure the anchor).")
    boolean kafkaOnly;

    @Option(names = "--quick", description = "Smoke run: 5 s warm-up, 5 s windows, N=10,100, 1 kill, 10,000 scale "
            + "groups; results go to bench-results/tmp/ unless --out is given.")
    boolean quick;

    @Option(names = "--warmup-s", description = "JIT warm-up per system and workload before measuring (default 90; quick 5).")
    Integer warmupS;

    @Option(names = "--measure-s", description = "commit: measured seconds per C (default 20; quick 5).")
    Integer measureS;

    @Option(names = "--c-warmup-s", description = "commit: seconds of load with each C's fresh committers before its window (default 5; quick 2).")
    Integer cWarmupS;

    @Option(names = "--jit-settle-max-s", description = "commit: after --warmup-s, go on warming up until the nodes' JIT "
            + "compilers are idle (< 5% of a core each), at most this long (default 120; quick 0).")
    Integer jitSettleMaxS;

    @Option(names = "--idle-s", description = "commit: measure the nodes' CPU and threads this long without a client "
            + "first (default 10; quick 0; 0: skip).")
    Integer idleS;

    @Option(names = "--cs", description = "commit: committer counts (default 1,8,32).")
    String cs = "1,8,32";

    @Option(names = "--ns", description = "rebalance: member counts (default 10,100,500; quick 10,100).")
    String ns;

    @Option(names = "--rebalance-settle-ms", description = "rebalance: pause between the initial join and the extra member (default 2000).")
    int rebalanceSettleMs = 2000;

    @Option(names = "--rebalance-timeout-s", description = "rebalance: give up on a join after this long (default 180).")
    int rebalanceTimeoutS = 180;

    @Option(names = "--protocol", description = "rebalance: the group protocol, classic, consumer (KIP-848) or both "
            + "(classic, then consumer, on the same cluster; default classic). heartbeat: classic (Heartbeat) or "
            + "consumer (ConsumerGroupHeartbeat).")
    String protocol = "classic";

    @Option(names = "--member-poll-ms", description = "rebalance: each member polls every this many ms (default 100).")
    long memberPollMs = 100;

    @Option(names = "--commit-gap-ms", description = "commit: in the measured windows each committer waits this many "
            + "ms after every acknowledgement before its next commit (default 0: at once). A light load, as consumers "
            + "that commit now and then put on a cluster that is idle in between; the JIT warm-up runs without it.")
    int commitGapMs;

    @Option(names = "--registry-topics", description = "heartbeat with --protocol consumer: create this many topics "
            + "(one partition each) before the run and subscribe each member by a regex that matches none of them, "
            + "so every heartbeat resolves a regex against a registry of that size (default 0: subscribe by name).")
    int registryTopics;

    @Option(names = "--kills", description = "failover: SIGKILLs of the Cohort coordinator (default 5; quick 1).")
    Integer kills;

    @Option(names = "--kafka-kills", description = "failover: SIGKILLs of the Kafka coordinator (default 3; quick 1).")
    Integer kafkaKills;

    @Option(names = "--restarts", description = "restart: whole-cluster restarts, each system (default 3; quick 1).")
    Integer restarts;

    @Option(names = "--failover-committers", description = "failover, restart: committers (default 8).")
    int failoverCommitters = 8;

    @Option(names = "--pre-kill-s", description = "failover, restart: timeline recorded before each kill (default 5).")
    int preKillS = 5;

    @Option(names = "--observe-s", description = "failover, restart: longest wait for every committer to commit again (default 60).")
    int observeS = 60;

    @Option(names = "--kill-settle-s", description = "failover, restart: pause after restarted nodes caught up (default 10; quick 2).")
    Integer killSettleS;

    @Option(names = "--catch-up-timeout-s", description = "failover, scale: longest wait for a restarted node to catch up (default 180).")
    int catchUpTimeoutS = 180;

    @Option(names = "--groups", description = "scale: groups (default 100000; quick 10000).")
    Integer groups;

    @Option(names = "--offsets-per-group", description = "scale: committed partitions per group (default 10).")
    int offsetsPerGroup = 10;

    @Option(names = "--scale-threads", description = "scale: committing threads (default 32).")
    int scaleThreads = 32;

    @Option(names = "--scale-clients", description = "scale: CohortClients the threads share (default 4).")
    int scaleClients = 4;

    @Option(names = "--scale-verify", description = "scale: groups read back and checked after the restart (default 1000).")
    int scaleVerify = 1000;

    @Option(names = "--scale-heap", description = "scale: node heap (default -Xmx1g).")
    String scaleHeap = "-Xmx1g";

    @Option(names = "--partitions", description = "Cohort offsets partitions (default 1, the node's default); a list "
            + "(e.g. 1,3,6,12,50) runs each Cohort workload once per count, each on a fresh cluster, and prints the "
            + "partition sweep table.")
    String partitions = "1";

    @Option(names = "--nodes", description = "Cohort nodes (default 3); with --set offsets.replication.factor=3 "
            + "each partition lives on 3 of them.")
    int nodes = 3;

    @Option(names = "--set", description = "A Cohort node setting, key=value (repeatable), e.g. --set raft.election.timeout.min.ms=300.")
    List<String> sets = new ArrayList<>();

    @Option(names = "--tls", description = "Cohort with TLS on the client ports and client certificates required "
            + "(a throwaway CA made for the run; Raft-port TLS too if given with --set raft.tls.*).")
    boolean tls;

    @Option(names = "--vs-secure", description = "Also run each Cohort workload (but scale) against a secured cluster: "
            + "mutual TLS on the client and Raft ports, the authorizer on, the workload's principal allowed by an ACL; "
            + "prints the secured/plaintext table (docs/SECURITY.md's cost).")
    boolean vsSecure;

    /** What {@code --vs-secure}'s secured cluster adds to the other one's client ports. */
    static final List<String> SECURED_PARTS = List.of("raft-tls", "authorizer");

    @Option(names = "--secure-parts", description = "What --vs-secure's secured cluster adds, comma-separated, of "
            + "raft-tls (mutual TLS on the Raft ports) and authorizer (on, with an ACL allowing the workload) "
            + "(default both). With --tls, to split security's cost: --tls --vs-secure --secure-parts raft-tls.")
    String secureParts = String.join(",", SECURED_PARTS);

    @Option(names = "--rounds", description = "Run each comparison (--vs-kafka, --vs-secure) this many times, "
            + "alternating which system goes first, each on fresh clusters; the table gives every round and the "
            + "median ratio (default 1). For figures that drift between runs on a shared machine.")
    int rounds = 1;

    @Option(names = "--interleave", description = "commit only, with --vs-secure, --vs-set or --vs-kafka: start the compared "
            + "clusters together, warm each up, then alternate their measured windows (--rounds pairs, the order "
            + "reversed every other round) on the same clusters. A shared machine's speed moves by up to 1.8x "
            + "within seconds; adjacent windows see the same machine, windows of separate runs do not.")
    boolean interleave;

    @Option(names = "--vs-set", description = "Also run each Cohort workload (but scale and roll) on a variant "
            + "cluster: the run's settings plus this one, key=value (repeatable); prints the variant/cohort table. "
            + "With --interleave, an A/B of a setting whose windows alternate on the same clusters, e.g. "
            + "--vs-set raft.batch.linger.max.us=0 --interleave --rounds 6.")
    List<String> vsSets = new ArrayList<>();

    @Option(names = "--vs-jvm-opt", description = "Also run each Cohort workload (but scale and roll) on a variant "
            + "cluster whose nodes get this extra JVM option (repeatable; combines with --vs-set); prints the "
            + "variant/cohort table. With --interleave, an A/B of a JVM option on the same machine moments apart.")
    List<String> vsJvmOpts = new ArrayList<>();

    @Option(names = "--vs-server-jar", description = "Also run each Cohort workload (but scale and roll) on a variant "
            + "cluster of another build's node jar (combines with --vs-set and --vs-jvm-opt); prints the variant/cohort "
            + "table. With --interleave, two builds compared in alternating windows on the same machine, e.g. a jar "
            + "built from an earlier commit in a git worktree (mvn -pl coordinator-server -am package -DskipTests).")
    Path vsServerJar;

    @Option(names = "--driver-cpus", description = "Run the driver on these CPUs (comma-separated numbers) and "
            + "every node, Cohort's and Kafka's, on the others (Linux taskset): a driver that takes no CPU from the "
            + "nodes, as one on another machine would. Compare within the run: the nodes have fewer CPUs.")
    String driverCpus;

    @Option(names = "--cohort-jvm-opt", description = "An extra JVM option for every Cohort node (repeatable).")
    List<String> cohortJvmOpts = new ArrayList<>();

    @Option(names = "--kafka-jvm-opts", description = "The Kafka nodes' JVM options, space-separated (default: "
            + "kafka-server-start.sh's: -Xmx1g -Xms1g -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "
            + "-XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true).")
    String kafkaJvmOpts;

    @Option(names = "--server-jar", description = "The Cohort node jar (default coordinator-server/target/cohort-server.jar).")
    Path serverJar = Path.of("coordinator-server/target/cohort-server.jar");

    @Option(names = "--kafka-classpath", description = "File holding the Kafka broker class path (default benchmarks/target/kafka.classpath).")
    Path kafkaClasspath = Path.of("benchmarks/target/kafka.classpath");

    @Option(names = "--work-dir", description = "Where the clusters' files go (default benchmarks/target/bench-runs).")
    Path workDir = Path.of("benchmarks/target/bench-runs");

    @Option(names = "--out", description = "Where results and charts go (default bench-results; quick: bench-results/tmp).")
    Path out;

    @Option(names = "--keep", description = "Keep every cluster's data and logs (they are kept anyway when something fails).")
    boolean keep;

    @Option(names = "--git-rev", description = "The revision measured, for the result lines (bench.sh passes it).")
    String gitRev = "unknown";

    public static void main(String[] args) {
        // bench.sh passes --git-rev first; one given on the command line after it wins.
        int code = new CommandLine(new BenchMain()).setOverwrittenOptionsAllowed(true).execute(args);
        System.exit(code);
    }

    private BenchOptions options() {
        Map<String, String> settings = new LinkedHashMap<>();
        // The rebalance workload's "initial rebalance delay 0" (Kafka's is set in its server.properties).
        settings.put("group.initial.rebalance.delay.ms", "0");
        settings.putAll(keyValues(sets, "--set"));
        List<String> kafkaArgs = kafkaJvmOpts == null ? KafkaTarget.defaultJvmArgs()
                : List.of(kafkaJvmOpts.trim().split("\\s+"));
        return new BenchOptions(serverJar.toAbsolutePath(), workDir.toAbsolutePath(),
                (out != null ? out : quick ? Path.of("bench-results", "tmp") : Path.of("bench-results")).toAbsolutePath(),
                kafkaClasspath.toAbsolutePath(), vsKafka, kafkaOnly, quick, keep, gitRev, partitionCounts(), settings,
                List.copyOf(cohortJvmOpts), kafkaArgs,
                pick(warmupS, 90, 5), pick(measureS, 20, 5), pick(cWarmupS, 5, 2), pick(jitSettleMaxS, 120, 0),
                pick(idleS, 10, 0),
                Machine.intList(cs), Machine.intList(ns != null ? ns : quick ? "10,100" : "10,100,500"),
                rebalanceSettleMs, rebalanceTimeoutS, memberPollMs,
                pick(kills, 5, 1), pick(kafkaKills, 3, 1), pick(restarts, 3, 1), failoverCommitters, preKillS, observeS, pick(killSettleS, 10, 2), catchUpTimeoutS,
                pick(groups, 100_000, 10_000), offsetsPerGroup, scaleThreads, scaleClients, scaleVerify, scaleHeap, tls, vsSecure, securedParts(), nodes, protocols(), rounds, interleave, keyValues(vsSets, "--vs-set"),
                List.copyOf(vsJvmOpts), vsServerJar == null ? null : vsServerJar.toAbsolutePath(), commitGapMs, registryTopics,
                driverCpus == null ? null : cpuSplit(driverCpus));
    }

    private CpuSplit cpuSplit(String cpus) {
        try {
            return CpuSplit.of(cpus, Runtime.getRuntime().availableProcessors());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
    }

    private Map<String, String> keyValues(List<String> pairs, String option) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String s : pairs) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new CommandLine.ParameterException(new CommandLine(this), option + " needs key=value, got " + s);
            }
            out.put(s.substring(0, eq), s.substring(eq + 1));
        }
        return out;
    }

    private Set<String> securedParts() {
        Set<String> parts = new LinkedHashSet<>();
        for (String part : secureParts.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            if (!SECURED_PARTS.contains(part.trim())) {
                throw new CommandLine.ParameterException(new CommandLine(this),
                        "--secure-parts: unknown part '" + part.trim() + "' (known: " + SECURED_PARTS + ")");
            }
            parts.add(part.trim());
        }
        return Collections.unmodifiableSet(parts);
    }

    private List<String> protocols() {
        return switch (protocol) {
            case "classic" -> List.of(Target.CLASSIC);
            case "consumer" -> List.of(Target.CONSUMER);
            case "both" -> List.of(Target.CLASSIC, Target.CONSUMER);
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "--protocol must be classic, consumer or both; got " + protocol);
        };
    }

    private List<Integer> partitionCounts() {
        List<Integer> counts = Machine.intList(partitions);
        if (counts.isEmpty() || counts.stream().anyMatch(p -> p < 1)) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--partitions needs positive counts, e.g. 1 or 1,3,6,12,50; got " + partitions);
        }
        return List.copyOf(counts);
    }

    private int pick(Integer given, int full, int quickDefault) {
        return given != null ? given : quick ? quickDefault : full;
    }

    @Override
    public Integer call() throws Exception {
        List<String> workloads = switch (workload) {
            case "all" -> List.of(CommitWorkload.NAME, RebalanceWorkload.NAME, FailoverWorkload.NAME, ScaleWorkload.NAME);
            case "commit", "fetch", "heartbeat", "rebalance", "failover", "restart", "scale", "roll" -> List.of(workload);
            default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "workload must be commit, fetch, heartbeat, rebalance, failover, restart, scale, roll or all; got "
                    + workload);
        };
        if (workloads.contains(CommitWorkload.HEARTBEAT) && (kafkaOnly || vsKafka)) {
            // Kafka's consumer heartbeats from its own thread on its own timer: there is no synchronous
            // call of its API to time, and the raw protocol is not what its users run.
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "the heartbeat workload is Cohort only: compare with --vs-set or --vs-jvm-opt, not --vs-kafka");
        }
        if (workloads.contains(CommitWorkload.HEARTBEAT) && protocols().size() != 1) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "the heartbeat workload measures one protocol per run: --protocol classic or consumer");
        }
        if (registryTopics < 0 || registryTopics > 0 && !(workloads.equals(List.of(CommitWorkload.HEARTBEAT))
                && protocols().equals(List.of(Target.CONSUMER)))) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--registry-topics is a count (>= 0) for the heartbeat workload with --protocol consumer");
        }
        BenchOptions o = options();
        if (o.runCohort() && !Files.isRegularFile(o.serverJar())) {
            throw new IllegalStateException("no Cohort node jar at " + o.serverJar() + ": build it (scripts/bench.sh does)");
        }
        if (o.variantServerJar() != null && !Files.isRegularFile(o.variantServerJar())) {
            throw new IllegalStateException("no node jar at " + o.variantServerJar() + " (--vs-server-jar)");
        }
        if (o.runKafka() && !Files.isRegularFile(o.kafkaClasspath())) {
            throw new IllegalStateException("no Kafka class path file at " + o.kafkaClasspath()
                    + ": scripts/bench.sh --vs-kafka resolves it from benchmarks/kafka/pom.xml");
        }
        if (o.interleave() && (workloads.stream().noneMatch(CommitWorkload.Op::isOne) || comparedSystems(o).size() < 2)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--interleave compares systems on the "
                    + "commit, fetch or heartbeat workload: give it one of them and --vs-secure, --vs-set or --vs-kafka");
        }
        if (o.cpuSplit() != null) {
            o.cpuSplit().pinDriver();
        }
        Files.createDirectories(o.workDir());
        Results results = new Results(o);
        Machine.log("run " + RUN_ID + (o.quick() ? " (QUICK smoke run: not a measurement)" : "") + ": " + workloads
                + (o.runKafka() ? (o.runCohort() ? ", cohort and kafka" : ", kafka only") : ", cohort only")
                + "; load average " + Machine.loadAvg() + "; results -> " + o.outDir());
        // Compile the machine-speed probe before any window carries its figure.
        Machine.log(String.format("machine speed probe: %.0f, %.0f, %.0f ms", Machine.speedProbeMs(),
                Machine.speedProbeMs(), Machine.speedProbeMs()));
        for (String w : workloads) {
            boolean compared = !w.equals(ScaleWorkload.NAME) && !w.equals(RollWorkload.NAME);
            int rounds = compared ? o.rounds() : 1;
            if (CommitWorkload.Op.isOne(w) && o.interleave()) {
                for (int p : o.partitionCounts()) {
                    runInterleaved(comparedSystems(o), o, results, p, CommitWorkload.Op.of(w));
                }
                continue;
            }
            for (int round = 1; round <= rounds; round++) {
                // Odd rounds run Cohort first, even rounds the other system first: the driver JVM's own
                // warm-up (and whatever else drifts during a run) then favours neither side.
                results.round(rounds > 1 ? round : 0);
                List<Runnable> runs = new ArrayList<>();
                for (int p : o.partitionCounts()) {
                    if (o.runCohort()) {
                        runs.add(() -> runOne("cohort", w, o, results, p));
                    }
                    if (o.runCohort() && o.vsSecure() && compared) {
                        runs.add(() -> runOne(CohortTarget.SECURED, w, o, results, p));
                    }
                    if (o.runCohort() && o.hasVariant() && compared) {
                        runs.add(() -> runOne(CohortTarget.VARIANT, w, o, results, p));
                    }
                }
                if (o.runKafka() && compared) {
                    runs.add(() -> runOne("kafka", w, o, results, 1));
                }
                if (round % 2 == 0) {
                    Collections.reverse(runs);
                }
                runs.forEach(Runnable::run);
            }
        }
        results.round(0);

        String quickNote = o.quick() ? " (QUICK smoke run: not a measurement)" : "";
        StringBuilder tables = new StringBuilder();
        String sweep = PartitionSweep.table(results.lines());
        if (!sweep.isEmpty()) {
            tables.append("Partition sweep (Cohort commit; ratios against the smallest P of the run), run ")
                    .append(RUN_ID).append(quickNote).append('\n').append(sweep);
        }
        String table = Ratios.table(results.lines(), "cohort", "kafka");
        if (!table.isEmpty()) {
            tables.append(tables.isEmpty() ? "" : "\n").append("Cohort/Kafka, run ").append(RUN_ID).append(quickNote).append('\n').append(table);
        }
        String protocols = ProtocolTable.table(results.lines());
        if (!protocols.isEmpty()) {
            tables.append(tables.isEmpty() ? "" : "\n").append("Rebalance by group protocol (ms), run ").append(RUN_ID)
                    .append(quickNote).append('\n').append(protocols);
        }
        String security = Ratios.table(results.lines(), CohortTarget.SECURED, "cohort");
        if (!security.isEmpty()) {
            tables.append(tables.isEmpty() ? "" : "\n").append("Secured (").append(o.tls() ? "client mTLS on both; secured adds " : "client mTLS + ")
                    .append(String.join(" + ", o.securedParts())).append(")/plaintext Cohort, run ")
                    .append(RUN_ID).append(quickNote).append('\n').append(security);
        }
        String variant = Ratios.table(results.lines(), CohortTarget.VARIANT, "cohort");
        if (!variant.isEmpty()) {
            tables.append(tables.isEmpty() ? "" : "\n").append("Variant (").append(o.variantDescription())
                    .append(")/Cohort, run ").append(RUN_ID).append(quickNote).append('\n').append(variant);
        }
        if (!tables.isEmpty()) {
            System.out.println();
            System.out.print(tables);
            Files.writeString(o.outDir().resolve("bench-ratios-" + RUN_ID + ".txt"), tables.toString());
        }
        for (Path chart : Charts.write(results.lines(), o.outDir(), RUN_ID, o.quick())) {
            Machine.log("chart: " + chart);
        }
        List<String> failures = results.failures();
        if (!failures.isEmpty()) {
            Machine.log(failures.size() + " failure(s):");
            failures.forEach(f -> Machine.log("  " + f));
            return 1;
        }
        Machine.log("done: " + o.outDir());
        return 0;
    }

    /**
     * The systems a comparable workload runs on: Cohort, its secured twin (--vs-secure), its variant
     * (--vs-set), Kafka (--vs-kafka).
     */
    private static List<String> comparedSystems(BenchOptions o) {
        List<String> systems = new ArrayList<>();
        if (o.runCohort()) {
            systems.add("cohort");
            if (o.vsSecure()) {
                systems.add(CohortTarget.SECURED);
            }
        }
        if (o.runCohort() && o.hasVariant()) {
            systems.add(CohortTarget.VARIANT);
        }
        if (o.runKafka()) {
            systems.add("kafka");
        }
        return systems;
    }

    /** The commit, fetch or heartbeat workload of {@code --interleave}: every system's cluster up at once, windows alternating. */
    private static void runInterleaved(List<String> systems, BenchOptions o, Results results, int partitions,
                                       CommitWorkload.Op op) {
        List<Target> targets = new ArrayList<>();
        long t0 = System.nanoTime();
        String what = op.workload + " interleaved on " + String.join(", ", systems) + ", P=" + partitions;
        Machine.log("=== " + what + " ===");
        int failuresBefore = results.failures().size();
        try {
            for (String system : systems) {
                targets.add(startTarget(system, op.workload, o, partitions));
            }
            CommitWorkload.runInterleaved(targets, o, partitions, results, op);
        } catch (Exception | AssertionError e) {
            String error = e.toString().replace('\n', ' ');
            results.fail(String.join("+", systems), op.workload,
                    error.length() > 2000 ? error.substring(0, 2000) + " ..." : error);
            e.printStackTrace();
        } finally {
            for (Target target : targets) {
                if (results.failures().size() > failuresBefore) {
                    target.keepFiles();
                }
                target.close();
            }
            Machine.log(String.format("=== %s: %.0f s ===", what, (System.nanoTime() - t0) / 1e9));
        }
    }

    private static Target startTarget(String system, String workload, BenchOptions o, int partitions) throws Exception {
        boolean scale = workload.equals(ScaleWorkload.NAME);
        String name = switch (system) {
            case CohortTarget.SECURED -> "bench-secure-";
            case CohortTarget.VARIANT -> "bench-variant-";
            default -> "bench-";
        };
        return system.equals("kafka") ? KafkaTarget.start(o, "kafka-" + workload)
                : CohortTarget.start(o, name + workload, scale ? o.scaleHeap() : "-Xmx512m",
                        scale ? ScaleWorkload.nodeSettings(o, partitions) : Map.of(), system, partitions);
    }

    private static void runOne(String system, String workload, BenchOptions o, Results results, int partitions) {
        Target target = null;
        long t0 = System.nanoTime();
        String what = workload + " on " + system + (system.equals("kafka") ? "" : ", P=" + partitions);
        Machine.log("=== " + what + " ===");
        try {
            target = startTarget(system, workload, o, partitions);
            int failuresBefore = results.failures().size();
            switch (workload) {
                case CommitWorkload.NAME, CommitWorkload.FETCH, CommitWorkload.HEARTBEAT -> CommitWorkload.run(target, o,
                        system.equals("kafka") ? 1 : partitions, results, CommitWorkload.Op.of(workload));
                case RebalanceWorkload.NAME -> RebalanceWorkload.run(target, o, results);
                case FailoverWorkload.NAME -> FailoverWorkload.run(target, o, results,
                        system.equals("kafka") ? o.kafkaKills() : o.kills());
                case RestartWorkload.NAME -> RestartWorkload.run(target, o, results, o.restarts());
                case ScaleWorkload.NAME -> ScaleWorkload.run((CohortTarget) target, o, results);
                case RollWorkload.NAME -> RollWorkload.run((CohortTarget) target, o, results);
                default -> throw new IllegalArgumentException(workload);
            }
            if (results.failures().size() > failuresBefore) {
                target.keepFiles();
            }
        } catch (Exception | AssertionError e) {
            String error = e.toString().replace('\n', ' ');
            results.fail(system, workload, error.length() > 2000 ? error.substring(0, 2000) + " ..." : error);
            e.printStackTrace();
            if (target != null) {
                target.keepFiles();
            }
        } finally {
            if (target != null) {
                target.close();
            }
            Machine.log(String.format("=== %s: %.0f s ===", what, (System.nanoTime() - t0) / 1e9));
        }
    }
}
