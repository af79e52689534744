package io.cohort.raft;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftConfiguration;

/**
 * The cluster's members as partition 0's Raft configuration lists them. Every node holds a voting
 * replica of partition 0, so its configuration is the membership: Ratis replicates it, keeps it
 * across restarts (log, snapshot, raft-meta.conf), and changes it one step at a time with joint
 * consensus. {@code cluster.properties} only holds the initial members (etcd's
 * {@code --initial-cluster}).
 *
 * <p>A member's client endpoint rides in its Raft peer's client address (set by add-node); the
 * initial members' groups were created without it, so theirs comes from the initial member list.
 *
 * @param voters    members that vote (and may lead), in id order
 * @param listeners members being added: Ratis listeners (learners) that receive the log but do not vote
 * @param confIndex the log index of the configuration entry (-1: the group's initial configuration)
 */
public record Membership(List<NodeAddress> voters, List<NodeAddress> listeners, long confIndex) {
    public Membership {
        voters = sorted(voters);
        listeners = sorted(listeners);
    }

    /** The initial members, all voters. */
    public static Membership initial(List<NodeAddress> peers) {
        return new Membership(peers, List.of(), -1);
    }

    /** Reads a Raft configuration; a peer without a client address gets it from {@code knownPeer}. */
    static Membership of(RaftConfiguration conf, IntFunction<Optional<NodeAddress>> knownPeer) {
        return new Membership(addresses(conf.getCurrentPeers(), knownPeer),
                addresses(conf.getCurrentPeers(org.apache.ratis.proto.RaftProtos.RaftPeerRole.LISTENER), knownPeer),
                conf.getLogEntryIndex());
    }

    private static List<NodeAddress> addresses(Collection<RaftPeer> peers, IntFunction<Optional<NodeAddress>> known) {
        List<NodeAddress> out = new ArrayList<>();
        for (RaftPeer peer : peers) {
            int nodeId = nodeIdOf(peer.getId().toString());
            if (nodeId < 0) {
                continue;
            }
            Optional<NodeAddress> address = addressOf(nodeId, peer);
            address = address.isPresent() ? address : known.apply(nodeId);
            address.ifPresent(out::add);
        }
        return out;
    }

    /** The address a Raft peer carries: its Raft address, and its client port if add-node set one. */
    private static Optional<NodeAddress> addressOf(int nodeId, RaftPeer peer) {
        String raft = peer.getAddress();
        String client = peer.getClientAddress();
        if (raft == null || client == null || client.isBlank()) {
            return Optional.empty();
        }
        try {
            HostPort r = HostPort.parse(raft);
            HostPort c = HostPort.parse(client);
            return Optional.of(new NodeAddress(nodeId, r.host(), r.port(), c.port()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The Raft peer of {@code address}, carrying its client endpoint for every node to learn. */
    static RaftPeer raftPeer(NodeAddress address) {
        return RaftPeer.newBuilder()
                .setId(address.peerId())
                .setAddress(address.raftAddress())
                .setClientAddress(address.host() + ":" + address.clientPort())
                .build();
    }

    static int nodeIdOf(String peerId) {
        try {
            return peerId.startsWith("n") ? Integer.parseInt(peerId.substring(1)) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Voters, then listeners. */
    public List<NodeAddress> all() {
        List<NodeAddress> all = new ArrayList<>(voters);
        all.addAll(listeners);
        return sorted(all);
    }

    /** The voters' node ids, ascending. */
    public List<Integer> voterIds() {
        return voters.stream().map(NodeAddress::nodeId).sorted().toList();
    }

    public boolean isVoter(int nodeId) {
        return voters.stream().anyMatch(v -> v.nodeId() == nodeId);
    }

    public boolean isListener(int nodeId) {
        return listeners.stream().anyMatch(v -> v.nodeId() == nodeId);
    }

    public boolean contains(int nodeId) {
        return isVoter(nodeId) || isListener(nodeId);
    }

    public Optional<NodeAddress> member(int nodeId) {
        return all().stream().filter(m -> m.nodeId() == nodeId).findFirst();
    }

    /** {@code voters=1=h:r:c,...;listeners=...} for logs. */
    public String describe() {
        return "voters " + specs(voters) + (listeners.isEmpty() ? "" : ", listeners " + specs(listeners));
    }

    static String specs(List<NodeAddress> nodes) {
        return nodes.stream().map(NodeAddress::toSpec).collect(Collectors.joining(","));
    }

    private static List<NodeAddress> sorted(List<NodeAddress> nodes) {
        List<NodeAddress> copy = new ArrayList<>(nodes);
        copy.sort(Comparator.comparingInt(NodeAddress::nodeId));
        return List.copyOf(copy);
    }

    /** {@code host:port}, the host possibly a bracketed IPv6 literal. */
    record HostPort(String host, int port) {
        static HostPort parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("'" + text + "' is not host:port");
            }
            String host = text.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            try {
                return new HostPort(host, Integer.parseInt(text.substring(colon + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' has a non-numeric port", e);
            }
        }
    }
}
