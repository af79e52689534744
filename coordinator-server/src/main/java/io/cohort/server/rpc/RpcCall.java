package io.cohort.server.rpc;

import io.cohort.server.metrics.RpcMetrics;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One unary gRPC call being served: it is answered at most once, whichever thread gets there first
 * (the gRPC thread, the Ratis apply thread's hand-off, a parked-call completion, a step-down, or the
 * client's cancellation), and every outcome is reported to {@link RpcMetrics} once.
 */
final class RpcCall<T> {
    private static final Logger LOG = LoggerFactory.getLogger(RpcCall.class);

    private final String rpc;
    private final StreamObserver<T> observer;
    private final RpcMetrics metrics;
    private final long startNanos = System.nanoTime();
    private boolean finished;
    private boolean cancelled;
    private Runnable cancelListener;

    private RpcCall(String rpc, StreamObserver<T> observer, RpcMetrics metrics) {
        this.rpc = rpc;
        this.observer = observer;
        this.metrics = metrics;
    }

    /**
     * Starts serving a call. Must run inside the service method, before it returns: that is when
     * gRPC accepts a cancellation handler.
     */
    static <T> RpcCall<T> start(String rpc, StreamObserver<T> observer, RpcMetrics metrics) {
        RpcCall<T> call = new RpcCall<>(rpc, observer, metrics);
        if (observer instanceof ServerCallStreamObserver<T> serverObserver) {
            serverObserver.setOnCancelHandler(call::onCancelled);
        }
        return call;
    }

    String rpc() {
        return rpc;
    }

    /**
     * Sends {@code response} unless the call already ended.
     *
     * @param errorName the Kafka error name reported to metrics ("NONE" on success)
     * @return whether this call sent it
     */
    boolean respond(T response, String errorName) {
        synchronized (this) {
            if (finished) {
                return false;
            }
            finished = true;
        }
        try {
            observer.onNext(response);
            observer.onCompleted();
        } catch (RuntimeException e) {
            // The client went away between our check and the send; nothing is waiting for it.
            LOG.debug("{}: could not send the answer", rpc, e);
        }
        metrics.record(rpc, errorName, System.nanoTime() - startNanos);
        return true;
    }

    /** Ends the call with a non-OK gRPC status (INVALID_ARGUMENT, INTERNAL) unless it already ended. */
    boolean fail(Status status) {
        synchronized (this) {
            if (finished) {
                return false;
            }
            finished = true;
        }
        try {
            observer.onError(status.asRuntimeException());
        } catch (RuntimeException e) {
            LOG.debug("{}: could not send the error", rpc, e);
        }
        metrics.record(rpc, status.getCode().name(), System.nanoTime() - startNanos);
        return true;
    }

    /**
     * Runs {@code listener} when the client cancels the call (or its deadline passes) before it was
     * answered; at once if that already happened. One listener: a later one replaces it.
     */
    void whenCancelled(Runnable listener) {
        boolean runNow;
        synchronized (this) {
            cancelListener = listener;
            runNow = cancelled;
        }
        if (runNow) {
            listener.run();
        }
    }

    synchronized boolean isFinished() {
        return finished;
    }

    /** gRPC's cancellation handler; also usable by tests to simulate a client going away. */
    void onCancelled() {
        Runnable listener;
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            cancelled = true;
            listener = cancelListener;
        }
        metrics.record(rpc, "CANCELLED", System.nanoTime() - startNanos);
        if (listener != null) {
            listener.run();
        }
    }
}
