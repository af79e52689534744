package io.cohort.server.rpc;

import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.server.auth.Principals;
import io.grpc.Metadata;
import io.grpc.ServerBuilder;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import java.util.concurrent.Executor;

/**
 * Which threads carry an offset commit through the node (docs/OPERATIONS.md, "Request threads").
 *
 * <p>A commit crosses the client port's event loop, a handler thread, the Raft log and appender
 * threads, the apply thread, a responder thread and the event loop again. Each hand-over is a
 * wake-up, and on a small machine the wake-ups cost more than the work they move. Taking out the two
 * hand-overs below measured, in interleaved windows on one 2-core machine, 7% more commits/s at 8
 * committers and 9% more at 32, with 13-18% less leader CPU per commit; no difference at 1
 * committer (docs/BENCHMARKS.md, "Tuning" #14). A linearizable OffsetFetch takes the same way out
 * (Tuning #30), and so do a Heartbeat (#31) and a ConsumerGroupHeartbeat that changes nothing (#32).
 * All five are on by default and can be turned off one by one.
 *
 * @param offsetCommitOnEventLoop {@code rpc.offset.commit.inline}: OffsetCommit's handler (validate,
 *        authorize, queue the command for its Raft entry) runs on the client port's event loop
 *        instead of being handed to the RPC executor (not a call with a bearer token, see
 *        {@link #applyTo}). It waits for nothing of its own, but proposing an entry takes Ratis's
 *        server lock, which a role change holds for moments, and looking up a Raft group waits
 *        while Ratis creates it (an empty replica for a move); such a moment then also delays the
 *        other connections of that event loop
 * @param answersOnApplyThread {@code rpc.answer.inline}: an answer ready when its entry is applied
 *        (OffsetCommit, OffsetDelete, LeaveGroup) is mapped and sent on the partition's apply thread
 *        instead of being handed to the responder threads. Sending queues the bytes for the event
 *        loop and never waits; failures and parked calls keep the responder. (Reads are not answered at
 *        apply: one whose reads all completed inside their submits is answered on the handler's
 *        thread whatever this setting, one that waited on the responder.)
 * @param offsetFetchOnEventLoop {@code rpc.offset.fetch.inline}: OffsetFetch's handler (validate,
 *        authorize, submit the read) runs on the client port's event loop, and a read the leader's
 *        lease answers inside the submit is mapped and sent there too, so a fetch crosses no thread
 *        of the node but the event loop. A read that must wait (no valid lease: a round of
 *        heartbeats; the read index not applied yet) completes on a read-completion thread and is
 *        answered on the responder as before. The submit of a read takes no lock of Ratis (unlike a
 *        proposal's); looking up the Raft group can wait while Ratis creates it, as for OffsetCommit
 * @param heartbeatOnEventLoop {@code rpc.heartbeat.inline}: Heartbeat's handler (validate, authorize,
 *        check the member against the applied group, re-arm its session timer) runs and answers on
 *        the client port's event loop. It writes nothing and waits for nothing: the group's state is
 *        read beside the apply thread as the reads are, and re-arming a timer queues it on the node's
 *        timer thread (docs/BENCHMARKS.md, "Tuning" #31)
 * @param consumerHeartbeatOnEventLoop {@code rpc.consumer.heartbeat.inline}: ConsumerGroupHeartbeat's
 *        handler runs on the client port's event loop. A heartbeat that changes nothing (the steady
 *        state of a KIP-848 member) is computed against the applied group between two entries and
 *        answered there, its session timer re-armed on the timer thread, as a classic Heartbeat; one
 *        that changes the group is proposed from there, as OffsetCommit is, and answered on the
 *        responder when applied. Subscribed regexes are RE2J (linear time) and compiled once
 *        (docs/BENCHMARKS.md, "Tuning" #32)
 */
public record RpcThreads(boolean offsetCommitOnEventLoop, boolean answersOnApplyThread,
                         boolean offsetFetchOnEventLoop, boolean heartbeatOnEventLoop,
                         boolean consumerHeartbeatOnEventLoop) {

    /** Every hand-over taken out: the default. */
    public static final RpcThreads DEFAULT = new RpcThreads(true, true, true, true, true);

    /**
     * Sets {@code builder}'s executors. With any of the event-loop settings the server's executor
     * is the event loop itself, and every other call is moved to {@code handlers} as soon as its
     * method is looked up, before the interceptors and the handler run: gRPC looks the method up and
     * picks the call's executor on the server's executor, so only a direct one there keeps
     * OffsetCommit, OffsetFetch, Heartbeat and ConsumerGroupHeartbeat off a second thread. A
     * call carrying a bearer token is moved too: the first check of a token is a PBKDF2 of the token
     * file's rounds (210,000 by default, {@code TokenHash.DEFAULT_ITERATIONS}), which must not hold an
     * event loop. Otherwise every call runs on {@code handlers}.
     */
    public <T extends ServerBuilder<T>> T applyTo(T builder, Executor handlers) {
        if (!offsetCommitOnEventLoop && !offsetFetchOnEventLoop && !heartbeatOnEventLoop
                && !consumerHeartbeatOnEventLoop) {
            return builder.executor(handlers);
        }
        return builder.directExecutor().callExecutor(new ServerCallExecutorSupplier() {
            @Override
            public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata headers) {
                return onEventLoop(call.getMethodDescriptor().getFullMethodName(),
                        headers.containsKey(Principals.AUTHORIZATION)) ? null : handlers;
            }
        });
    }

    /** Whether a call of {@code fullMethodName} runs its handler on the event loop that read it. */
    boolean onEventLoop(String fullMethodName, boolean carriesBearerToken) {
        if (carriesBearerToken) {
            return false;
        }
        if (GroupCoordinatorGrpc.getOffsetCommitMethod().getFullMethodName().equals(fullMethodName)) {
            return offsetCommitOnEventLoop;
        }
        if (GroupCoordinatorGrpc.getOffsetFetchMethod().getFullMethodName().equals(fullMethodName)) {
            return offsetFetchOnEventLoop;
        }
        if (GroupCoordinatorGrpc.getHeartbeatMethod().getFullMethodName().equals(fullMethodName)) {
            return heartbeatOnEventLoop;
        }
        return consumerHeartbeatOnEventLoop
                && GroupCoordinatorGrpc.getConsumerGroupHeartbeatMethod().getFullMethodName().equals(fullMethodName);
    }
}
