package io.cohort.server.rpc;

import static io.cohort.server.rpc.Requests.commit;
import static io.cohort.server.rpc.Requests.fetch;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.DescribeGroupsRequest;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.HeartbeatRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.ReadConsistency;
import io.cohort.server.metrics.RpcMetrics;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where an offset commit, an offset fetch and a heartbeat are handled and answered ({@link RpcThreads}), on a
 * real Ratis partition and a real gRPC Netty server on loopback: each setting on and off.
 */
class RpcThreadsTest {
    /** Each call of {@link #callThreads} makes its own consumer-protocol group. */
    private static final AtomicInteger CONSUMER_GROUPS = new AtomicInteger();
    @TempDir
    static Path tmp;
    static CoordinatorTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = CoordinatorTestCluster.start(tmp, 1, 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCommitsAnswerIsSentOnTheApplyThreadWhenInlineAndOnTheResponderOtherwise() throws Exception {
        // Where the submit future completes: the apply thread, or the calling thread when the entry
        // was applied before the continuation was attached (likely on a 1-node cluster).
        String caller = Thread.currentThread().getName();
        assertThat(threadOfAnswer(new RpcThreads(false, true, false, false, false), "g-inline")).satisfiesAnyOf(
                name -> assertThat(name).contains("StateMachineUpdater"),
                name -> assertThat(name).isEqualTo(caller));
        assertThat(threadOfAnswer(new RpcThreads(false, false, false, false, false), "g-handed")).startsWith("cohort-responder-");
    }

    private static String threadOfAnswer(RpcThreads threads, String groupId) throws Exception {
        CoordinatorTestCluster.Node node = cluster.node(1);
        ParkedCalls parked = new ParkedCalls();
        try (GroupCoordinatorService service = new GroupCoordinatorService(node.raft, parked, RpcMetrics.NONE,
                io.cohort.server.auth.RequestAuthorizer.ALLOW_ALL, PeerChannels.plaintext(), threads)) {
            CompletableFuture<String> answeredOn = new CompletableFuture<>();
            service.offsetCommit(commit(groupId, "", -1, "t", 0, 7L), new StreamObserver<>() {
                @Override
                public void onNext(OffsetCommitResponse response) {
                    if (response.getTopics(0).getPartitions(0).getErrorCode() == ErrorCode.NONE) {
                        answeredOn.complete(Thread.currentThread().getName());
                    } else {
                        answeredOn.completeExceptionally(new AssertionError("commit failed: " + response));
                    }
                }

                @Override
                public void onError(Throwable t) {
                    answeredOn.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                }
            });
            return answeredOn.get(30, TimeUnit.SECONDS);
        } finally {
            parked.close();
        }
    }

    @Test
    void commitFetchAndHeartbeatsAreHandledOnTheEventLoopWhenInlineAndEveryOtherCallOnTheExecutor() throws Exception {
        Map<String, String> inline = handlerThreads(new RpcThreads(true, true, true, true, true), false);
        assertThat(inline.get("OffsetCommit")).contains("-ELG-"); // gRPC Netty event loop
        assertThat(inline.get("OffsetFetch")).contains("-ELG-");
        assertThat(inline.get("Heartbeat")).contains("-ELG-");
        assertThat(inline.get("ConsumerGroupHeartbeat")).contains("-ELG-");
        assertThat(inline.get("DescribeGroups")).startsWith("test-rpc-");
        Map<String, String> handed = handlerThreads(new RpcThreads(false, true, false, false, false), false);
        assertThat(handed.values()).hasSize(5).allSatisfy(thread -> assertThat(thread).startsWith("test-rpc-"));
        // Each setting moves its own call only.
        Map<String, String> commitOnly = handlerThreads(new RpcThreads(true, true, false, false, false), false);
        assertThat(commitOnly.get("OffsetCommit")).contains("-ELG-");
        assertThat(commitOnly.get("OffsetFetch")).startsWith("test-rpc-");
        assertThat(commitOnly.get("Heartbeat")).startsWith("test-rpc-");
        assertThat(commitOnly.get("ConsumerGroupHeartbeat")).startsWith("test-rpc-");
        Map<String, String> fetchOnly = handlerThreads(new RpcThreads(false, true, true, false, false), false);
        assertThat(fetchOnly.get("OffsetCommit")).startsWith("test-rpc-");
        assertThat(fetchOnly.get("OffsetFetch")).contains("-ELG-");
        assertThat(fetchOnly.get("Heartbeat")).startsWith("test-rpc-");
        assertThat(fetchOnly.get("ConsumerGroupHeartbeat")).startsWith("test-rpc-");
        Map<String, String> heartbeatOnly = handlerThreads(new RpcThreads(false, true, false, true, false), false);
        assertThat(heartbeatOnly.get("OffsetCommit")).startsWith("test-rpc-");
        assertThat(heartbeatOnly.get("OffsetFetch")).startsWith("test-rpc-");
        assertThat(heartbeatOnly.get("Heartbeat")).contains("-ELG-");
        assertThat(heartbeatOnly.get("ConsumerGroupHeartbeat")).startsWith("test-rpc-");
        Map<String, String> consumerHeartbeatOnly = handlerThreads(new RpcThreads(false, true, false, false, true), false);
        assertThat(consumerHeartbeatOnly.get("OffsetCommit")).startsWith("test-rpc-");
        assertThat(consumerHeartbeatOnly.get("OffsetFetch")).startsWith("test-rpc-");
        assertThat(consumerHeartbeatOnly.get("Heartbeat")).startsWith("test-rpc-");
        assertThat(consumerHeartbeatOnly.get("ConsumerGroupHeartbeat")).contains("-ELG-");
    }

    /** The first check of a bearer token is a PBKDF2 of 210,000 rounds by default: never on an event loop. */
    @Test
    void callsWithABearerTokenAreHandledOnTheExecutor() throws Exception {
        Map<String, String> withToken = handlerThreads(new RpcThreads(true, true, true, true, true), true);
        assertThat(withToken.values()).hasSize(5).allSatisfy(thread -> assertThat(thread).startsWith("test-rpc-"));
    }

    /**
     * A linearizable fetch the leader's lease answers inside the submit is answered on the thread
     * that handled it (the event loop when inline), not handed to the responder; so are a heartbeat
     * and a ConsumerGroupHeartbeat that changes nothing. The one-node cluster's leader holds a lease as
     * soon as it is ready, so the read completes at once.
     */
    @Test
    void aFetchAnsweredByTheLeaseIsSentOnTheHandlersThread() throws Exception {
        Map<String, String> inline = answerThreads(new RpcThreads(true, true, true, true, true));
        assertThat(inline.get("OffsetFetch")).contains("-ELG-");
        assertThat(inline.get("Heartbeat")).contains("-ELG-");
        assertThat(inline.get("ConsumerGroupHeartbeat")).contains("-ELG-");
        Map<String, String> handed = answerThreads(new RpcThreads(true, true, false, false, false));
        assertThat(handed.get("OffsetFetch")).startsWith("test-rpc-");
        assertThat(handed.get("Heartbeat")).startsWith("test-rpc-");
        assertThat(handed.get("ConsumerGroupHeartbeat")).startsWith("test-rpc-");
    }

    private static Map<String, String> handlerThreads(RpcThreads threads, boolean bearerToken) throws Exception {
        return callThreads(threads, bearerToken, false);
    }

    private static Map<String, String> answerThreads(RpcThreads threads) throws Exception {
        return callThreads(threads, false, true);
    }

    /**
     * One OffsetCommit, OffsetFetch, DescribeGroups and Heartbeat, and a KIP-848 member's join and steady
     * ConsumerGroupHeartbeat (the second recorded), through a Netty server built as CohortServer builds it:
     * the thread each handler ran on, or each answer was sent on.
     */
    private static Map<String, String> callThreads(RpcThreads threads, boolean bearerToken, boolean answers)
            throws Exception {
        CoordinatorTestCluster.Node node = cluster.node(1);
        Map<String, String> threadOf = new ConcurrentHashMap<>();
        ServerInterceptor recorder = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                                                             ServerCallHandler<Q, R> next) {
                String method = call.getMethodDescriptor().getBareMethodName();
                ServerCall<Q, R> recording = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                    @Override
                    public void sendMessage(R message) {
                        if (answers) {
                            threadOf.put(method, Thread.currentThread().getName());
                        }
                        super.sendMessage(message);
                    }
                };
                // A unary handler runs when the client half-closes: record the thread there.
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                        next.startCall(recording, headers)) {
                    @Override
                    public void onHalfClose() {
                        if (!answers) {
                            threadOf.put(method, Thread.currentThread().getName());
                        }
                        super.onHalfClose();
                    }
                };
            }
        };
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> new Thread(r, "test-rpc-" + r.hashCode()));
        ParkedCalls parked = new ParkedCalls();
        GroupCoordinatorService service = new GroupCoordinatorService(node.raft, parked, RpcMetrics.NONE,
                io.cohort.server.auth.RequestAuthorizer.ALLOW_ALL, PeerChannels.plaintext(), threads);
        Server server = threads.applyTo(NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), executor)
                .addService(ServerInterceptors.intercept(service.definition(), recorder))
                .build().start();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        try {
            Metadata token = new Metadata();
            token.put(io.cohort.server.auth.Principals.AUTHORIZATION, "Bearer alice.secret");
            GroupCoordinatorGrpc.GroupCoordinatorBlockingStub client = GroupCoordinatorGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearerToken ? token : new Metadata()))
                    .withDeadlineAfter(30, TimeUnit.SECONDS);
            assertThat(client.offsetCommit(commit("g-threads", "", -1, "t", 0, 3L)).getTopics(0).getPartitions(0)
                    .getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(client.offsetFetch(fetch("g-threads", ReadConsistency.READ_CONSISTENCY_LINEARIZABLE, "t", 0))
                    .getGroups(0).getTopics(0).getPartitions(0).getCommittedOffset()).isEqualTo(3L);
            assertThat(client.describeGroups(DescribeGroupsRequest.newBuilder().addGroupIds("g-threads").build())
                    .getGroups(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
            // No member: answered by the handler against the applied group, which is all that matters here.
            assertThat(client.heartbeat(HeartbeatRequest.newBuilder().setGroupId("g-threads").setGenerationId(1)
                    .setMemberId("nobody").build()).getErrorCode()).isEqualTo(ErrorCode.UNKNOWN_MEMBER_ID);
            // A consumer-protocol member of a group of its own joins (an entry), then heartbeats with nothing
            // to change (answered against the applied group): the second call is the one recorded.
            String group = "cg-threads-" + CONSUMER_GROUPS.incrementAndGet();
            ConsumerGroupHeartbeatResponse joined = client.consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest
                    .newBuilder().setGroupId(group).setMemberId("m-threads").setMemberEpoch(0)
                    .setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(
                            ConsumerGroupHeartbeatRequest.TopicNames.newBuilder().addNames("no-such-topic"))
                    .setTopicPartitions(ConsumerGroupHeartbeatRequest.OwnedPartitions.getDefaultInstance()).build());
            assertThat(joined.getErrorCode()).isEqualTo(ErrorCode.NONE);
            ConsumerGroupHeartbeatResponse steady = client.consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest
                    .newBuilder().setGroupId(group).setMemberId("m-threads").setMemberEpoch(joined.getMemberEpoch())
                    .setRebalanceTimeoutMs(-1)
                    .setTopicPartitions(ConsumerGroupHeartbeatRequest.OwnedPartitions.getDefaultInstance()).build());
            assertThat(steady.getErrorCode()).isEqualTo(ErrorCode.NONE);
            assertThat(steady.getMemberEpoch()).isEqualTo(joined.getMemberEpoch());
            return Map.copyOf(threadOf);
        } finally {
            channel.shutdownNow();
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            service.close();
            parked.close();
            executor.shutdownNow();
        }
    }
}
