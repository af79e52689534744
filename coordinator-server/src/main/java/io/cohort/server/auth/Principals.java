package io.cohort.server.auth;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who a call is from: a gRPC {@link ServerInterceptor} that puts the call's principal and host into
 * the call's {@link Context}, where the services' {@link RequestAuthorizer} reads them.
 * <ol>
 *   <li>{@code authorization: Bearer <token>} in the call's metadata, checked against the token file:
 *       the token's principal. A token that does not check out ends the call with UNAUTHENTICATED
 *       (never a silent fall-back to ANONYMOUS). A token, when sent, wins over a client certificate,
 *       as in etcd: it is the more specific credential.</li>
 *   <li>else a verified client certificate (TLS with client authentication; read from
 *       {@link Grpc#TRANSPORT_ATTR_SSL_SESSION}): {@code User:<subject DN mapped by the rules>}.</li>
 *   <li>else {@link #ANONYMOUS}.</li>
 * </ol>
 * The host is the client's IP address, which host-scoped ACLs match.
 */
public final class Principals implements ServerInterceptor {
    private static final Logger AUDIT = LoggerFactory.getLogger(AuditLog.LOGGER_NAME);

    public static final String ANONYMOUS = "User:ANONYMOUS";
    static final Context.Key<String> PRINCIPAL = Context.key("cohort-principal");
    static final Context.Key<String> HOST = Context.key("cohort-principal-host");
    static final Context.Key<String> BEARER_HEADER = Context.key("cohort-bearer-header");
    public static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final String BEARER = "bearer ";

    private final TokenFile tokens;
    private final PrincipalMappingRules rules;

    /** {@code tokens} may be null: then a bearer token is refused (UNAUTHENTICATED). */
    public Principals(TokenFile tokens, PrincipalMappingRules rules) {
        this.tokens = tokens;
        this.rules = rules;
    }

    /** The current call's principal ({@link #ANONYMOUS} outside a call). */
    public static String principal() {
        String principal = PRINCIPAL.get();
        return principal == null ? ANONYMOUS : principal;
    }

    /**
     * The current call's {@code authorization} header, or null: a node that forwards a ClusterAdmin
     * call to the partition leader sends it along, so the leader authorizes the same principal.
     */
    public static String bearerHeader() {
        return BEARER_HEADER.get();
    }

    /** The current call's client IP address, or "" if unknown. */
    public static String host() {
        String host = HOST.get();
        return host == null ? "" : host;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                       ServerCallHandler<Q, R> next) {
        String host = hostOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        String principal;
        String authorization = headers.get(AUTHORIZATION);
        if (authorization != null) {
            principal = tokenPrincipal(authorization);
            if (principal == null) {
                AUDIT.info("principal=? operation=AUTHENTICATE resource=- host={} result=DENIED reason=\"bad bearer "
                        + "token\" rpc={}", host, call.getMethodDescriptor().getFullMethodName());
                call.close(Status.UNAUTHENTICATED.withDescription("the bearer token is not valid on this node"),
                        new Metadata());
                return new ServerCall.Listener<>() {
                };
            }
        } else {
            principal = certificatePrincipal(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
        }
        Context context = Context.current().withValue(PRINCIPAL, principal).withValue(HOST, host)
                .withValue(BEARER_HEADER, authorization);
        return Contexts.interceptCall(context, call, headers, next);
    }

    private String tokenPrincipal(String authorization) {
        if (tokens == null || authorization.length() <= BEARER.length()
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        try {
            return tokens.principalOf(authorization.substring(BEARER.length()).trim());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The mapped principal of a TLS session's verified client certificate, or ANONYMOUS without one.
     * Computed once per TLS session and kept in it ({@link SSLSession#putValue}): every call of a
     * connection shares its session, and the DN mapping (the rules' regular expressions) is the same
     * for all of them. Kept with the rules it was mapped by, so a node with other rules maps again.
     */
    String certificatePrincipal(SSLSession session) {
        if (session == null) {
            return ANONYMOUS;
        }
        if (session.getValue(SESSION_PRINCIPAL) instanceof MappedPrincipal cached && cached.rules() == rules) {
            return cached.principal();
        }
        String principal = mapCertificate(session);
        session.putValue(SESSION_PRINCIPAL, new MappedPrincipal(rules, principal));
        return principal;
    }

    /** The SSLSession value name under which {@link #certificatePrincipal} keeps its answer. */
    private static final String SESSION_PRINCIPAL = "io.cohort.principal";

    private record MappedPrincipal(PrincipalMappingRules rules, String principal) {
    }

    private String mapCertificate(SSLSession session) {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return ANONYMOUS;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
            return ANONYMOUS;
        }
        return principalOf(leaf);
    }

    /** The principal a node gives a caller presenting {@code certificate}: its subject DN mapped by the rules. */
    public String principalOf(X509Certificate certificate) {
        return "User:" + rules.userName(certificate.getSubjectX500Principal().getName());
    }

    static String hostOf(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return "";
    }
}
