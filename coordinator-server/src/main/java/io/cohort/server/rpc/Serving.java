package io.cohort.server.rpc;

import io.cohort.raft.CohortRaftNode;
import io.cohort.server.rpc.ErrorTable.Failure;
import io.cohort.server.rpc.RequestValidator.MalformedRequestException;
import io.grpc.Status;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group call being served, with how to answer it when something fails: a malformed request
 * ends with INVALID_ARGUMENT; anything unexpected is logged and answered UNKNOWN_SERVER_ERROR in the
 * RPC's own response, so the node keeps serving. Answers computed off the gRPC thread are mapped and
 * sent on the parked-calls responder ({@link #answerLater}); the one exception is an answer ready
 * when its entry is applied, which may be sent on the apply thread ({@link RpcThreads}).
 */
final class Serving<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Serving.class);

    final RpcCall<T> call;
    final Function<Failure, T> onFailure;
    private final Function<T, String> errorOf;
    private final CohortRaftNode node;
    private final ParkedCalls parked;

    Serving(RpcCall<T> call, Function<Failure, T> onFailure, Function<T, String> errorOf, CohortRaftNode node,
            ParkedCalls parked) {
        this.call = call;
        this.onFailure = onFailure;
        this.errorOf = errorOf;
        this.node = node;
        this.parked = parked;
    }

    void run(Runnable body) {
        try {
            body.run();
        } catch (MalformedRequestException e) {
            call.fail(Status.INVALID_ARGUMENT.withDescription(e.getMessage()));
        } catch (RuntimeException e) {
            Failure failure = ErrorTable.failureOf(e, node);
            try {
                answer(failure);
            } catch (RuntimeException again) {
                LOG.error("{}: could not answer {}", call.rpc(), failure, again);
                call.fail(Status.INTERNAL.withDescription(failure.message()));
            }
        }
    }

    void answer(T response) {
        call.respond(response, errorOf.apply(response));
    }

    void answer(Failure failure) {
        answer(onFailure.apply(failure));
    }

    /** Maps and sends on the responder, off Ratis threads. */
    void answerLater(Supplier<T> response) {
        parked.deliver(() -> run(() -> answer(response.get())));
    }

    void answerLater(Failure failure) {
        parked.deliver(() -> run(() -> answer(failure)));
    }
}
