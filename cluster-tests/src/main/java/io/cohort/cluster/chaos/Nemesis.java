package io.cohort.cluster.chaos;

import io.cohort.api.v1.AddNodeRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.MembershipChangeResponse;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.RemoveNodeRequest;
import io.cohort.cluster.ProcessCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Injects faults into a {@link ProcessCluster}, one at a time, following a schedule drawn from a
 * seed: SIGKILL of a partition's leader or of a random node (then a restart), SIGSTOP of a leader
 * for longer than the election timeout (then SIGCONT: a zombie leader wakes up deposed), a network
 * partition that cuts a leader or a random node off (then heals), a full disk on the node whose
 * data dir is a small tmpfs (then space back, and a restart if it stopped, as a supervisor would),
 * in long runs, a kill and restart of the whole cluster, and with {@link ChaosConfig#membership()}
 * the online replacement of a node (remove-node, empty disk, join, add-node). Every fault is
 * recorded in the history.
 */
public final class Nemesis {
    /** The kinds of fault. */
    public enum Fault {
        KILL_LEADER, KILL_RANDOM, PAUSE_LEADER, PARTITION_LEADER, PARTITION_RANDOM, RESTART_ALL, DISK_FULL, REPLACE_NODE
    }

    /** One planned fault: what, against which partition's leader (or -1), held how long, then a quiet gap. */
    public record Step(Fault fault, int partition, long holdMs, long gapMs) {
    }

    /**
     * A node gone that led partitions (a SIGKILL, or a node that stopped by itself after its disk
     * filled): when the fault began, when the processes were seen gone (a node killed one after
     * another with others, or one stopping by itself, can still acknowledge commits in between),
     * which node (-1: all), the partitions it led then, and the fault.
     */
    public record Kill(long timeNanos, long deadNanos, int node, Set<Integer> ledPartitions, String fault) {
        /** Whether the fault took every node down at once: a restart, not a failover. */
        public boolean wholeCluster() {
            return node < 0;
        }

        /**
         * Whether the node stopped by itself (its disk filled): it keeps serving until a write
         * fails, then stops its Raft server at once and its process seconds later, so the others
         * take over before it is seen gone.
         */
        public boolean stoppedItself() {
            return fault.equals(Fault.DISK_FULL.name());
        }
    }

    private static final Duration LEADER_WAIT = Duration.ofSeconds(30);
    /** cohort-server's exit code after a storage failure (CohortServerMain.EXIT_STORAGE_FAILED). */
    private static final int EXIT_STORAGE_FAILED = 74;
    /** A node whose storage failed stops within this (its stop is bounded at 30 s, then halted). */
    private static final Duration STORAGE_FAILURE_EXIT_WAIT = Duration.ofSeconds(40);
    /** How long one membership change of REPLACE_NODE may take, retries included. */
    private static final Duration MEMBERSHIP_CHANGE_WAIT = Duration.ofSeconds(180);

    private final ProcessCluster cluster;
    private final ChaosHistory history;
    private final ChaosConfig config;
    private final Random random;
    private final Set<Integer> paused = new HashSet<>();
    private final List<Kill> kills = new ArrayList<>();
    private final Map<Fault, Integer> counts = new HashMap<>();
    /** Disk-full nodes recovered as a lost disk (Ratis emptied a raft-meta); reported, see {@link #fillDisk}. */
    private int diskLost;

    public Nemesis(ProcessCluster cluster, ChaosHistory history, ChaosConfig config) {
        this.cluster = cluster;
        this.history = history;
        this.config = config;
        this.random = new Random(config.seed());
    }

    /**
     * The schedule: at least {@code minLeaderKills} leader kills, a pause of a leader per five kills
     * (at least two), one partition of a leader, and for runs over three minutes random-node kills,
     * random partitions and one whole-cluster restart; shuffled, with holds and gaps drawn from the
     * seed. Steps are added until the fault phase is filled.
     */
    public static List<Step> schedule(ChaosConfig config) {
        Random random = new Random(config.seed() ^ 0x5DEECE66DL);
        List<Fault> faults = new ArrayList<>();
        for (int i = 0; i < config.minLeaderKills(); i++) {
            faults.add(Fault.KILL_LEADER);
        }
        for (int i = 0; i < Math.max(2, config.minLeaderKills() / 5); i++) {
            faults.add(Fault.PAUSE_LEADER);
        }
        faults.add(Fault.PARTITION_LEADER);
        if (config.diskFull()) {
            faults.add(Fault.DISK_FULL);
        }
        if (config.membership()) {
            // One replacement per three minutes of faults, at least one.
            for (long i = 0; i < Math.max(1, config.faultPhase().toSeconds() / 180); i++) {
                faults.add(Fault.REPLACE_NODE);
            }
        }
        boolean longRun = config.faultPhase().toSeconds() > 180;
        if (longRun) {
            for (int i = 0; i < config.minLeaderKills() / 5; i++) {
                faults.add(Fault.KILL_RANDOM);
                faults.add(Fault.PARTITION_RANDOM);
                faults.add(Fault.PARTITION_LEADER);
            }
            faults.add(Fault.RESTART_ALL);
        }
        Collections.shuffle(faults, random);
        List<Step> steps = new ArrayList<>();
        long plannedMs = 0;
        for (Fault fault : faults) {
            Step step = step(fault, config, random);
            steps.add(step);
            plannedMs += estimateMs(step);
        }
        Fault[] extra = {Fault.KILL_LEADER, Fault.PAUSE_LEADER, Fault.PARTITION_LEADER, Fault.KILL_RANDOM,
                Fault.PARTITION_RANDOM};
        while (plannedMs < config.faultPhase().toMillis()) {
            Step step = step(extra[random.nextInt(extra.length)], config, random);
            steps.add(step);
            plannedMs += estimateMs(step);
        }
        return steps;
    }

    private static Step step(Fault fault, ChaosConfig config, Random random) {
        int partition = random.nextInt(config.partitions());
        long hold = switch (fault) {
            case KILL_LEADER, KILL_RANDOM -> 500 + random.nextInt(2_000);
            // Longer than the 600 ms maximum election timeout, so the followers elect a new leader.
            case PAUSE_LEADER -> 1_500 + random.nextInt(3_000);
            case PARTITION_LEADER, PARTITION_RANDOM -> 2_000 + random.nextInt(4_000);
            case RESTART_ALL -> 1_000;
            // The longest the disk stays full; it is freed as soon as the node has stopped.
            case DISK_FULL -> 8_000 + random.nextInt(4_000);
            // The node stays out of the cluster this long between its removal and its return.
            case REPLACE_NODE -> 1_000 + random.nextInt(3_000);
        };
        return new Step(fault, partition, hold, 1_000 + random.nextInt(2_000));
    }

    /** Hold and gap, plus about 3 s for a restarted JVM to serve again. */
    private static long estimateMs(Step step) {
        boolean restarts = step.fault() == Fault.KILL_LEADER || step.fault() == Fault.KILL_RANDOM
                || step.fault() == Fault.RESTART_ALL || step.fault() == Fault.DISK_FULL;
        // A replacement: two changes (the second catches the empty node up) and a start.
        long changes = step.fault() == Fault.REPLACE_NODE ? 15_000 : 0;
        return step.holdMs() + step.gapMs() + (restarts ? 3_000 : 0) + changes;
    }

    /** Runs the schedule; returns when every step is done and the cluster is whole again. */
    public void run(List<Step> steps) {
        for (Step step : steps) {
            apply(step);
        }
        recoverAll();
    }

    private void apply(Step step) {
        counts.merge(step.fault(), 1, Integer::sum);
        switch (step.fault()) {
            case KILL_LEADER -> {
                int leader = leaderOf(step.partition());
                killAndRestart(leader, step, "p" + step.partition() + " leader");
            }
            case KILL_RANDOM -> {
                List<Integer> running = cluster.runningNodeIds();
                killAndRestart(running.get(random.nextInt(running.size())), step, "random node");
            }
            case PAUSE_LEADER -> {
                int leader = leaderOf(step.partition());
                history.event("nemesis", "pause", "SIGSTOP node " + leader + " (p" + step.partition() + " leader) for "
                        + step.holdMs() + " ms");
                cluster.pause(leader);
                paused.add(leader);
                sleep(step.holdMs());
                cluster.resume(leader);
                paused.remove(leader);
                history.event("nemesis", "resume", "SIGCONT node " + leader);
            }
            case PARTITION_LEADER, PARTITION_RANDOM -> {
                int node = step.fault() == Fault.PARTITION_LEADER ? leaderOf(step.partition())
                        : cluster.nodeIds().stream().toList().get(random.nextInt(cluster.size()));
                history.event("nemesis", "partition", "isolate node " + node + " for " + step.holdMs() + " ms ("
                        + (step.fault() == Fault.PARTITION_LEADER ? "p" + step.partition() + " leader" : "random")
                        + ")");
                cluster.links().isolate(node);
                sleep(step.holdMs());
                cluster.links().heal();
                history.event("nemesis", "heal", "links of node " + node + " restored");
            }
            case RESTART_ALL -> {
                Set<Integer> led = new TreeSet<>();
                for (int p = 0; p < config.partitions(); p++) {
                    led.add(p);
                }
                long now = history.event("nemesis", "kill-all", "SIGKILL every node");
                for (int node : cluster.runningNodeIds()) {
                    cluster.kill(node);
                }
                kills.add(new Kill(now, System.nanoTime(), -1, led, Fault.RESTART_ALL.name()));
                sleep(step.holdMs());
                cluster.startAll();
                history.event("nemesis", "start-all", "every node serving again");
            }
            case DISK_FULL -> fillDisk(config.diskFullNode(), step.holdMs());
            case REPLACE_NODE -> {
                List<Integer> running = cluster.runningNodeIds();
                replaceNode(running.get(random.nextInt(running.size())), step.holdMs());
            }
        }
        sleep(step.gapMs());
    }

    /**
     * Fills the small tmpfs of {@code node} while the workload runs, until the node has stopped
     * (it must exit with code 74 once a write fails) or {@code maxHoldMs} passed; then frees the
     * space and, if the node stopped, starts it again as its supervisor would. Any other exit
     * fails the run.
     */
    private void fillDisk(int node, long maxHoldMs) {
        if (!cluster.isRunning(node)) {
            cluster.start(node);
        }
        Set<Integer> led = partitionsLedBy(node);
        long filled = cluster.smallDisk(node).fill();
        long now = history.event("nemesis", "disk-full", "filled the data dir of node " + node + " (" + filled
                + " bytes), leading " + led + ", for at most " + maxHoldMs + " ms");
        long deadline = System.nanoTime() + maxHoldMs * 1_000_000;
        while (cluster.isRunning(node) && System.nanoTime() < deadline) {
            sleep(100);
        }
        boolean stopped = !cluster.isRunning(node);
        if (stopped) {
            kills.add(new Kill(now, System.nanoTime(), node, led, Fault.DISK_FULL.name()));
        } else if (storageFailed(node)) {
            // It noticed just now and is stopping.
            cluster.awaitExit(node, STORAGE_FAILURE_EXIT_WAIT);
            stopped = true;
        }
        cluster.smallDisk(node).free();
        if (!stopped) {
            history.event("nemesis", "disk-freed", "node " + node + " wrote nothing while its disk was full");
            return;
        }
        int exit = cluster.awaitExit(node, STORAGE_FAILURE_EXIT_WAIT);
        history.event("nemesis", "disk-exit", "node " + node + " exited with code " + exit + "; space freed");
        if (exit != EXIT_STORAGE_FAILED) {
            throw new IllegalStateException("node " + node + " exited with " + exit + " after its disk filled, not "
                    + EXIT_STORAGE_FAILED + " (storage failed)");
        }
        try {
            cluster.start(node);
        } catch (IllegalStateException e) {
            if (!emptiedRaftMeta(e)) {
                throw e;
            }
            // Ratis 3.3 empties raft-meta when it persists a vote on a full disk before any log
            // write of the node failed (docs/OPERATIONS.md, "Disk full"); the node then cannot start.
            // The runbook's recovery, as an operator would do it: the node as a lost disk.
            history.event("nemesis", "disk-lost", "node " + node + " cannot start: Ratis left an empty raft-meta"
                    + " (vote persisted on the full disk); data dir emptied per the runbook");
            diskLost++;
            emptyDirectory(cluster.dataDir(node));
            cluster.start(node);
        }
        history.event("nemesis", "restart", "node " + node + " serving again");
    }

    /**
     * Replaces {@code node} as an operator replaces a failed machine (docs/OPERATIONS.md, "Replace a
     * failed node"), under the workload: {@code remove-node} (leadership moves off it first), the
     * node SIGKILLed and its data dir emptied, out of the cluster for {@code outMs}, started again in
     * join mode under the same id and addresses, and {@code add-node}, which catches it up by
     * snapshot install. Each change is asked of another running node and retried while the cluster
     * answers "not now" (no leader, a change in progress, not enough replicas heard yet); any other
     * answer fails the run.
     */
    private void replaceNode(int node, long outMs) {
        long start = System.nanoTime();
        history.event("nemesis", "remove-node", "remove-node " + node + " (to replace it with an empty disk)");
        MembershipChangeResponse removed = membershipChange("remove-node " + node, node, asked -> cluster.admin(asked)
                .withDeadlineAfter(MEMBERSHIP_CHANGE_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .removeNode(RemoveNodeRequest.newBuilder().setNodeId(node).build()));
        history.event("nemesis", "removed", "node " + node + " removed (" + removed.getStepsCount() + " steps, "
                + (System.nanoTime() - start) / 1_000_000 + " ms); killing it and emptying its data dir");
        cluster.kill(node);
        emptyDirectory(cluster.dataDir(node));
        sleep(outMs);
        int seed = otherRunningNode(node);
        cluster.startJoining(node, seed);
        history.event("nemesis", "join", "node " + node + " started with an empty disk in join mode (seed node "
                + seed + ")");
        long addStart = System.nanoTime();
        MembershipChangeResponse added = membershipChange("add-node " + node, node, asked -> cluster.admin(asked)
                .withDeadlineAfter(MEMBERSHIP_CHANGE_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .addNode(AddNodeRequest.newBuilder().setNodeId(node).setRaftAddress(cluster.raftAddress(node))
                        .setClientAddress(cluster.clientAddress(node)).build()));
        history.event("nemesis", "added", "node " + node + " is a voter again (" + added.getStepsCount()
                + " steps, " + (System.nanoTime() - addStart) / 1_000_000 + " ms)");
    }

    /** Runs a membership change on another running node until it is done; see {@link #replaceNode}. */
    private MembershipChangeResponse membershipChange(String what, int subject,
                                                      IntFunction<MembershipChangeResponse> call) {
        long deadline = System.nanoTime() + MEMBERSHIP_CHANGE_WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                MembershipChangeResponse response = call.apply(otherRunningNode(subject));
                if (response.getErrorCode() == ErrorCode.NONE) {
                    return response;
                }
                last = response.getErrorCode() + ": " + response.getErrorMessage();
                if (response.getErrorCode() != ErrorCode.COORDINATOR_NOT_AVAILABLE
                        && response.getErrorCode() != ErrorCode.REBALANCE_IN_PROGRESS
                        && response.getErrorCode() != ErrorCode.NOT_ENOUGH_REPLICAS
                        && response.getErrorCode() != ErrorCode.REQUEST_TIMED_OUT) {
                    throw new IllegalStateException(what + " was refused: " + last);
                }
            } catch (io.grpc.StatusRuntimeException e) {
                last = e.getStatus().toString();
            }
            history.event("nemesis", "retry", what + ": " + last);
            sleep(500);
        }
        throw new IllegalStateException(what + " did not finish within " + MEMBERSHIP_CHANGE_WAIT + ": " + last);
    }

    private int otherRunningNode(int node) {
        List<Integer> others = cluster.runningNodeIds().stream().filter(id -> id != node).toList();
        if (others.isEmpty()) {
            throw new IllegalStateException("no running node besides " + node);
        }
        return others.get(random.nextInt(others.size()));
    }

    /**
     * The start failure of Ratis's known flaw: a replica's raft-meta left empty (RaftMetaCheck's
     * "holds no term"; Ratis's own "'term' not found").
     */
    private static boolean emptiedRaftMeta(IllegalStateException e) {
        String message = String.valueOf(e.getMessage());
        return message.contains("raft-meta")
                && (message.contains("'term' not found") || message.contains("holds no term"));
    }

    /** Deletes everything under {@code dir} (a tmpfs mount point: the directory itself stays). */
    private static void emptyDirectory(Path dir) {
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!path.equals(dir)) {
                    java.nio.file.Files.delete(path);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot empty " + dir, e);
        }
    }

    /** How often a disk-full node had to be recovered as a lost disk (see {@link #fillDisk}). */
    public int diskLostRecoveries() {
        return diskLost;
    }

    /** Whether node {@code node}'s /metrics says its storage failed. */
    private boolean storageFailed(int node) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.metricsPort(node) + "/metrics"))
                            .timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.body().lines().anyMatch(line -> line.startsWith("cohort_storage_failed 1"));
        } catch (IOException e) {
            return !cluster.isRunning(node);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void killAndRestart(int node, Step step, String why) {
        Set<Integer> led = partitionsLedBy(node);
        long now = history.event("nemesis", "kill", "SIGKILL node " + node + " (" + why + "), leading " + led);
        cluster.kill(node);
        kills.add(new Kill(now, System.nanoTime(), node, led, step.fault().name()));
        sleep(step.holdMs());
        cluster.start(node);
        history.event("nemesis", "restart", "node " + node + " serving again");
    }

    /** Undoes anything left: resumes paused nodes, heals links, starts stopped nodes. */
    public void recoverAll() {
        for (int node : List.copyOf(paused)) {
            cluster.resume(node);
            paused.remove(node);
        }
        cluster.links().heal();
        for (int node : cluster.nodeIds()) {
            if (!cluster.isRunning(node)) {
                cluster.start(node);
            }
        }
        history.event("nemesis", "recovered", "all nodes running, all links up");
    }

    public List<Kill> kills() {
        return List.copyOf(kills);
    }

    public Map<Fault, Integer> counts() {
        return Map.copyOf(counts);
    }

    /** The leader of {@code partition} that the running, unpaused nodes agree on; waits for one. */
    private int leaderOf(int partition) {
        long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            Map<Integer, Integer> votes = new HashMap<>();
            for (int node : cluster.runningNodeIds()) {
                if (paused.contains(node)) {
                    continue;
                }
                try {
                    ClusterStatusResponse status = cluster.status(node);
                    for (PartitionStatus p : status.getPartitionsList()) {
                        if (p.getPartitionIndex() == partition && p.getLeaderNodeId() > 0) {
                            votes.merge(p.getLeaderNodeId(), 1, Integer::sum);
                        }
                    }
                } catch (RuntimeException e) {
                    // A node that does not answer has no say.
                }
            }
            for (Map.Entry<Integer, Integer> vote : votes.entrySet()) {
                if (vote.getValue() > cluster.size() / 2 && cluster.isRunning(vote.getKey())) {
                    return vote.getKey();
                }
            }
            sleep(100);
        }
        throw new IllegalStateException("no agreed leader of partition " + partition + " within " + LEADER_WAIT
                + cluster.describeStatuses());
    }

    private Set<Integer> partitionsLedBy(int node) {
        Set<Integer> led = new TreeSet<>();
        try {
            for (PartitionStatus p : cluster.status(node).getPartitionsList()) {
                if (p.getLeaderNodeId() == node) {
                    led.add(p.getPartitionIndex());
                }
            }
        } catch (RuntimeException e) {
            // Unknown: the failover measurement skips this kill.
        }
        return led;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
