package io.cohort.raft.net;

import java.util.concurrent.Executor;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallExecutorSupplier;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;

/**
 * Runs a follower's AppendEntries messages on the Raft port's I/O thread that read them
 * ({@code raft.append.inline}, default true), instead of handing each to gRPC's shared executor
 * first; every other Raft call (votes, snapshot installs, read indexes, leader transfers) stays on
 * that executor.
 *
 * <p>Why: an AppendEntries message costs the follower only a check under the division's lock and
 * a hand-over of the entries to Ratis's own threads (the log append and the reply already run
 * there), so the hand-off to gRPC's executor was a thread wake-up per message for nothing: a
 * commit at C=1 woke 10.6-10.8 threads per follower with it and 8.0-8.3 without
 * (docs/BENCHMARKS.md, Tuning #34). What may still block the I/O thread, briefly: the follower's
 * term change when a new leader's first message arrives (Ratis writes its vote metadata and stops
 * the old role's threads) and the division's lock while another thread holds it. Votes and
 * snapshot chunks, which write to disk, are the calls kept off the I/O thread.
 */
public final class InlineAppendEntries implements ServerCallExecutorSupplier {
    /** The full gRPC method name of Ratis's AppendEntries stream (heartbeats included). */
    static final String APPEND_ENTRIES = MethodDescriptor.generateFullMethodName(
            RaftServerProtocolServiceGrpc.SERVICE_NAME, "appendEntries");
    /** Runs a call's messages on the thread that hands them over: the transport's I/O thread. */
    private static final Executor ON_IO_THREAD = Runnable::run;

    private static final InlineAppendEntries INSTANCE = new InlineAppendEntries();

    private InlineAppendEntries() {
    }

    /** {@code builder} with AppendEntries run on its I/O threads. */
    public static NettyServerBuilder install(NettyServerBuilder builder) {
        return builder.callExecutor(INSTANCE);
    }

    /** The I/O thread for AppendEntries; null (the server's executor) for every other call. */
    @Override
    public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata headers) {
        return APPEND_ENTRIES.equals(call.getMethodDescriptor().getFullMethodName()) ? ON_IO_THREAD : null;
    }
}
