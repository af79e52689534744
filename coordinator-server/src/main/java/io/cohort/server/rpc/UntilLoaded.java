package io.cohort.server.rpc;

import io.cohort.server.auth.AclsNotLoadedException;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A call from one node to another that the other answers UNAVAILABLE while it cannot decide yet,
 * sent again until it can: a node being added authorizes a caller that is not a super user only
 * once it holds the ACLs (docs/SECURITY.md; {@code ClusterStateLoaded}), which is a moment after
 * the add lists it, and the add's next step (HostReplica to that node, as the caller) may come
 * first. Without this an add run by a principal with ALTER, not a super user, could fail there and
 * had to be run again. Only that refusal is sent again ({@link AclsNotLoadedException#isNotLoaded}):
 * another UNAVAILABLE (a node shutting down, a connection lost mid-call) is the caller's at once, as
 * is any other answer, and the refusal too once {@code deadlineNanos} (System.nanoTime) is near.
 */
final class UntilLoaded {
    /** Between two attempts: a joining node's gate is looked at every 50 ms. */
    static final long RETRY_DELAY_MS = 100;

    private UntilLoaded() {
    }

    static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> attempt, long deadlineNanos) {
        return attempt.get().handle((answer, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(answer);
            }
            boolean timeLeft = deadlineNanos - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(RETRY_DELAY_MS);
            if (!AclsNotLoadedException.isNotLoaded(Status.fromThrowable(error)) || !timeLeft) {
                return CompletableFuture.<T>failedFuture(error);
            }
            return CompletableFuture.supplyAsync(() -> null,
                            CompletableFuture.delayedExecutor(RETRY_DELAY_MS, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> call(attempt, deadlineNanos));
        }).thenCompose(next -> next);
    }
}
