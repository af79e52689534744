package io.cohort.server;

import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.LeaveGroupRequest;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.OffsetFetchRequest;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.Directories;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs this JVM's leader code once, on a throwaway cluster, before the real cluster hands the node
 * a partition.
 *
 * <p>Why: a node restarted during a roll follows for its first seconds and is then handed back its
 * partitions by the leader balancer. Its first leadership took 0.7-1.0 s from the role change to
 * its first applied entry, against 0.08-0.3 s for later ones (docs/OPERATIONS.md, "The cold leader
 * path"): the JVM loads some 400 classes (Ratis's leader state and appenders, Cohort's coordinator
 * responses), spins lambda forms and interprets code it has never run, while every group of the
 * partition waits; often the followers' election timeouts ran out first and a second election
 * followed. A follower never runs that code, so no amount of waiting warms it.
 *
 * <p>What: two in-process nodes ({@value #CLUSTER_ID}, one partition, loopback ports the OS picks,
 * under a lock that other warm-ups on the machine wait for, data in
 * {@code <java.io.tmpdir>/cohort-warmup-<pid>}, deleted after, no fsync) elect a leader; a plaintext gRPC
 * client drives the production path on it (FindCoordinator, OffsetCommit from several groups at
 * once, OffsetFetch, one classic member's join, sync, heartbeat, commit and leave, DescribeGroups);
 * then leadership moves to the other node by the same transfer the balancer uses and the calls run
 * again; then both stop, the leader handing off as at SIGTERM. Nothing of it touches the real
 * cluster. It runs once per JVM, on its own thread, started beside the node's own start so that it
 * has the node's start-up, catch-up and the balancer's hold to finish in; it delays nothing. If it
 * fails, the node logs it and serves as before (cold).
 *
 * <p>One exception to "beside": when the node's replicas have a long log to apply again at start
 * (at least {@value #HOLD_FOR_REPLAY_MIN_ENTRIES} entries, typically after a SIGKILL long after the
 * last snapshot), the warm-up holds its calls until they have. Starting its throwaway nodes still
 * runs beside the node's start (it loads classes the node needs too, on the other core), but its
 * calls would only take CPU from the replay, and no replica can lead before the replay is done
 * (docs/OPERATIONS.md, "How long a restart takes"; measured in docs/BENCHMARKS.md, "Restart of a
 * node with a large log").
 *
 * <p>Not warmed: TLS (the throwaway nodes are plaintext), and what only the real data brings
 * (large snapshots, many groups).
 */
final class LeaderPathWarmup {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderPathWarmup.class);

    static final String CLUSTER_ID = "cohort-warmup";
    /**
     * The throwaway nodes' ids: far from any id an operator gives, so that Ratis's lines about them
     * ("n90001@group-...") are told apart from the real nodes' ({@link WarmupLogFilter}).
     */
    static final List<Integer> NODE_IDS = List.of(90_001, 90_002);
    /** Concurrent OffsetCommit calls per round: enough for the proposer to batch, as under load. */
    static final int GROUPS = 8;
    /**
     * Commits per group per leader; two leaders, so 2 x 8 x 25 = 400 commits in all. The classes and
     * lambda forms load with the first few; the rest give the compiler a first profile. Kept small:
     * on a loaded 2-core machine the warm-up competes with the node's own catch-up.
     */
    static final int COMMITS_PER_GROUP = 25;
    /** The whole warm-up gives up after this long (a starved machine); the node is unaffected. */
    static final long DEADLINE_MS = 60_000;
    private static final long CALL_TIMEOUT_MS = 10_000;
    private static final AtomicBoolean STARTED_IN_THIS_JVM = new AtomicBoolean();
    /**
     * The warm-up's directory in the temp dir is this prefix and the JVM's pid: not in the data dir,
     * which tools and operators read as the node's state, and findable when its JVM was killed.
     */
    static final String DIR_PREFIX = "cohort-warmup-";

    /**
     * A replay at start of at least this many log entries holds the warm-up's calls until it is
     * done. After a clean stop (which takes a snapshot) a node replays next to nothing and the
     * warm-up runs at once, as the hand-backs of a rolling restart need.
     */
    static final long HOLD_FOR_REPLAY_MIN_ENTRIES = 1_000;
    /** How often a held warm-up checks whether the node is stopping. */
    private static final long HOLD_CHECK_MS = 100;

    /** Leaderships, one per round of calls: the first, then the one the transfer makes. */
    static final int ROUNDS = 2;

    /** What one warm-up did; {@code heldMs} of {@code elapsedMs} it waited for the node's replay. */
    record Outcome(long elapsedMs, int commits, long heldMs) {
    }

    private LeaderPathWarmup() {
    }

    /**
     * Starts the warm-up on a daemon thread if {@code config} enables it and no warm-up ran in this
     * JVM yet; {@code stopping} tells it to cut short (the node is stopping); before each batch of
     * calls it waits for what {@code holdFor} returns (null: nothing). Returns the thread, or null
     * when nothing was started.
     */
    static Thread startInBackground(ServerConfig config, BooleanSupplier stopping, Supplier<Future<?>> holdFor) {
        if (!config.leaderWarmupEnabled() || !STARTED_IN_THIS_JVM.compareAndSet(false, true)) {
            return null;
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), DIR_PREFIX + ProcessHandle.current().pid());
        Thread thread = new Thread(() -> {
            try {
                deleteLeftovers(dir.getParent());
                Outcome outcome = run(dir, stopping, holdFor);
                LOG.info("leader-path warm-up done in {} ms: {} commits, {} leaderships on an in-process"
                        + " 2-node cluster{}", outcome.elapsedMs(), outcome.commits(), ROUNDS, outcome.heldMs() == 0 ? ""
                        : " (its calls held " + outcome.heldMs() + " ms for the node's replay of its log)");
            } catch (Exception e) { // whatever it is, the node serves on
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                LOG.warn("leader-path warm-up did not complete ({}); the node serves without it", e.toString());
            }
        }, "cohort-leader-warmup");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * Runs the warm-up in {@code dir} (emptied first and deleted after) and returns what it did.
     *
     * @throws IOException if the throwaway nodes cannot start or a call fails
     * @throws TimeoutException if it takes longer than {@value #DEADLINE_MS} ms or is stopped
     */
    static Outcome run(Path dir, BooleanSupplier stopping) throws IOException, InterruptedException, TimeoutException {
        return run(dir, stopping, () -> null);
    }

    /**
     * As {@link #run(Path, BooleanSupplier)}, waiting before each batch of calls for what
     * {@code holdFor} returns (null: nothing); the time held does not count against the deadline.
     */
    static Outcome run(Path dir, BooleanSupplier stopping, Supplier<Future<?>> holdFor)
            throws IOException, InterruptedException, TimeoutException {
        long startNanos = System.nanoTime();
        long deadlineNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        AtomicLong heldNanos = new AtomicLong();
        BooleanSupplier giveUp = () -> stopping.getAsBoolean()
                || System.nanoTime() - heldNanos.get() > deadlineNanos;
        throwIf(giveUp);
        Directories.deleteRecursively(dir);
        Directories.createPrivate(dir);
        List<CohortServer> servers = new ArrayList<>();
        try {
            // From picking the ports to binding them, no other warm-up on this machine picks any: two
            // nodes started at once were handed the same just-released port, and Ratis answers a Raft
            // port it cannot bind by exiting the JVM, the real node's with it.
            try (FileChannel ignored = portPickLock(dir.getParent(), giveUp)) {
                String peers = NODE_IDS.get(0) + "=127.0.0.1:" + freePort() + ":" + freePort() + ","
                        + NODE_IDS.get(1) + "=127.0.0.1:" + freePort() + ":" + freePort();
                for (int nodeId : NODE_IDS) {
                    servers.add(CohortServer.start(ServerConfig.of(settings(dir, nodeId, peers))));
                }
            }
            LOG.info("leader-path warm-up: a throwaway 2-node cluster '{}' (Raft {}, nodes {}) under {}; its lines"
                    + " in this log, Ratis's warnings included, are about nothing real (and kept off stderr)",
                    CLUSTER_ID, servers.get(0).node().spec().raftGroupId(0), NODE_IDS, dir);
            int commits = 0;
            HoldPoint holdPoint = () -> heldNanos.addAndGet(hold(holdFor.get(), stopping));
            for (int round = 0; round < ROUNDS; round++) {
                holdPoint.await();
                CohortServer leader = awaitLeader(servers, giveUp);
                commits += drive(leader.clientPort(), round, giveUp, holdPoint);
                if (round < ROUNDS - 1) {
                    CohortServer other = servers.get(0) == leader ? servers.get(1) : servers.get(0);
                    try {
                        leader.node().transferLeadership(0, other.config().nodeId(), CALL_TIMEOUT_MS)
                                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    } catch (ExecutionException e) {
                        throw new IOException("leadership transfer failed: " + e.getCause(), e.getCause());
                    }
                }
            }
            return new Outcome(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), commits,
                    TimeUnit.NANOSECONDS.toMillis(heldNanos.get()));
        } finally {
            // The leader first: its stop hands the partition off, as a node's does at SIGTERM.
            servers.sort(Comparator.comparing(server -> !server.node().isLeader(0)));
            for (CohortServer server : servers) {
                server.close();
            }
            Directories.deleteRecursively(dir);
        }
    }

    /**
     * What a warm-up of {@code node} holds its calls for: the replay of the log its replicas held at
     * start when it is {@value #HOLD_FOR_REPLAY_MIN_ENTRIES} entries or more, else null (nothing).
     */
    static Future<?> replayToHoldFor(CohortRaftNode node) {
        return node.startupReplayEntries() >= HOLD_FOR_REPLAY_MIN_ENTRIES ? node.startupReplayApplied() : null;
    }

    /**
     * Waits until {@code replay} is done (completed, failed or cancelled) or the node is stopping;
     * returns the nanoseconds waited. Null or done: returns 0 at once.
     */
    static long hold(Future<?> replay, BooleanSupplier stopping) throws InterruptedException {
        if (replay == null || replay.isDone()) {
            return 0;
        }
        long startNanos = System.nanoTime();
        LOG.info("leader-path warm-up: holding its calls until this node's replicas have applied the log they"
                + " held at start (at least {} entries)", HOLD_FOR_REPLAY_MIN_ENTRIES);
        while (!replay.isDone() && !stopping.getAsBoolean()) {
            try {
                replay.get(HOLD_CHECK_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | CancellationException | TimeoutException e) {
                // done one way or the other, or not yet: the loop's condition decides
            }
        }
        return System.nanoTime() - startNanos;
    }

    private static Map<String, String> settings(Path dir, int nodeId, String peers) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(ServerConfig.NODE_ID, Integer.toString(nodeId));
        settings.put(ServerConfig.CLUSTER_ID, CLUSTER_ID);
        settings.put(ServerConfig.PEERS, peers);
        settings.put(ServerConfig.DATA_DIR, dir.resolve("node-" + nodeId).toString());
        settings.put(ServerConfig.LOG_DIR, dir.resolve("logs").toString());
        settings.put(ServerConfig.PARTITIONS, "1");
        settings.put(ServerConfig.METRICS_PORT, "-1");
        settings.put(ServerConfig.AUTO_LEADER_REBALANCE_ENABLE, "false");
        // Two nodes that stop one after the other: no watch of each other's exit needed.
        settings.put(ServerConfig.ELECTION_ON_LEADER_EXIT, "false");
        settings.put(ServerConfig.INITIAL_REBALANCE_DELAY_MS, "0");
        // Nothing here is worth a disk flush, and waiting for one only stretches the warm-up: the code
        // that runs is the same up to the log's flush.
        settings.put(ServerConfig.LOG_FSYNC_BEFORE_ACK, "false");
        // Not itself: a throwaway node must not start a warm-up of its own.
        settings.put(ServerConfig.LEADER_WARMUP_ENABLED, "false");
        return settings;
    }

    /** The server that leads partition 0 and has applied an entry of its term. */
    private static CohortServer awaitLeader(List<CohortServer> servers, BooleanSupplier giveUp)
            throws InterruptedException, TimeoutException {
        while (true) {
            for (CohortServer server : servers) {
                if (server.node().isLeaderReady(0)) {
                    return server;
                }
            }
            throwIf(giveUp);
            // An election on loopback takes one election timeout; poll well inside it.
            Thread.sleep(10);
        }
    }

    /** Where the calls wait for the node's replay, if it asked them to (also set after the calls began). */
    @FunctionalInterface
    private interface HoldPoint {
        void await() throws InterruptedException;
    }

    /** The production call path on the leader at {@code clientPort}; returns the commits made. */
    private static int drive(int clientPort, int round, BooleanSupplier giveUp, HoldPoint holdPoint)
            throws IOException, InterruptedException, TimeoutException {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", clientPort).usePlaintext().build();
        try {
            GroupCoordinatorGrpc.GroupCoordinatorBlockingStub blocking = GroupCoordinatorGrpc.newBlockingStub(channel);
            GroupCoordinatorGrpc.GroupCoordinatorFutureStub async = GroupCoordinatorGrpc.newFutureStub(channel);
            FindCoordinatorRequest.Builder find = FindCoordinatorRequest.newBuilder();
            for (int group = 0; group < GROUPS; group++) {
                find.addGroupIds(groupId(group));
            }
            for (FindCoordinatorResponse.Coordinator coordinator : timed(blocking).findCoordinator(find.build())
                    .getCoordinatorsList()) {
                expect(coordinator.getErrorCode(), "FindCoordinator");
            }
            int commits = 0;
            for (int i = 0; i < COMMITS_PER_GROUP; i++) {
                holdPoint.await();
                throwIf(giveUp);
                List<com.google.common.util.concurrent.ListenableFuture<OffsetCommitResponse>> calls =
                        new ArrayList<>(GROUPS);
                for (int group = 0; group < GROUPS; group++) {
                    calls.add(async.withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                            .offsetCommit(commit(groupId(group), "", -1, round * COMMITS_PER_GROUP + i)));
                }
                for (var call : calls) {
                    expect(await(call).getTopics(0).getPartitions(0).getErrorCode(), "OffsetCommit");
                    commits++;
                }
            }
            timed(blocking).offsetFetch(OffsetFetchRequest.newBuilder()
                    .addGroups(OffsetFetchRequest.Group.newBuilder().setGroupId(groupId(0))).build());
            commits += classicMember(blocking, "warmup-members-" + round);
            timed(blocking).describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds(groupId(0)).build());
            return commits;
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** One consumer's life in a classic group: join (twice, KIP-394), sync, heartbeat, commit, leave. */
    private static int classicMember(GroupCoordinatorGrpc.GroupCoordinatorBlockingStub blocking, String groupId)
            throws IOException {
        JoinGroupRequest.Builder join = JoinGroupRequest.newBuilder().setGroupId(groupId).setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000).setProtocolType("consumer").setClientId("warmup")
                .addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("range"));
        JoinGroupResponse joined = timed(blocking).joinGroup(join.build());
        if (joined.getErrorCode() == ErrorCode.MEMBER_ID_REQUIRED) {
            joined = timed(blocking).joinGroup(join.setMemberId(joined.getMemberId()).build());
        }
        expect(joined.getErrorCode(), "JoinGroup");
        String memberId = joined.getMemberId();
        int generation = joined.getGenerationId();
        SyncGroupResponse synced = timed(blocking).syncGroup(SyncGroupRequest.newBuilder().setGroupId(groupId)
                .setMemberId(memberId).setGenerationId(generation).setProtocolType("consumer")
                .setProtocolName("range").addAssignments(SyncGroupRequest.Assignment.newBuilder()
                        .setMemberId(memberId)).build());
        expect(synced.getErrorCode(), "SyncGroup");
        expect(timed(blocking).heartbeat(HeartbeatRequest.newBuilder().setGroupId(groupId).setMemberId(memberId)
                .setGenerationId(generation).build()).getErrorCode(), "Heartbeat");
        expect(timed(blocking).offsetCommit(commit(groupId, memberId, generation, 1)).getTopics(0).getPartitions(0)
                .getErrorCode(), "OffsetCommit");
        expect(timed(blocking).leaveGroup(LeaveGroupRequest.newBuilder().setGroupId(groupId)
                .addMembers(LeaveGroupRequest.Member.newBuilder().setMemberId(memberId)).build()).getErrorCode(),
                "LeaveGroup");
        return 1;
    }

    private static OffsetCommitRequest commit(String groupId, String memberId, int generation, long offset) {
        return OffsetCommitRequest.newBuilder().setGroupId(groupId).setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(generation)
                .addTopics(OffsetCommitRequest.Topic.newBuilder().setName("warmup")
                        .addPartitions(OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(0)
                                .setCommittedOffset(offset)))
                .build();
    }

    private static String groupId(int group) {
        return "warmup-" + group;
    }

    private static GroupCoordinatorGrpc.GroupCoordinatorBlockingStub timed(
            GroupCoordinatorGrpc.GroupCoordinatorBlockingStub stub) {
        return stub.withDeadlineAfter(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private static <T> T await(java.util.concurrent.Future<T> call) throws IOException, InterruptedException {
        try {
            return call.get();
        } catch (ExecutionException e) {
            throw new IOException("warm-up call failed: " + e.getCause(), e.getCause());
        }
    }

    private static void expect(ErrorCode code, String call) throws IOException {
        if (code != ErrorCode.NONE) {
            throw new IOException(call + " answered " + code);
        }
    }

    private static void throwIf(BooleanSupplier giveUp) throws TimeoutException {
        if (giveUp.getAsBoolean()) {
            throw new TimeoutException("stopped or past its " + DEADLINE_MS + " ms deadline");
        }
    }

    /**
     * Deletes the warm-up directories in {@code tempDir} whose JVM is gone (killed during its
     * warm-up); a directory it cannot delete (another user's) is left alone.
     */
    static void deleteLeftovers(Path tempDir) {
        try (java.nio.file.DirectoryStream<Path> dirs = Files.newDirectoryStream(tempDir, DIR_PREFIX + "*")) {
            for (Path leftover : dirs) {
                String pid = leftover.getFileName().toString().substring(DIR_PREFIX.length());
                if (!pid.matches("[0-9]{1,18}") || ProcessHandle.of(Long.parseLong(pid)).isPresent()) {
                    continue;
                }
                try {
                    Directories.deleteRecursively(leftover);
                } catch (IOException | java.io.UncheckedIOException e) {
                    // Another node on this machine may be deleting the same leftover (both start at once).
                    LOG.debug("cannot delete {}: {}", leftover, e.toString());
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot list {}: {}", tempDir, e.toString());
        }
    }

    /**
     * The machine-wide lock ({@code <tempDir>/cohort-warmup.lock}) that a warm-up holds from picking its
     * ports to binding them, returned as its open channel (closing it releases the lock; so does the
     * OS if the JVM dies). Waits for another warm-up's start (a few seconds) until {@code giveUp}.
     */
    private static FileChannel portPickLock(Path tempDir, BooleanSupplier giveUp)
            throws IOException, InterruptedException, TimeoutException {
        FileChannel channel = FileChannel.open(tempDir.resolve("cohort-warmup.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            while (true) {
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException heldInThisJvm) {
                    lock = null;
                }
                if (lock != null) {
                    return channel;
                }
                throwIf(giveUp);
                Thread.sleep(50);
            }
        } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** A loopback port the OS has just handed out and released; the throwaway nodes bind it next. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
