package io.cohort.server.rpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What the services need to know about a call beyond its request message: the client's address
 * (Kafka reports the connection's host as a member's client host) and whether a ClusterAdmin call
 * was forwarded by another node. The services install {@link #INTERCEPTOR} themselves (in
 * {@code bindService}), so a server that adds them needs nothing else.
 */
final class CallContext {
    /** The client's address as Kafka prints it ("/127.0.0.1"), or "" if not an IP connection. */
    static final Context.Key<String> CLIENT_HOST = Context.key("cohort-client-host");
    /** The node id that forwarded this call, or null for a call from a client. */
    static final Context.Key<Integer> FORWARDED_BY = Context.key("cohort-forwarded-by");

    static final Metadata.Key<String> FORWARDED_BY_HEADER =
            Metadata.Key.of("cohort-forwarded-by", Metadata.ASCII_STRING_MARSHALLER);

    static final ServerInterceptor INTERCEPTOR = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                           ServerCallHandler<Q, R> next) {
            Context context = Context.current().withValue(CLIENT_HOST,
                    hostOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)));
            String forwardedBy = headers.get(FORWARDED_BY_HEADER);
            if (forwardedBy != null) {
                try {
                    context = context.withValue(FORWARDED_BY, Integer.parseInt(forwardedBy));
                } catch (NumberFormatException e) {
                    context = context.withValue(FORWARDED_BY, -1);
                }
            }
            return Contexts.interceptCall(context, call, headers, next);
        }
    };

    private CallContext() {
    }

    /**
     * The headers of a call this node forwards to another: who forwarded it (so that node answers
     * instead of forwarding again) and the caller's bearer token, if any (the other node authorizes
     * the caller's principal again, so it needs the token; a certificate principal is this node's).
     */
    static Metadata forwardingHeaders(int forwardingNodeId, String bearer) {
        Metadata headers = new Metadata();
        headers.put(FORWARDED_BY_HEADER, Integer.toString(forwardingNodeId));
        if (bearer != null) {
            headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), bearer);
        }
        return headers;
    }

    static String hostOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return "/" + inet.getAddress().getHostAddress();
        }
        return "";
    }

    /** The current call's client host, or "". */
    static String clientHost() {
        String host = CLIENT_HOST.get();
        return host == null ? "" : host;
    }
}
