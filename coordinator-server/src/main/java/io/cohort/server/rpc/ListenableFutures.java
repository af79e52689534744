package io.cohort.server.rpc;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import java.util.concurrent.CompletableFuture;

/** Adapts the futures of gRPC's future stubs (Guava) to the CompletableFutures the RPC classes compose. */
final class ListenableFutures {
    private ListenableFutures() {
    }

    /** A future completed, on the thread that completes {@code future}, with its value or failure. */
    static <T> CompletableFuture<T> toCompletable(ListenableFuture<T> future) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Futures.addCallback(future, new FutureCallback<>() {
            @Override
            public void onSuccess(T value) {
                result.complete(value);
            }

            @Override
            public void onFailure(Throwable t) {
                result.completeExceptionally(t);
            }
        }, Runnable::run);
        return result;
    }
}
