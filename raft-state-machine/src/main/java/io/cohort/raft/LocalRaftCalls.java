package io.cohort.raft;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.ReplicationLevel;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;

/**
 * The calls a node makes to its own Raft server, in process: creating and removing replicas,
 * configuration changes, leadership transfers, watches and read-index reads. They carry the node's
 * client id with a call-id sequence of their own; none of them is a write, so none meets the
 * proposers' entries (the same client id, each proposer's own call ids) in Ratis's retry cache.
 */
final class LocalRaftCalls {
    private final RaftServer server;
    private final ClientId clientId;
    private final RaftPeerId selfId;
    private final AtomicLong callIds = new AtomicLong();

    LocalRaftCalls(RaftServer server, ClientId clientId, RaftPeerId selfId) {
        this.server = server;
        this.clientId = clientId;
        this.selfId = selfId;
    }

    /** Creates a replica of {@code group} here; {@code format}: a new one (its storage must not exist). */
    RaftClientReply addGroup(RaftGroup group, boolean format) throws IOException {
        return server.groupManagement(GroupManagementRequest.newAdd(clientId, selfId, callIds.incrementAndGet(), group,
                format));
    }

    /** Closes this node's replica of {@code groupId}, deleting its storage with {@code deleteDirectory}. */
    RaftClientReply removeGroup(RaftGroupId groupId, boolean deleteDirectory) throws IOException {
        return server.groupManagement(GroupManagementRequest.newRemove(clientId, selfId, callIds.incrementAndGet(),
                groupId, deleteDirectory, false));
    }

    /** Sets the group's configuration (this node must lead it): Ratis stages new peers, then joint consensus. */
    CompletableFuture<RaftClientReply> setConfiguration(RaftGroupId groupId, List<RaftPeer> voters,
                                                        List<RaftPeer> listeners) {
        SetConfigurationRequest.Arguments arguments = SetConfigurationRequest.Arguments.newBuilder()
                .setServersInNewConf(voters)
                .setListenersInNewConf(listeners)
                .build();
        try {
            return server.setConfigurationAsync(new SetConfigurationRequest(clientId, selfId, groupId,
                    callIds.incrementAndGet(), arguments));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Hands the group's leadership (this node's) to {@code target}, or to any other replica with null. */
    CompletableFuture<RaftClientReply> transferLeadership(RaftGroupId groupId, RaftPeerId target, long timeoutMs)
            throws IOException {
        return server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, selfId, groupId,
                callIds.incrementAndGet(), target, timeoutMs));
    }

    /** Completes once every peer of the group committed up to {@code index}; fails after {@code timeoutMs}. */
    CompletableFuture<RaftClientReply> watchAllCommitted(RaftGroupId groupId, long index, long timeoutMs) {
        RaftClientRequest request = request(groupId, Message.EMPTY,
                RaftClientRequest.watchRequestType(index, ReplicationLevel.ALL_COMMITTED), timeoutMs);
        try {
            return server.submitClientRequestAsync(request).orTimeout(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A read of the group through Ratis: once this replica has applied what was committed when the
     * read arrived (the leader's lease or a read index), the state machine's query runs {@code message}.
     */
    CompletableFuture<RaftClientReply> read(RaftGroupId groupId, Message message, long timeoutMs) {
        RaftClientRequest request = request(groupId, message, RaftClientRequest.readRequestType(), timeoutMs);
        try {
            return submitter(server, groupId).submitClientRequestAsync(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Where a request to {@code groupId} is submitted, by the proposer and by reads: the group's
     * division itself, which runs the submit on the calling thread (a leader with a valid lease then
     * answers a read there). Through the server, Ratis hands every request to the division's client
     * executor while the caller waits ({@code supplyAsync(..., clientExecutor).join()}): two thread
     * wake-ups that do no work (docs/BENCHMARKS.md, "Tuning" #15/#19 for entries, #29 for reads:
     * 1.25-1.39x the fetches per second). Falls back to the server if the division does not implement
     * Ratis's asynchronous client protocol (not declared by {@code Division}) or is not there: the
     * group is being added or removed, and the server answers (or refuses) the request. Looked up per
     * request (a map lookup): a group removed and added again has a new division.
     */
    static RaftClientAsynchronousProtocol submitter(RaftServer server, RaftGroupId groupId) {
        try {
            if (server.getDivision(groupId) instanceof RaftClientAsynchronousProtocol division) {
                return division;
            }
        } catch (IOException notHostedYet) {
            // Fall back to the server.
        }
        return server;
    }

    private RaftClientRequest request(RaftGroupId groupId, Message message, RaftClientRequest.Type type,
                                      long timeoutMs) {
        return RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(message)
                .setType(type)
                .setTimeoutMs(timeoutMs)
                .build();
    }
}
