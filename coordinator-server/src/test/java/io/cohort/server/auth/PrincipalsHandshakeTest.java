package io.cohort.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.raft.tls.CertificateAuthority;
import io.cohort.raft.tls.CertificateAuthority.Issued;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.MetadataUtils;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link Principals} interceptor behind a real grpc-netty server: a real TLS handshake with a
 * client certificate gives the mapped DN's principal; a bearer token gives the token's principal; no
 * credential gives ANONYMOUS; a bad token is refused. The server's SslContext is built here (the TLS
 * helper's PEM loader replaces it in the node), which is the seam between the two branches.
 */
class PrincipalsHandshakeTest {
    private static final Duration VALIDITY = Duration.ofDays(1);
    private static final List<String> LOCALHOST = List.of("localhost", "127.0.0.1");
    static final String RULES = "RULE:^CN=(.*?),OU=Apps,.*$/$1/L,DEFAULT";

    @TempDir
    Path dir;

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final List<java.util.Optional<javax.net.ssl.SSLSession>> sessions = new CopyOnWriteArrayList<>();
    private Server server;
    private ManagedChannel channel;

    /** Records the principal and host each call ran with, after {@link Principals} set them. */
    private final ServerInterceptor recorder = new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                           ServerCallHandler<Q, R> next) {
            seen.add(Principals.principal() + "@" + Principals.host());
            sessions.add(java.util.Optional.ofNullable(call.getAttributes().get(io.grpc.Grpc.TRANSPORT_ATTR_SSL_SESSION)));
            return next.startCall(call, headers);
        }
    };

    @AfterEach
    void stop() throws Exception {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private void startServer(SslContext ssl, TokenFile tokens) throws Exception {
        Principals principals = new Principals(tokens, PrincipalMappingRules.parse(RULES));
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(ServerInterceptors.intercept(new HealthStatusManager().getHealthService(), recorder,
                        principals));
        if (ssl != null) {
            builder.sslContext(ssl);
        }
        server = builder.build().start();
    }

    private HealthGrpc.HealthBlockingStub stub() {
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    @Test
    void testClientCertificateSubjectIsMappedToThePrincipal() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Test CA", VALIDITY);
        Issued serverCert = ca.issue("CN=localhost,O=Cohort", LOCALHOST, VALIDITY);
        Issued clientCert = ca.issue("CN=Alice,OU=Apps,O=Cohort", List.of(), VALIDITY);
        startServer(GrpcSslContexts.configure(SslContextBuilder.forServer(serverCert.privateKey(),
                serverCert.certificate()).trustManager(ca.root().certificate()).clientAuth(ClientAuth.REQUIRE)).build(),
                null);
        channel = NettyChannelBuilder.forAddress("localhost", server.getPort())
                .sslContext(GrpcSslContexts.forClient().trustManager(ca.root().certificate())
                        .keyManager(clientCert.privateKey(), clientCert.certificate()).build())
                .build();

        stub().check(HealthCheckRequest.getDefaultInstance());
        stub().check(HealthCheckRequest.getDefaultInstance());

        assertThat(seen).containsExactly("User:alice@127.0.0.1", "User:alice@127.0.0.1");
        // Mapped once per TLS session, kept in it; another node's rules map the same session anew.
        javax.net.ssl.SSLSession session = sessions.get(1).orElseThrow();
        assertThat(sessions.get(0).orElseThrow()).isSameAs(session);
        assertThat(session.getValueNames()).contains("io.cohort.principal");
        assertThat(new Principals(null, PrincipalMappingRules.parse("DEFAULT")).certificatePrincipal(session))
                .isEqualTo("User:CN=Alice,OU=Apps,O=Cohort");
        assertThat(new Principals(null, PrincipalMappingRules.parse(RULES)).certificatePrincipal(session))
                .isEqualTo("User:alice");
    }

    @Test
    void testTlsWithoutClientCertificateIsAnonymous() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Test CA", VALIDITY);
        Issued serverCert = ca.issue("CN=localhost,O=Cohort", LOCALHOST, VALIDITY);
        startServer(GrpcSslContexts.configure(SslContextBuilder.forServer(serverCert.privateKey(),
                serverCert.certificate()).trustManager(ca.root().certificate()).clientAuth(ClientAuth.OPTIONAL)).build(),
                null);
        channel = NettyChannelBuilder.forAddress("localhost", server.getPort())
                .sslContext(GrpcSslContexts.forClient().trustManager(ca.root().certificate()).build())
                .build();

        stub().check(HealthCheckRequest.getDefaultInstance());

        assertThat(seen).containsExactly(Principals.ANONYMOUS + "@127.0.0.1");
    }

    @Test
    void testBearerTokenGivesItsPrincipalAndABadOneIsRefused() throws Exception {
        String secret = TokenHash.newSecret();
        Path file = dir.resolve("tokens");
        Files.writeString(file, TokenFile.entry("User:bob", TokenHash.hash(secret, 1_000)) + "\n");
        startServer(null, TokenFile.load(file));
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();

        stub().check(HealthCheckRequest.getDefaultInstance());
        stub().withInterceptors(bearer("bob." + secret)).check(HealthCheckRequest.getDefaultInstance());
        assertThatThrownBy(() -> stub().withInterceptors(bearer("bob.not-the-secret"))
                .check(HealthCheckRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));

        assertThat(seen).containsExactly(Principals.ANONYMOUS + "@127.0.0.1", "User:bob@127.0.0.1");
    }

    static io.grpc.ClientInterceptor bearer(String token) {
        Metadata headers = new Metadata();
        headers.put(Principals.AUTHORIZATION, "Bearer " + token);
        return MetadataUtils.newAttachHeadersInterceptor(headers);
    }
}
