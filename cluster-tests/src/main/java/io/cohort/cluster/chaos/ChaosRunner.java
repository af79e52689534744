package io.cohort.cluster.chaos;

import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.DescribeGroupsResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.TopicPartition;
import io.cohort.client.internal.Partitioner;
import io.cohort.cluster.ProcessCluster;
import io.cohort.cluster.ProcessClusterBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs one chaos scenario end to end: a cluster with a faulty network, the workload, the nemesis
 * following its seeded schedule, then recovery, the final reads and every checker. Writes the
 * report (seed, config, fault counts, failover times, checker output) and the history to the report
 * directory; on a violation also every node's logs.
 *
 * <pre>
 * java -Djdk.net.hosts.file=cluster-tests/src/test/resources/cohort-hosts -cp ... \
 *     io.cohort.cluster.chaos.ChaosRunner --nodes 5 --minutes 10 --seed 42
 * </pre>
 * ({@code scripts/chaos.sh} does exactly that.)
 */
public final class ChaosRunner {
    private static final Duration SETTLE = Duration.ofSeconds(90);

    private final ChaosConfig config;
    private final Path runDir;
    private final StringBuilder report = new StringBuilder();

    /** What a run found. */
    public record Result(Path reportDir, Map<String, List<String>> violations, String summary) {
        public boolean passed() {
            return violations.values().stream().allMatch(List::isEmpty);
        }

        public String describeViolations() {
            StringBuilder text = new StringBuilder();
            violations.forEach((checker, found) -> {
                if (!found.isEmpty()) {
                    text.append(checker).append(": ").append(found.size()).append(" violation(s)\n");
                    found.stream().limit(20).forEach(v -> text.append("  ").append(v).append('\n'));
                }
            });
            return text.toString();
        }
    }

    public ChaosRunner(ChaosConfig config) {
        this.config = config;
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        this.runDir = config.reportDir().toAbsolutePath().normalize().resolve("seed-" + config.seed() + "-" + stamp);
    }

    public Result run() {
        line("chaos run: " + config);
        line("replay with: scripts/chaos.sh --nodes " + config.nodes() + " --minutes "
                + Math.max(1, config.faultPhase().toMinutes()) + " --seed " + config.seed()
                + (config.raftTls() ? " --tls" : "") + (config.authorizer() ? " --authorizer" : "")
                + (config.diskFull() ? "" : " --no-disk-full") + (config.consumerProtocol() ? "" : " --classic-only")
                + (config.membership() ? " --membership" : ""));
        List<Nemesis.Step> schedule = Nemesis.schedule(config);
        Map<String, List<String>> violations = new LinkedHashMap<>();
        ProcessClusterBuilder builder = ProcessCluster.builder().nodes(config.nodes()).partitions(config.partitions())
                .faultyNetwork().set("group.initial.rebalance.delay.ms", 500)
                // The fence probe uses a 3 s session; Kafka's default minimum is 6 s.
                .set("group.min.session.timeout.ms", 1_000)
                .set("raft.snapshot.every.entries", ChaosConfig.SNAPSHOT_EVERY_ENTRIES)
                .set("raft.snapshot.min.entries", ChaosConfig.SNAPSHOT_MIN_ENTRIES)
                // Consumer-protocol sessions as long as the classic members' (longer than any fault).
                .set("group.consumer.session.timeout.ms", ChaosConfig.SESSION_TIMEOUT.toMillis())
                .set("group.consumer.heartbeat.interval.ms", 1_000)
                .name("cluster").baseDir(runDir).clusterId("chaos")
                // As deployed: restarted nodes warm their leader path while the faults go on.
                .leaderWarmup();
        if (config.diskFull()) {
            builder.smallDisk(config.diskFullNode(), ChaosConfig.SMALL_DISK_BYTES);
        }
        if (config.membership()) {
            // Each partition on 3 of the nodes (with 5 nodes: below the node count), so that every
            // replacement moves replicas between nodes, existing ones included, under the faults.
            builder.set("offsets.replication.factor", Math.min(3, config.nodes()));
        }
        if (config.raftTls()) {
            // TLS through the link proxies: they forward bytes, the nodes do the handshakes.
            builder.raftTls();
        }
        ChaosAuthorization authorization = config.authorizer() ? ChaosAuthorization.create(runDir) : null;
        if (authorization != null) {
            authorization.nodeSettings().forEach(builder::set);
        }
        ProcessCluster cluster = builder.start();
        boolean passed = false;
        try (ChaosHistory history = new ChaosHistory(runDir.resolve("history.jsonl"))) {
            if (authorization != null) {
                authorization.grantEveryone(cluster.bootstrap(), SETTLE);
                line("authorizer on: User:* granted ALL on every group and the cluster");
            }
            cluster.awaitStableLeaders(SETTLE);
            line("cluster of " + config.nodes() + " nodes serving; schedule of " + schedule.size() + " faults");
            ChaosWorkload workload = new ChaosWorkload(config, cluster.bootstrap(), history);
            Nemesis nemesis = new Nemesis(cluster, history, config);
            Map<String, Long> finalValues;
            long faultsEnd;
            try {
                workload.start();
                awaitGroupsBalanced(cluster, workload, SETTLE);
                line("groups formed after " + history.elapsedMs() + " ms");

                long faultsStart = System.nanoTime();
                nemesis.run(schedule);
                faultsEnd = System.nanoTime();
                line("fault phase: " + (faultsEnd - faultsStart) / 1_000_000 + " ms; faults " + new TreeMap<>(
                        nemesis.counts()));
                if (nemesis.diskLostRecoveries() > 0) {
                    line("disk-full node recovered as a lost disk " + nemesis.diskLostRecoveries() + " time(s): Ratis"
                            + " left an empty raft-meta (docs/OPERATIONS.md, \"Disk full\"); see history 'disk-lost'");
                }

                // (c) Liveness: every group Stable with every partition assigned within the bound.
                long livenessStart = System.nanoTime();
                List<String> liveness = new ArrayList<>();
                try {
                    awaitGroupsBalanced(cluster, workload, ChaosConfig.LIVENESS_BOUND);
                    line("(c) liveness: every group Stable and fully assigned "
                            + (System.nanoTime() - livenessStart) / 1_000_000 + " ms after the last fault (bound "
                            + ChaosConfig.LIVENESS_BOUND.toSeconds() + " s)");
                } catch (AssertionError e) {
                    liveness.add("groups not Stable and fully assigned within " + ChaosConfig.LIVENESS_BOUND
                            + " after the faults stopped: " + e.getMessage().lines().findFirst().orElse(""));
                }
                violations.put("(c) liveness", liveness);
                Thread.sleep(2_000); // a few more commits on the healed cluster
            } finally {
                workload.stopWorkers();
            }
            try {
                finalValues = finalValues(workload);
            } finally {
                workload.close();
            }
            long endNanos = System.nanoTime();
            history.flush();

            List<Op> ops = history.ops();
            violations.put("(a) linearizable commits and fetches", ChaosCheckers.linearizable(ops, finalValues,
                    endNanos));
            int lost = ChaosCheckers.lostAcknowledged(ops, finalValues);
            Map<String, Integer> overlaps = new TreeMap<>();
            violations.put("(b) exclusive ownership per generation", ChaosCheckers.ownership(ops, overlaps,
                    workload.consumerProtocolGroups()));
            Map<String, Integer> fenceOutcomes = new TreeMap<>();
            violations.put("(d) silent members fenced", ChaosCheckers.fencing(ops, fenceOutcomes));
            violations.put("(e) identical replicas", replicaDigests(cluster));

            long commitsOk = ChaosCheckers.calls(ops, "commit").stream().filter(ChaosCheckers.Call::ok).count();
            long commitsAll = ChaosCheckers.calls(ops, "commit").size();
            long fetches = ChaosCheckers.calls(ops, "fetch").size();
            line("operations: " + commitsAll + " commits (" + commitsOk + " acknowledged), " + fetches + " fetches, "
                    + ops.size() + " history events; " + finalValues.size() + " keys");
            line("(a) lost acknowledged commits: " + lost + " keys");
            line("(a) backups (every partition's SaveSnapshot image, read as a fetch of every key): "
                    + workload.backupsTaken() + " taken, " + workload.backupsFailed() + " without an image of every"
                    + " partition");
            line("(b) overlaps across generations (a fenced member not yet aware; legal): " + overlaps.values().stream()
                    .mapToInt(Integer::intValue).sum());
            line("(d) fence probe commits: " + fenceOutcomes);

            List<ChaosCheckers.Failover> failovers = ChaosCheckers.failoverTimes(ops, nemesis.kills(),
                    group -> Partitioner.partitionFor(group, config.partitions()));
            failovers.forEach(f -> line((f.wholeCluster() ? "full restart " : "failover ") + f.label() + ": "
                    + (f.gapMs() < 0 ? "no commit to its groups" : f.gapMs() + (f.longestWait()
                            ? " ms, the longest wait for an acknowledged commit until its process was gone"
                            : " ms to the next acknowledged commit"))));
            // A full restart and a node that stopped by itself are reported above, each on its own line.
            line("failover (kill -> next acknowledged commit of an affected group): "
                    + percentiles(ChaosCheckers.killGaps(failovers)));
            violations.forEach((checker, found) -> line(checker + ": " + (found.isEmpty() ? "OK"
                    : found.size() + " VIOLATION(S)")));
            passed = violations.values().stream().allMatch(List::isEmpty);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            violations.put("run", List.of("interrupted"));
        } catch (RuntimeException | AssertionError e) {
            violations.put("run", List.of("the run itself failed: " + e));
            line("run failed: " + e);
            try {
                // A run fails this way when the cluster stops making progress: what each node was
                // doing then is the evidence, and it is gone once the nodes stop.
                cluster.dumpThreads(runDir.resolve("thread-dumps"));
                line("thread dumps of the running nodes: " + runDir.resolve("thread-dumps"));
            } catch (IOException | RuntimeException dumpFailure) {
                line("thread dumps failed: " + dumpFailure);
            }
        } finally {
            cluster.close();
            Result result = new Result(runDir, violations, report.toString());
            writeReport(result, cluster, passed);
        }
        return new Result(runDir, violations, report.toString());
    }

    private void awaitGroupsBalanced(ProcessCluster cluster, ChaosWorkload workload, Duration bound) {
        cluster.awaitCondition(bound, "every group Stable with every partition assigned once", () -> {
            Map<String, List<ChaosWorkload.Member>> byGroup = new HashMap<>();
            workload.members().forEach(m -> byGroup.computeIfAbsent(m.group, g -> new ArrayList<>()).add(m));
            for (Map.Entry<String, List<ChaosWorkload.Member>> group : byGroup.entrySet()) {
                Set<Integer> generations = new HashSet<>();
                Set<TopicPartition> owned = new HashSet<>();
                int count = 0;
                for (ChaosWorkload.Member member : group.getValue()) {
                    generations.add(member.member.generationId());
                    owned.addAll(member.member.assignment());
                    count += member.member.assignment().size();
                }
                if (generations.size() != 1 || generations.contains(-1) || owned.size() != config.topicPartitions()
                        || count != config.topicPartitions()) {
                    return false;
                }
                try {
                    String state = workload.consumerProtocolGroups().contains(group.getKey())
                            ? workload.admin().describeConsumerGroups(List.of(group.getKey())).get(0).getGroupState()
                            : workload.admin().describeGroup(group.getKey())
                                    .map(DescribeGroupsResponse.Group::getGroupState).orElse("");
                    if (!state.equals("Stable")) {
                        return false;
                    }
                } catch (RuntimeException e) {
                    return false;
                }
            }
            return true;
        }, () -> "");
    }

    /** The last offset of every key written, read once everything has stopped. */
    private static Map<String, Long> finalValues(ChaosWorkload workload) {
        Map<String, Map<TopicPartition, OffsetAndMetadata>> byGroup = new HashMap<>();
        Map<String, Long> values = new TreeMap<>();
        for (String key : workload.keys()) {
            String group = key.substring(0, key.indexOf('/'));
            TopicPartition tp = TopicPartition.parse(key.substring(key.indexOf('/') + 1));
            Map<TopicPartition, OffsetAndMetadata> fetched = byGroup.computeIfAbsent(group,
                    g -> workload.admin().fetchOffsets(g));
            OffsetAndMetadata offset = fetched.get(tp);
            values.put(key, offset == null ? -1 : offset.offset());
        }
        return values;
    }

    /**
     * (e) After quiescence every replica of a partition holds the same state: once every node has
     * applied the same index, their state digests must be equal.
     */
    private List<String> replicaDigests(ProcessCluster cluster) {
        for (int node : cluster.nodeIds()) {
            cluster.awaitCaughtUp(node, SETTLE);
        }
        List<String> violations = new ArrayList<>();
        ClusterStatusRequest request = ClusterStatusRequest.newBuilder().setIncludeStateDigest(true).build();
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            Map<Integer, Map<Long, Map<String, List<Integer>>>> digests = new TreeMap<>(); // p -> index -> digest -> nodes
            for (int node : cluster.nodeIds()) {
                ClusterStatusResponse status = cluster.admin(node).withDeadlineAfter(10, TimeUnit.SECONDS)
                        .clusterStatus(request);
                for (PartitionStatus p : status.getPartitionsList()) {
                    if (!p.getHosted()) {
                        continue; // no replica of p on this node (replication factor below N)
                    }
                    digests.computeIfAbsent(p.getPartitionIndex(), k -> new TreeMap<>())
                            .computeIfAbsent(p.getStateDigestIndex(), k -> new TreeMap<>())
                            .computeIfAbsent(p.getStateDigest(), k -> new ArrayList<>()).add(node);
                }
            }
            boolean allAtOneIndex = digests.values().stream().allMatch(byIndex -> byIndex.size() == 1);
            for (Map.Entry<Integer, Map<Long, Map<String, List<Integer>>>> p : digests.entrySet()) {
                for (Map.Entry<Long, Map<String, List<Integer>>> atIndex : p.getValue().entrySet()) {
                    if (atIndex.getValue().size() > 1) {
                        violations.add("partition " + p.getKey() + " at index " + atIndex.getKey()
                                + ": replicas differ: " + atIndex.getValue());
                    }
                }
            }
            if (!violations.isEmpty() || allAtOneIndex) {
                line("(e) replica digests: " + (violations.isEmpty() ? "equal on every node for all "
                        + digests.size() + " partitions" : violations.size() + " differences"));
                return violations;
            }
            if (System.nanoTime() > deadline) {
                line("(e) replica digests: replicas never reached a common applied index: " + digests);
                violations.add("replicas never reached a common applied index within " + SETTLE + ": " + digests);
                return violations;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return violations;
            }
        }
    }

    private static String percentiles(List<Long> gapsMs) {
        List<Long> values = gapsMs.stream().filter(v -> v >= 0).sorted().toList();
        if (values.isEmpty()) {
            return "no measured kills";
        }
        return "n=" + values.size() + " p50=" + at(values, 0.50) + " ms p90=" + at(values, 0.90) + " ms p99="
                + at(values, 0.99) + " ms max=" + values.get(values.size() - 1) + " ms";
    }

    private static long at(List<Long> sorted, double quantile) {
        int index = (int) Math.ceil(quantile * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private void line(String text) {
        String line = "[chaos] " + text;
        System.out.println(line);
        report.append(line).append('\n');
    }

    private void writeReport(Result result, ProcessCluster cluster, boolean passed) {
        try {
            Files.createDirectories(runDir);
            StringBuilder text = new StringBuilder(result.summary());
            text.append(passed ? "\nPASSED\n" : "\nFAILED\n").append(result.describeViolations());
            Files.writeString(runDir.resolve("report.txt"), text.toString());
            if (passed) {
                // Keep the report and history; the nodes' Raft data is large and tells nothing more.
                for (int node : cluster.nodeIds()) {
                    deleteTree(cluster.dataDir(node));
                }
            } else {
                Path logs = Files.createDirectories(runDir.resolve("node-logs"));
                for (Path file : cluster.logFiles()) {
                    Path target = logs.resolve(cluster.runDir().relativize(file).toString().replace('/', '_'));
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            System.out.println("[chaos] report: " + runDir.resolve("report.txt"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var walk = Files.walk(root)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /**
     * {@code --nodes N --minutes M --seed S [--report-dir D] [--no-disk-full] [--tls] [--authorizer]
     * [--classic-only] [--membership]};
     * exits 1 on any violation.
     */
    public static void main(String[] args) {
        int nodes = 5;
        double minutes = 10;
        long seed = System.currentTimeMillis() % 100_000;
        Path reportDir = Path.of("target", "chaos-report");
        boolean diskFull = true;
        boolean raftTls = false;
        boolean authorizer = false;
        boolean consumerProtocol = true;
        boolean membership = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--nodes" -> nodes = Integer.parseInt(args[++i]);
                case "--minutes" -> minutes = Double.parseDouble(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--report-dir" -> reportDir = Path.of(args[++i]);
                case "--no-disk-full" -> diskFull = false;
                case "--tls" -> raftTls = true;
                case "--authorizer" -> authorizer = true;
                case "--classic-only" -> consumerProtocol = false;
                case "--membership" -> membership = true;
                default -> {
                    System.err.println("usage: ChaosRunner [--nodes N] [--minutes M] [--seed S] [--report-dir D]"
                            + " [--no-disk-full] [--tls] [--authorizer] [--classic-only] [--membership]");
                    System.exit(2);
                }
            }
        }
        ChaosConfig config = ChaosConfig.longRun(nodes, Duration.ofSeconds((long) (minutes * 60)), seed, reportDir);
        if (!diskFull) {
            config = config.withoutDiskFull();
        }
        if (raftTls) {
            config = config.withRaftTls();
        }
        if (authorizer) {
            config = config.withAuthorizer();
        }
        if (!consumerProtocol) {
            config = config.withClassicGroupsOnly();
        }
        if (membership) {
            config = config.withMembership();
        }
        Result result = new ChaosRunner(config).run();
        System.out.println(result.passed() ? "[chaos] PASSED" : "[chaos] FAILED\n" + result.describeViolations());
        System.exit(result.passed() ? 0 : 1);
    }
}
