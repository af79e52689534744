package io.cohort.server.rpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a call with the status of a {@link StatusRuntimeException} its handler throws. gRPC-java
 * itself ends such a call with UNKNOWN "Application error processing RPC", whatever the exception's
 * status, and clients take UNKNOWN for a server fault they must not retry. The one thrown on purpose
 * is {@code AclsNotLoadedException} (UNAVAILABLE: this node cannot authorize yet, ask again or ask
 * another node), from authorization checks made on the handler's own stack (ClusterStatus,
 * DescribeMembership, HostReplica, the ACL and topic calls...); until this interceptor it reached the
 * caller as UNKNOWN. Installed by both services ({@code definition()}), outermost of theirs.
 */
final class ThrownStatus {
    private static final Logger LOG = LoggerFactory.getLogger(ThrownStatus.class);

    static final ServerInterceptor INTERCEPTOR = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                           ServerCallHandler<Q, R> next) {
            ServerCall.Listener<Q> listener;
            try {
                listener = next.startCall(call, headers);
            } catch (StatusRuntimeException e) {
                close(call, e);
                return new ServerCall.Listener<>() { };
            }
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
                @Override
                public void onMessage(Q message) {
                    guarded(call, () -> super.onMessage(message));
                }

                @Override
                public void onHalfClose() {
                    guarded(call, super::onHalfClose);
                }

                @Override
                public void onReady() {
                    guarded(call, super::onReady);
                }
            };
        }
    };

    private ThrownStatus() {
    }

    /** Runs one of the handler's callbacks; a thrown status ends the call with it. */
    private static void guarded(ServerCall<?, ?> call, Runnable callback) {
        try {
            callback.run();
        } catch (StatusRuntimeException e) {
            close(call, e);
        }
    }

    private static void close(ServerCall<?, ?> call, StatusRuntimeException thrown) {
        Metadata trailers = thrown.getTrailers() == null ? new Metadata() : thrown.getTrailers();
        try {
            call.close(thrown.getStatus(), trailers);
        } catch (IllegalStateException alreadyClosed) {
            // The handler answered, then threw: the answer stands; the exception is a bug to see.
            LOG.error("{} threw after its call was closed", call.getMethodDescriptor().getFullMethodName(), thrown);
        }
    }
}
