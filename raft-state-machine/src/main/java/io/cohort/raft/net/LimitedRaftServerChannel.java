package io.cohort.raft.net;

import java.util.List;
import org.apache.ratis.thirdparty.io.netty.channel.Channel;
import org.apache.ratis.thirdparty.io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * Ratis's (shaded) Netty server channel of the Raft port, admitting connections through a {@link
 * ConnectionBudget}: a connection over the limit is closed as soon as it is accepted, before gRPC
 * sees it. gRPC has no connection limit of its own. The client port has the same class for gRPC's
 * own shaded Netty ({@code io.cohort.server.LimitedClientServerChannel}): the two Netty copies
 * share no types.
 */
final class LimitedRaftServerChannel extends NioServerSocketChannel {
    private final ConnectionBudget budget;

    LimitedRaftServerChannel(ConnectionBudget budget) {
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
