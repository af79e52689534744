package io.cohort.raft.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Server;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.socket.nio.NioServerSocketChannel;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * On a real gRPC server of Ratis's Raft service over loopback (the shaded gRPC Ratis builds its
 * server with): with {@link InlineAppendEntries}, an AppendEntries message is handled on the I/O
 * thread that read it and a vote is not; without it, neither is (so the test tells them apart).
 */
class InlineAppendEntriesTest {
    private static final String IO_THREAD_PREFIX = "raft-test-io";

    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void startEventLoops() {
        boss = new NioEventLoopGroup(1, new DefaultThreadFactory("raft-test-boss", true));
        workers = new NioEventLoopGroup(1, new DefaultThreadFactory(IO_THREAD_PREFIX, true));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
    }

    @Test
    void appendEntriesRunOnTheIoThreadAndVotesDoNot() throws Exception {
        ThreadsSeen seen = serve(InlineAppendEntries::install);

        assertThat(appendEntriesThread(seen)).startsWith(IO_THREAD_PREFIX);
        assertThat(requestVoteThread(seen)).doesNotStartWith(IO_THREAD_PREFIX);
    }

    @Test
    void withoutItAppendEntriesAreHandedToTheExecutor() throws Exception {
        ThreadsSeen seen = serve(UnaryOperator.identity());

        assertThat(appendEntriesThread(seen)).doesNotStartWith(IO_THREAD_PREFIX);
        assertThat(requestVoteThread(seen)).doesNotStartWith(IO_THREAD_PREFIX);
    }

    /** The threads the service's handlers ran on. */
    private static final class ThreadsSeen extends RaftServerProtocolServiceGrpc.RaftServerProtocolServiceImplBase {
        final CompletableFuture<String> appendEntries = new CompletableFuture<>();
        final CompletableFuture<String> requestVote = new CompletableFuture<>();

        @Override
        public StreamObserver<AppendEntriesRequestProto> appendEntries(
                StreamObserver<AppendEntriesReplyProto> replies) {
            return new StreamObserver<>() {
                @Override
                public void onNext(AppendEntriesRequestProto request) {
                    appendEntries.complete(Thread.currentThread().getName());
                    replies.onNext(AppendEntriesReplyProto.getDefaultInstance());
                }

                @Override
                public void onError(Throwable t) {
                    appendEntries.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {
                    replies.onCompleted();
                }
            };
        }

        @Override
        public void requestVote(RequestVoteRequestProto request, StreamObserver<RequestVoteReplyProto> reply) {
            requestVote.complete(Thread.currentThread().getName());
            reply.onNext(RequestVoteReplyProto.getDefaultInstance());
            reply.onCompleted();
        }
    }

    private ThreadsSeen serve(UnaryOperator<NettyServerBuilder> customize) throws Exception {
        ThreadsSeen seen = new ThreadsSeen();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .channelType(NioServerSocketChannel.class).bossEventLoopGroup(boss).workerEventLoopGroup(workers)
                .addService(seen);
        server = customize.apply(builder).build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
        return seen;
    }

    private String appendEntriesThread(ThreadsSeen seen) throws Exception {
        CompletableFuture<Void> replied = new CompletableFuture<>();
        StreamObserver<AppendEntriesRequestProto> requests = RaftServerProtocolServiceGrpc.newStub(channel)
                .appendEntries(new StreamObserver<>() {
                    @Override
                    public void onNext(AppendEntriesReplyProto reply) {
                        replied.complete(null);
                    }

                    @Override
                    public void onError(Throwable t) {
                        replied.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
        requests.onNext(AppendEntriesRequestProto.getDefaultInstance());
        replied.get(10, TimeUnit.SECONDS);
        requests.onCompleted();
        return seen.appendEntries.get(10, TimeUnit.SECONDS);
    }

    private String requestVoteThread(ThreadsSeen seen) throws Exception {
        RaftServerProtocolServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .requestVote(RequestVoteRequestProto.getDefaultInstance());
        return seen.requestVote.get(10, TimeUnit.SECONDS);
    }
}
