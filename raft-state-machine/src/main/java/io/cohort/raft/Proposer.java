package io.cohort.raft;

import io.cohort.core.command.Command;
import io.cohort.core.command.ConsumerGroupHeartbeat;
import io.cohort.core.shard.Result;
import io.cohort.raft.log.LogCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits commands for one partition to the local Raft division, in-process (as Apache Ozone's
 * Ozone Manager does): no RaftClient and no network hop to itself.
 *
 * <p>Group commit: commands queue up while earlier entries are in flight, and each flush takes up to
 * {@code maxBatchCommands} of them (bounded in bytes too) into ONE log entry, stamped once with the
 * leader's clock. An idle partition flushes a lone command at once, so batching costs no latency;
 * under load the per-entry cost of the engine (an fsync every entry or two, appender and apply
 * overhead) is paid once per batch. At most {@code maxInFlight} entries are outstanding, which is
 * what lets the queue fill.
 *
 * <p>Linger: synchronous clients come back in a burst after their entry is applied, and the first
 * of them would otherwise go out alone, leaving the rest to wait a whole round behind it (entries
 * alternating between 1 and C-1 commands, every client paying two rounds per commit). So when an
 * entry is applied, the proposer expects as many commands for the next entry as that entry
 * answered at once (parked calls are not coming back soon), scaled by the share of answered clients
 * that recently did come back within the linger ({@link BatchExpectation}: clients that pause
 * between commits do not), plus those that queued during its flight, and a free slot waits for that
 * many, or at most {@code lingerMaxNanos}. A partition with one client expects one command and never
 * waits; when the load drops, one entry waits the whole linger and the next expectation is smaller.
 */
final class Proposer {
    private static final Logger LOG = LoggerFactory.getLogger(Proposer.class);

    private final int partition;
    private final RaftServer server;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;
    private final ClientId clientId;
    private final int maxBatchCommands;
    private final int maxBatchBytes;
    private final int maxInFlight;
    private final long requestTimeoutMs;
    private final long lingerMaxNanos;
    private final ScheduledExecutorService lingerTimer;
    private final IntSupplier leaderHint;

    private final AtomicLong callIds = new AtomicLong();
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final ConcurrentHashMap<Long, List<Pending>> inFlightBatches = new ConcurrentHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean flushing = new AtomicBoolean();
    private final AtomicLong lastStampMs = new AtomicLong();
    private final AtomicLong entriesProposed = new AtomicLong();
    private final AtomicLong commandsProposed = new AtomicLong();
    private final AtomicLong lingerExpiries = new AtomicLong();
    /** Learns how many of an entry's clients come back within the linger (see the class comment). */
    private final BatchExpectation expectation;
    /** Commands the next entry waits for (see the class comment); 0 or 1: none. */
    private volatile int expectedCommands;
    /** {@link System#nanoTime()} when the current linger ends; 0: not lingering. */
    private volatile long lingerDeadlineNanos;
    private volatile boolean closed;
    /** Set once this node's storage failed: the answer to every command from then on. */
    private volatile ProposalException storageFailure;

    /** One submitted command; {@code submittedNanos} ({@link System#nanoTime()}) starts its proposal timeout. */
    private record Pending(Command command, int sizeBytes, long submittedNanos, CompletableFuture<Result> future) {
    }

    Proposer(int partition, RaftServer server, RaftGroupId groupId, RaftPeerId selfId, ClientId clientId,
             RaftTuning tuning, ScheduledExecutorService lingerTimer, IntSupplier leaderHint) {
        this.partition = partition;
        this.server = server;
        this.groupId = groupId;
        this.selfId = selfId;
        this.clientId = clientId;
        this.maxBatchCommands = tuning.maxBatchCommands();
        this.maxBatchBytes = tuning.maxBatchBytes();
        this.maxInFlight = tuning.maxInFlightEntries();
        this.requestTimeoutMs = tuning.proposalTimeoutMs();
        this.lingerMaxNanos = TimeUnit.MICROSECONDS.toNanos(tuning.batchLingerMaxMicros());
        this.expectation = new BatchExpectation(lingerMaxNanos);
        this.lingerTimer = lingerTimer;
        this.leaderHint = leaderHint;
    }

    ClientId clientId() {
        return clientId;
    }

    /** Queues {@code command}; the future completes with its result once the entry is applied here. */
    CompletableFuture<Result> submit(Command command) {
        CompletableFuture<Result> future = new CompletableFuture<>();
        ProposalException refusal = storageFailure;
        if (refusal != null) {
            future.completeExceptionally(refusal);
            return future;
        }
        if (closed) {
            future.completeExceptionally(new ProposalException(ProposalException.Kind.SHUTTING_DOWN, -1,
                    "node is shutting down", null));
            return future;
        }
        int size = LogCodec.toProto(command).getSerializedSize();
        long nowNanos = System.nanoTime();
        expectation.onArrival(returnKey(command), nowNanos);
        queue.add(new Pending(command, size, nowNanos, future));
        queued.incrementAndGet();
        flush();
        return future;
    }

    private void flush() {
        while (!queue.isEmpty() && inFlight.get() < maxInFlight) {
            if (!flushing.compareAndSet(false, true)) {
                return;
            }
            boolean lingering = false;
            try {
                lingering = lingers();
                if (!lingering) {
                    List<Pending> batch = drainBatch();
                    if (!batch.isEmpty()) {
                        inFlight.incrementAndGet();
                        send(batch);
                    }
                }
            } finally {
                flushing.set(false);
            }
            // A command that arrived after lingers() decided, and found the flag still taken, is
            // counted here: go round again if the expected batch is complete now.
            long deadline = lingerDeadlineNanos;
            if (lingering && deadline != 0 && !expectationMet() && System.nanoTime() - deadline < 0) {
                return;
            }
        }
    }

    private boolean expectationMet() {
        return queued.get() >= Math.min(expectedCommands, maxBatchCommands);
    }

    /** Whether the free slot should wait for more commands; arms the linger timer on first asking. */
    private boolean lingers() {
        // A closing node's linger timer drops its task (DaemonScheduler): send at once instead.
        if (lingerMaxNanos == 0 || closed || expectationMet()) {
            lingerDeadlineNanos = 0;
            return false;
        }
        long now = System.nanoTime();
        long deadline = lingerDeadlineNanos;
        if (deadline == 0) {
            lingerTimer.schedule(this::flush, lingerMaxNanos, TimeUnit.NANOSECONDS);
            // The timer fires at or after now + linger. 0 means "not lingering": 1 ns earlier then.
            deadline = now + lingerMaxNanos;
            lingerDeadlineNanos = deadline != 0 ? deadline : -1;
            return true;
        }
        if (now - deadline < 0) {
            return true;
        }
        lingerDeadlineNanos = 0;
        lingerExpiries.incrementAndGet();
        return false;
    }

    private List<Pending> drainBatch() {
        List<Pending> batch = new ArrayList<>();
        int bytes = 0;
        Pending next;
        while (batch.size() < maxBatchCommands && (next = queue.peek()) != null) {
            if (next.future().isDone()) {
                // Answered already (its proposal timed out while it queued): the client gave up on it.
                queue.poll();
                queued.decrementAndGet();
                continue;
            }
            if (!batch.isEmpty() && bytes + next.sizeBytes() > maxBatchBytes) {
                break;
            }
            queue.poll();
            queued.decrementAndGet();
            batch.add(next);
            bytes += next.sizeBytes();
        }
        return batch;
    }

    private void send(List<Pending> batch) {
        long callId = callIds.incrementAndGet();
        // The leader's clock, never going backwards within this leader's entries.
        long stampMs = lastStampMs.updateAndGet(previous -> Math.max(previous, System.currentTimeMillis()));
        List<Command> commands = new ArrayList<>(batch.size());
        for (Pending pending : batch) {
            commands.add(pending.command());
        }
        byte[] entry = LogCodec.encodeEntry(stampMs, commands);
        inFlightBatches.put(callId, batch);
        entriesProposed.incrementAndGet();
        commandsProposed.addAndGet(batch.size());
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(groupId)
                .setCallId(callId)
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)))
                .setType(RaftClientRequest.writeRequestType())
                .setTimeoutMs(requestTimeoutMs)
                .build();
        CompletableFuture<RaftClientReply> reply;
        try {
            // On the division, not through the server: LocalRaftCalls.submitter says why.
            reply = LocalRaftCalls.submitter(server, groupId).submitClientRequestAsync(request);
        } catch (Exception e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, error) -> onReply(callId, r, error));
    }

    /** Called on the apply thread when the entry {@code callId} of this proposer was applied. */
    void onApplied(long callId, List<Result> results) {
        List<Pending> batch = inFlightBatches.remove(callId);
        if (batch == null) {
            return;
        }
        if (batch.size() != results.size()) {
            throw new IllegalStateException("partition " + partition + ": entry " + callId + " had " + batch.size()
                    + " commands but " + results.size() + " results");
        }
        // Clients answered now may come back soon (BatchExpectation learns how many do); parked ones
        // (a JoinGroup waiting for its rebalance) do not. Everything queued now arrived while this
        // entry was in flight, so none of it comes from this entry's clients: together they are the
        // load the next entry should carry.
        if (lingerMaxNanos == 0) {
            expectedCommands = 0;
        } else {
            List<String> answeredNow = new ArrayList<>(results.size());
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).reply() instanceof Result.Reply.Now) {
                    answeredNow.add(returnKey(batch.get(i).command()));
                }
            }
            expectedCommands = expectation.onApplied(answeredNow, queued.get(), System.nanoTime());
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).future().complete(results.get(i));
        }
    }

    /**
     * Who a command comes from, as far as the linger can tell ({@link BatchExpectation}): its group id,
     * since a consumer sends its next commit, heartbeat or join for its own group. Null for commands no
     * client is waiting to follow up (the leader's timers, administration).
     */
    static String returnKey(Command command) {
        if (command instanceof Command.OffsetCommit commit) {
            return commit.groupId();
        } else if (command instanceof ConsumerGroupHeartbeat heartbeat) {
            return heartbeat.groupId();
        } else if (command instanceof Command.JoinGroup join) {
            return join.groupId();
        } else if (command instanceof Command.SyncGroup sync) {
            return sync.groupId();
        } else if (command instanceof Command.LeaveGroup leave) {
            return leave.groupId();
        } else if (command instanceof Command.OffsetDelete delete) {
            return delete.groupId();
        }
        return null;
    }

    private void onReply(long callId, RaftClientReply reply, Throwable error) {
        try {
            List<Pending> batch = inFlightBatches.remove(callId);
            if (batch != null) {
                expectedCommands = 0;
                ProposalException failure = toFailure(reply, error);
                for (Pending pending : batch) {
                    pending.future().completeExceptionally(failure);
                }
            }
        } finally {
            inFlight.decrementAndGet();
            flush();
        }
    }

    private ProposalException toFailure(RaftClientReply reply, Throwable error) {
        if (error == null && reply != null) {
            NotLeaderException notLeader = reply.getNotLeaderException();
            if (notLeader != null) {
                return new ProposalException(ProposalException.Kind.NOT_LEADER, leaderHint.getAsInt(),
                        "partition " + partition + ": not the leader", notLeader);
            }
            if (reply.getLeaderNotReadyException() != null) {
                return new ProposalException(ProposalException.Kind.NOT_READY, -1,
                        "partition " + partition + ": leader not ready", reply.getLeaderNotReadyException());
            }
            if (reply.getLeaderSteppingDownException() != null) {
                // A leadership transfer is under way: Ratis refuses writes, without appending them,
                // until the transferee is elected (or the transfer times out). The client should wait
                // here and be sent on by the NOT_COORDINATOR that follows, not look up a coordinator
                // that is about to change.
                return new ProposalException(ProposalException.Kind.NOT_READY, -1,
                        "partition " + partition + ": leadership is being handed over",
                        reply.getLeaderSteppingDownException());
            }
            if (reply.isSuccess()) {
                // Replied without our apply hook having seen the entry: should not happen; the safe
                // answer is "unknown outcome", which clients retry.
                return new ProposalException(ProposalException.Kind.INDETERMINATE, -1,
                        "partition " + partition + ": entry acknowledged without apply results", null);
            }
            return new ProposalException(ProposalException.Kind.INDETERMINATE, leaderHint.getAsInt(),
                    "partition " + partition + ": " + reply.getException(), reply.getException());
        }
        Throwable cause = error;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof NotLeaderException) {
            return new ProposalException(ProposalException.Kind.NOT_LEADER, leaderHint.getAsInt(),
                    "partition " + partition + ": not the leader", cause);
        }
        if (closed) {
            return new ProposalException(ProposalException.Kind.SHUTTING_DOWN, -1, "node is shutting down", cause);
        }
        LOG.debug("partition {}: proposal failed", partition, cause);
        return new ProposalException(ProposalException.Kind.INDETERMINATE, leaderHint.getAsInt(),
                "partition " + partition + ": outcome unknown: " + cause, cause);
    }

    /**
     * Answers every command submitted more than the proposal timeout before {@code nowNanos} and
     * still unanswered: INDETERMINATE, since its entry may yet commit. Ratis itself never times out a
     * write (the request's timeout is not enforced), so a leader whose log cannot be written, or
     * that cannot reach a majority while still leading, would otherwise hold its clients until their
     * own deadline. Only the futures are completed: the bookkeeping stays as it is, an entry still
     * in flight is accounted for when Ratis replies, and a command still queued is dropped unsent.
     */
    void expireOverdue(long nowNanos) {
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        for (Pending pending : queue) {
            if (nowNanos - pending.submittedNanos() < timeoutNanos) {
                break; // the queue is in submission order
            }
            timeOut(pending);
        }
        for (List<Pending> batch : inFlightBatches.values()) {
            for (Pending pending : batch) {
                if (nowNanos - pending.submittedNanos() >= timeoutNanos) {
                    timeOut(pending);
                }
            }
        }
    }

    private void timeOut(Pending pending) {
        if (!pending.future().isDone()) {
            pending.future().completeExceptionally(new ProposalException(ProposalException.Kind.INDETERMINATE,
                    leaderHint.getAsInt(), "partition " + partition + ": not committed within the proposal timeout ("
                    + requestTimeoutMs + " ms); outcome unknown", null));
        }
    }

    /**
     * Answers everything queued or in flight with {@code failure} at once and refuses what comes
     * later: this node's storage failed, so nothing it leads can commit through it.
     */
    void failAll(ProposalException failure) {
        storageFailure = failure;
        failPending(failure);
    }

    /** Fails everything queued or in flight (shutdown). */
    void close() {
        closed = true;
        failPending(new ProposalException(ProposalException.Kind.SHUTTING_DOWN, -1, "node is shutting down", null));
    }

    private void failPending(ProposalException failure) {
        Pending pending;
        while ((pending = queue.poll()) != null) {
            queued.decrementAndGet();
            pending.future().completeExceptionally(failure);
        }
        inFlightBatches.values().forEach(batch -> batch.forEach(p -> p.future().completeExceptionally(failure)));
        inFlightBatches.clear();
    }

    long entriesProposed() {
        return entriesProposed.get();
    }

    long commandsProposed() {
        return commandsProposed.get();
    }

    /** Entries sent because the linger ran out before the expected commands arrived. */
    long lingerExpiries() {
        return lingerExpiries.get();
    }
}
