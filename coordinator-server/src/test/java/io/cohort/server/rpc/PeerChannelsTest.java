package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.raft.NodeAddress;
import io.grpc.ManagedChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Channels to other nodes: one per node at the address the membership gives it now. */
class PeerChannelsTest {
    private final Map<Integer, NodeAddress> membership = new HashMap<>();
    private final List<ManagedChannel> opened = new ArrayList<>();
    private final PeerChannels peers = new PeerChannels(membership::get, address -> {
        ManagedChannel channel = PeerChannels.plaintext().apply(address);
        opened.add(channel);
        return channel;
    });

    @Test
    void oneChannelPerNodeUntilItsAddressChanges() {
        membership.put(2, new NodeAddress(2, "127.0.0.1", 7202, 7102));
        ManagedChannel first = peers.channel(2);
        assertThat(peers.channel(2)).isSameAs(first);

        // Node 2 replaced under the same id on another machine: the next call goes there.
        membership.put(2, new NodeAddress(2, "127.0.0.2", 7202, 7102));
        ManagedChannel moved = peers.channel(2);

        assertThat(moved).isNotSameAs(first);
        assertThat(first.isShutdown()).as("the channel to the old address is closed").isTrue();
        assertThat(moved.isShutdown()).isFalse();
        assertThat(opened).hasSize(2);
        peers.close();
    }

    @Test
    void closeShutsEveryChannelAndLaterCallsGetAShutChannel() {
        membership.put(2, new NodeAddress(2, "127.0.0.1", 7202, 7102));
        membership.put(3, new NodeAddress(3, "127.0.0.1", 7203, 7103));
        ManagedChannel two = peers.channel(2);
        ManagedChannel three = peers.channel(3);

        peers.close();

        assertThat(two.isShutdown()).isTrue();
        assertThat(three.isShutdown()).isTrue();
        assertThat(peers.channel(2).isShutdown()).as("calls after close fail as to an unreachable peer").isTrue();
    }
}
