package io.cohort.raft;

import io.cohort.core.command.Command;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.core.shard.Result;
import io.cohort.core.shard.StateCut;
import io.cohort.raft.log.LogCodec;
import io.cohort.raft.log.NewerLogFormatException;
import io.cohort.raft.log.SnapshotCodec;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of one offsets partition: a thin adapter that decodes each committed
 * entry, hands its commands in order to the core shard with the entry's leader time, and reports
 * the results. It never decides anything about groups itself.
 *
 * <p>Every replica applies every entry, so every follower holds warm, identical groups and offsets;
 * a new leader needs no loading. Results go to {@link Hooks#onApplied} on every replica: on the
 * leader they complete the proposer's futures and the parked calls and arm timers; followers drop
 * them. Nothing is encoded on the way back: the proposer submits in-process, so results are handed
 * over as objects.
 *
 * <p>Protocol errors are values inside results. A record that breaks an invariant in replay throws
 * and stops the partition on purpose: a replica must not diverge. An entry whose bytes do not decode
 * (not a Cohort log entry, an unknown format version, a command that does not decode) is different:
 * decoding is a pure function of the committed bytes, so every replica decides the same, and the
 * entry is skipped, counted ({@link #undecodableEntriesSkipped()}) and logged with its index, never
 * applied in part. Only entries built by this node's proposer are accepted on the leader
 * ({@link #startTransaction}), so such an entry can only come from a bug or a corrupted log, and
 * must not stop the partition forever (it would replay at every start). A snapshot that fails to
 * decode still fails the start: skipping it would silently lose its state.
 */
public final class PartitionStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStateMachine.class);

    /** What the node runtime wants to hear from a partition. */
    public interface Hooks {
        /**
         * An entry was applied. {@code clientId} and {@code callId} name the proposal that created it
         * (they are in the log entry, so every replica sees them). Runs on the apply thread.
         */
        void onApplied(int partition, long index, ClientId clientId, long callId, List<Result> results);

        void onLeaderChanged(int partition, RaftPeerId leaderId);

        void onLeaderReady(int partition);

        void onNotLeader(int partition);

        /**
         * This replica could not write its storage ({@code what}: "log" or "snapshot"): disk full,
         * an I/O error. Ratis cannot recover a replica whose log failed (its log worker refuses every
         * later write until the replica is reopened), so the node must stop.
         */
        void onStorageFailed(int partition, String what, Throwable cause);

        /**
         * Ratis shut this replica down because its group's configuration no longer lists it (the
         * node was removed: its election found it not in the configuration, or the leader said so).
         */
        default void onRemovedFromGroup(int partition) {
        }
    }

    private final int partition;
    private final GroupCoordinatorShard shard;
    private final Hooks hooks;
    /** The client id of the node's in-process proposer: the only writer this partition accepts. */
    private final ClientId proposerClientId;
    private final AtomicLong undecodableEntriesSkipped = new AtomicLong();
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final AtomicLong readIds = new AtomicLong();
    /** A sequence lock around apply: odd while an entry is being applied (for consistent digests). */
    private final AtomicLong applySequence = new AtomicLong();
    private final ConcurrentHashMap<Long, Runnable> pendingReads = new ConcurrentHashMap<>();
    /** Cuts asked for ({@link #cutBetweenEntries}) that the apply thread takes after its next entry. */
    private final ConcurrentLinkedQueue<CompletableFuture<CutAt>> cutRequests = new ConcurrentLinkedQueue<>();
    /** When this replica takes a snapshot on its own (apply thread only). */
    private final LogReplayBound replayBound;
    /** Writes the snapshots, those this replica takes on its own beside the apply thread. */
    private final PartitionSnapshots snapshots;

    /**
     * {@code snapshotEveryEntries}: snapshot every that many entries ({@code raft.snapshot.every.entries});
     * {@code snapshotMinEntries}: also once that many entries since the last snapshot hold as many
     * bytes as it, while the state is small ({@link LogReplayBound}; {@code raft.snapshot.min.entries};
     * {@link Long#MAX_VALUE}: never). Both written beside the apply thread ({@link PartitionSnapshots}).
     */
    public PartitionStateMachine(int partition, GroupCoordinatorShard shard, Hooks hooks, ClientId proposerClientId,
                                 long snapshotEveryEntries, long snapshotMinEntries) {
        this.partition = partition;
        this.shard = shard;
        this.hooks = hooks;
        this.proposerClientId = proposerClientId;
        this.replayBound = new LogReplayBound(snapshotEveryEntries, snapshotMinEntries,
                LogReplayBound.SMALL_STATE_MAX_RECORDS);
        this.snapshots = new PartitionSnapshots(partition, storage, hooks, PartitionSnapshots.WRITER);
    }

    public int partition() {
        return partition;
    }

    /** The core shard; read methods on it are safe beside apply. */
    public GroupCoordinatorShard shard() {
        return shard;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        // NEW -> STARTING -> RUNNING: Ratis checks the life cycle around snapshot installs (below).
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            snapshots.retainFiles(RaftServerConfigKeys.Snapshot.retentionFileNum(server.getProperties()));
            loadLatestSnapshot();
        }, IOException.class);
    }

    /**
     * Ratis pauses the state machine before it installs a snapshot from the leader on this
     * follower, and its updater asserts the state is PAUSED before {@link #reinitialize()}.
     * BaseStateMachine's pause() does nothing, so without this the assertion killed the
     * partition's updater thread and closed the replica for good (found by the chaos run, seed
     * 4242: a follower that fell behind the leader's purged log never caught up again).
     */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /** Called after a snapshot was installed from the leader: load it, replacing the state; run again. */
    @Override
    public void reinitialize() throws IOException {
        loadLatestSnapshot();
        // A cut asked for while the snapshot loaded (inside the sequence lock) waits for the apply
        // thread, which this is: an idle partition would bring it no entry.
        serveCutRequests();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /**
     * On the leader, before an entry is appended: only the node's own proposer may write. Ratis's
     * client service is closed to the network ({@link RaftPortGuard}); this keeps any other in-process
     * caller out too, so the leader appends only entries Cohort built.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        if (!proposerClientId.equals(request.getClientId())) {
            return TransactionContext.newBuilder()
                    .setStateMachine(this)
                    .setClientRequest(request)
                    .build()
                    .setException(new IOException("partition " + partition + " accepts entries from this node's"
                            + " proposer only, not from client " + request.getClientId()));
        }
        return super.startTransaction(request);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        LogCodec.DecodedEntry decoded;
        try {
            decoded = LogCodec.decodeEntry(data.asReadOnlyByteBuffer());
        } catch (NewerLogFormatException e) {
            // A newer build wrote it and the replicas that can read it apply it: skipping it here
            // would diverge from them, so this replica stops applying the partition until upgraded.
            LOG.error("partition {}: the committed entry at index {} (term {}) has log format {}, newer than this"
                    + " build reads; this replica stops applying the partition. Upgrade this node.",
                    partition, entry.getIndex(), entry.getTerm(), e.formatVersion());
            throw e;
        } catch (RuntimeException e) {
            // Pure function of the committed bytes: every replica skips the same entries.
            skipUndecodable(entry, e);
            return CompletableFuture.completedFuture(Message.EMPTY);
        }
        List<Result> results = new ArrayList<>(decoded.commands().size());
        applySequence.incrementAndGet();
        try {
            for (Command command : decoded.commands()) {
                results.add(shard.apply(command, decoded.leaderTimeMs(), decoded.stateLimitsApply()));
            }
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        } finally {
            applySequence.incrementAndGet();
        }
        hooks.onApplied(partition, entry.getIndex(),
                ClientId.valueOf(entry.getStateMachineLogEntry().getClientId()),
                entry.getStateMachineLogEntry().getCallId(), results);
        serveCutRequests();
        long writtenBytes = snapshots.takeWrittenBytes();
        if (writtenBytes >= 0) {
            replayBound.onSnapshotWritten(writtenBytes);
        }
        if (replayBound.onApplied(entry.getIndex(), data.size(), shard.stateRecords()) && !snapshots.writing()) {
            startSnapshot(entry);
        }
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /**
     * Cuts the state after {@code entry} and has it written beside this apply thread, which goes on
     * applying meanwhile ({@link PartitionSnapshots}).
     */
    private void startSnapshot(LogEntryProto entry) {
        LOG.debug("partition {}: {} entries ({} bytes) applied since the last snapshot; taking one", partition,
                replayBound.entriesSinceSnapshot(), replayBound.bytesSinceSnapshot());
        // Wall time for the operator's log only: it never reaches the replicated state.
        long startNanos = System.nanoTime();
        boolean routine = !replayBound.countReached();
        StateCut cut = shard.cut();
        replayBound.onCut(entry.getIndex());
        snapshots.startAsync(cut, TermIndex.valueOf(entry.getTerm(), entry.getIndex()),
                System.nanoTime() - startNanos, routine,
                index -> getServer().join().getDivision(getGroupId()).getRaftLog().purge(index));
    }

    private void skipUndecodable(LogEntryProto entry, RuntimeException cause) {
        long skipped = undecodableEntriesSkipped.incrementAndGet();
        LOG.error("partition {}: skipped the committed entry at index {} (term {}, {} bytes, client {}): it does not"
                        + " decode as a Cohort log entry: {}. Every replica skips it the same way; {} skipped so far",
                partition, entry.getIndex(), entry.getTerm(), entry.getStateMachineLogEntry().getLogData().size(),
                ClientId.valueOf(entry.getStateMachineLogEntry().getClientId()), cause.toString(), skipped);
        applySequence.incrementAndGet();
        try {
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        } finally {
            applySequence.incrementAndGet();
        }
        serveCutRequests();
    }

    /** A cut of the state and the applied entry it follows (null: nothing applied yet). */
    public record CutAt(TermIndex at, StateCut cut) {
    }

    /**
     * A cut of the whole state between two entries, at or after every entry applied when this is
     * called, for an image that must not hold the apply thread while it is written (a backup's
     * export, {@link PartitionSnapshotExport}): the cut costs the apply thread a reference per group
     * ({@link StateCut}), the records and their bytes are the caller's. Taken beside apply at once
     * if no entry is being applied (an idle replica's apply thread would never come to it), else by
     * the apply thread right after the entry it is applying (or the installed snapshot it is
     * loading). Fails after {@code timeoutMs} if neither happens (a replica that stopped applying in
     * an entry), or when the replica closes.
     */
    CompletableFuture<CutAt> cutBetweenEntries(long timeoutMs) {
        return cutBetweenEntries(timeoutMs, 3);
    }

    /** {@link #cutBetweenEntries(long)}, trying a cut beside apply {@code besideAttempts} times (0: the apply thread's). */
    CompletableFuture<CutAt> cutBetweenEntries(long timeoutMs, int besideAttempts) {
        CompletableFuture<CutAt> request = new CompletableFuture<>();
        request.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((cut, error) -> {
            if (error != null) {
                cutRequests.remove(request);
            }
        });
        cutRequests.add(request);
        // Whatever the apply thread does after this, it serves the request if this read fails: a
        // failed read means an entry was being applied, or a snapshot loaded, or either ended, after
        // the request was queued, and the apply thread serves the queue after each.
        try {
            Optional<CutAt> beside = readBetweenEntries(state -> new CutAt(getLastAppliedTermIndex(), state.cut()),
                    besideAttempts);
            if (beside.isPresent() && cutRequests.remove(request)) {
                request.complete(beside.get());
            }
        } catch (RuntimeException e) {
            if (cutRequests.remove(request)) {
                request.completeExceptionally(e);
            }
        }
        return request;
    }

    /** Takes one cut for every request queued (apply thread, between two entries). */
    private void serveCutRequests() {
        if (cutRequests.isEmpty()) {
            return;
        }
        CutAt cut = new CutAt(getLastAppliedTermIndex(), shard.cut());
        for (CompletableFuture<CutAt> request; (request = cutRequests.poll()) != null; ) {
            request.complete(cut);
        }
    }

    /**
     * Committed entries this replica skipped because they did not decode, since it started (a replay
     * of the log at start meets them again; one covered by a snapshot is not met again).
     */
    public long undecodableEntriesSkipped() {
        return undecodableEntriesSkipped.get();
    }

    /**
     * Runs {@code read} against the shard after Ratis confirmed, through a read index or the leader
     * lease, that this replica has applied everything committed before the read arrived. The read
     * request carries only an id; the closure stays in memory on this node.
     */
    public Message registerRead(Runnable read) {
        long id = readIds.incrementAndGet();
        pendingReads.put(id, read);
        return Message.valueOf(ByteString.copyFrom(ByteBuffer.allocate(Long.BYTES).putLong(0, id)));
    }

    /** Forgets a read whose request failed before reaching {@link #query}. */
    public void abandonRead(Message message) {
        pendingReads.remove(message.getContent().asReadOnlyByteBuffer().getLong(0));
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        Runnable read = pendingReads.remove(request.getContent().asReadOnlyByteBuffer().getLong(0));
        if (read != null) {
            read.run();
        }
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /**
     * Ratis asks for a snapshot (an operator, through Ratis's admin interface; its own trigger is
     * off, and a backup's export cuts instead, {@link #cutBetweenEntries}): one of everything
     * applied, written here on the apply thread ({@link PartitionSnapshots#take}).
     */
    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return RaftLogIndex.INVALID;
        }
        return snapshots.take(last, () -> {
            replayBound.onCut(last.getIndex());
            return shard.cut();
        });
    }

    @Override
    public void close() throws IOException {
        snapshots.close();
        for (CompletableFuture<CutAt> request; (request = cutRequests.poll()) != null; ) {
            request.completeExceptionally(new IOException("partition " + partition + ": the replica closed"));
        }
        super.close();
    }

    private void loadLatestSnapshot() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        if (snapshot == null) {
            return;
        }
        Path path = snapshot.getFile().getPath();
        if (snapshot.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(path.toFile(), snapshot.getFile().getFileDigest());
        }
        SnapshotCodec.Snapshot loaded;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16)) {
            loaded = SnapshotCodec.read(in);
        }
        if (loaded.partition() != partition) {
            throw new IOException("snapshot " + path + " belongs to partition " + loaded.partition()
                    + ", not " + partition);
        }
        // Inside the sequence lock: a read beside apply must not see the state half replaced.
        applySequence.incrementAndGet();
        try {
            shard.restore(loaded.records());
            setLastAppliedTermIndex(snapshot.getTermIndex());
        } finally {
            applySequence.incrementAndGet();
        }
        replayBound.onSnapshot(snapshot.getIndex(), Files.size(path));
        // Not TermIndex's toString: it prints the (0, 0) of a new replica (NewReplicas) as "<PROTO_DEFAULT>".
        LOG.info("partition {}: loaded snapshot at (t:{}, i:{}) ({} groups, {} offsets)", partition,
                snapshot.getTerm(), snapshot.getIndex(), shard.groupCount(), shard.offsetCount());
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
        hooks.onLeaderChanged(partition, newLeaderId);
    }

    @Override
    public void notifyLeaderReady() {
        hooks.onLeaderReady(partition);
    }

    @Override
    public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
        hooks.onNotLeader(partition);
    }

    /**
     * Ratis's log worker failed to write this replica's log ({@code failedEntry} is null when a
     * whole segment failed, e.g. while rolling to a new one). Ratis answers every later write of
     * this replica with "Log already failed", so the node has to stop.
     */
    @Override
    public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
        hooks.onStorageFailed(partition, "log", cause);
    }

    /**
     * {@code allServer} false: Ratis closed this division alone, which it does only when the
     * configuration no longer contains this peer (removed from the group); true: the whole server stops.
     */
    @Override
    public void notifyServerShutdown(org.apache.ratis.proto.RaftProtos.RoleInfoProto roleInfo, boolean allServer) {
        if (!allServer) {
            hooks.onRemovedFromGroup(partition);
        }
    }

    /** For tests and status: what this replica has applied. */
    public long lastAppliedIndex() {
        TermIndex last = getLastAppliedTermIndex();
        return last == null ? -1 : last.getIndex();
    }

    /** A digest of the whole state and the applied index it was taken at. */
    public record StateDigest(long appliedIndex, String digest) {
    }

    /**
     * A digest of this replica's state (equal on replicas that applied the same log), taken beside
     * apply: a sequence lock around apply is read before and after, and the digest is retried until
     * no entry was applied in between, so it belongs to exactly that index. Returns null if writes never
     * paused during {@code attempts} tries.
     */
    public StateDigest stateDigest(int attempts) {
        return readBetweenEntries(state -> new StateDigest(lastAppliedIndex(), SnapshotCodec.digest(state.snapshot())),
                attempts).orElse(null);
    }

    /**
     * Runs {@code read} against the shard between two entries: the sequence lock around apply is
     * read before and after, and the read is retried until no entry was applied meanwhile, so it saw
     * the state after exactly one applied entry, never a command's records half replayed. A read
     * that throws while an entry was being applied is retried too (it may have seen a torn state).
     * For answers computed from state that changes in several steps per command (consumer groups).
     *
     * @return the result, or empty if writes never paused during {@code attempts} tries
     */
    public <T> Optional<T> readBetweenEntries(Function<GroupCoordinatorShard, T> read,
                                                        int attempts) {
        for (int i = 0; i < attempts; i++) {
            long sequence = applySequence.get();
            if ((sequence & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            T result;
            try {
                result = read.apply(shard);
            } catch (RuntimeException e) {
                if (applySequence.get() == sequence) {
                    throw e;
                }
                continue;
            }
            if (applySequence.get() == sequence) {
                return Optional.ofNullable(result);
            }
        }
        return Optional.empty();
    }

    private static final class RaftLogIndex {
        static final long INVALID = -1;
    }
}
