package io.cohort.server.rpc;

import io.cohort.raft.log.LogCodec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The log-format gate of the consumer protocol: a consumer-group heartbeat that changes state writes
 * a log entry of format 4, which a node of an older release cannot apply (it stops applying the
 * partition rather than diverge), so the first such write waits until every node reads format 4
 * ({@link LogFormatGate}). Asking every node on every write would cost a round trip to each, so
 * the answer is kept: once every node read format 4 this node does not ask again (a release does
 * not go back to an older format once format-4 entries exist: docs/OPERATIONS.md), and a refusal
 * is repeated for {@link #REFUSAL_KEPT_MS} before the nodes are asked again.
 *
 * <p>The nodes need not be asked at all once a format-4 entry was committed anywhere in the
 * cluster: the topic registry holds a topic (partition 0, whose replicas are every node, wrote it
 * only after every node read format 4), or this partition already holds a consumer group. Then a
 * node that does not read format 4 is stopped already, and a new coordinator after a failover (whose
 * gate never opened, with the old coordinator down and unable to answer) must not refuse the group.
 */
final class ConsumerProtocolGate {
    static final long REFUSAL_KEPT_MS = 5_000;

    private final Supplier<CompletableFuture<String>> check;
    private final BooleanSupplier alreadyWritten;
    private final AtomicBoolean open = new AtomicBoolean();
    private volatile CompletableFuture<String> pending;
    private volatile long refusedAtNanos;

    /** {@code alreadyWritten}: whether format-4 state exists (then the gate is open). */
    ConsumerProtocolGate(LogFormatGate gate, BooleanSupplier alreadyWritten) {
        this(() -> gate.refusal(LogCodec.FORMAT_VERSION_KIP848, "The consumer protocol"), alreadyWritten);
    }

    /** {@code check}: asks every node; completes with null if all read format 4, else why not. */
    ConsumerProtocolGate(Supplier<CompletableFuture<String>> check, BooleanSupplier alreadyWritten) {
        this.check = check;
        this.alreadyWritten = alreadyWritten;
    }

    /** Null when every node reads format 4; else why not (the answer is UNSUPPORTED_VERSION). */
    CompletableFuture<String> refusal() {
        if (open.get()) {
            return CompletableFuture.completedFuture(null);
        }
        if (alreadyWritten.getAsBoolean()) {
            open.set(true);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<String> current = pending;
        if (current != null && (!current.isDone()
                || System.nanoTime() - refusedAtNanos < REFUSAL_KEPT_MS * 1_000_000L)) {
            return current;
        }
        synchronized (this) {
            if (pending != current) {
                return pending;
            }
            CompletableFuture<String> asked = check.get()
                    .whenComplete((refusal, error) -> {
                        if (error == null && refusal == null) {
                            open.set(true);
                        } else {
                            refusedAtNanos = System.nanoTime();
                        }
                    });
            pending = asked;
            return asked;
        }
    }
}
