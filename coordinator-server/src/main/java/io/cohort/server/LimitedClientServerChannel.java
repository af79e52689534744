package io.cohort.server;

import io.cohort.raft.net.ConnectionBudget;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.List;

/**
 * gRPC's (shaded) Netty server channel of the client port, admitting connections through a {@link
 * ConnectionBudget}: a connection over the limit is closed as soon as it is accepted, before gRPC
 * sees it (gRPC has no connection limit of its own). The Raft port has the same class for Ratis's
 * shaded Netty ({@code io.cohort.raft.net.LimitedRaftServerChannel}): the two Netty copies share
 * no types.
 */
final class LimitedClientServerChannel extends NioServerSocketChannel {
    private final ConnectionBudget budget;

    LimitedClientServerChannel(ConnectionBudget budget) {
        this.budget = budget;
    }

    @Override
    protected int doReadMessages(List<Object> accepted) throws Exception {
        int before = accepted.size();
        int read = super.doReadMessages(accepted);
        for (int i = accepted.size() - 1; i >= before; i--) {
            Channel child = (Channel) accepted.get(i);
            if (budget.tryOpen()) {
                child.closeFuture().addListener(closed -> budget.closed());
            } else {
                accepted.remove(i);
                child.unsafe().closeForcibly();
            }
        }
        return read;
    }
}
