package io.cohort.raft;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.proto.RaftProtos.TermIndexProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An election at once when a partition leader's process has exited, instead of one election timeout
 * (200-400 ms by default, and up to twice that: Ratis's follower sleeps a random timeout, then checks)
 * after its last heartbeat.
 *
 * <p>The node's front end tells it that another node's process is gone: its connection to that node
 * closed and a new one was refused at once, which is what a process that died (SIGKILL, a crash, an
 * out-of-memory exit) leaves behind and what a slow, paused or cut-off node never does (those keep
 * the connection or time out, and are left to Raft's own timeout). For every partition this node
 * follows with that node as leader, one survivor stands at once ({@link #successor}: the survivors
 * in node-id order after the exited leader, taken in turn by partition number, so a dead node's
 * partitions spread over the survivors), so that two survivors never split the vote. The others
 * wait for their election timeout as before, which is also what happens when the successor's log is
 * behind another survivor's (that survivor refuses the vote and stands itself on its timeout).
 *
 * <p>The election starts through Ratis's own StartLeaderElection, the request a leader sends its
 * chosen successor in a leadership transfer: this node makes it in the exited leader's name, at the
 * term it knows the leader by. Ratis accepts it only while this replica is a follower that still
 * knows that leader at that term and has an entry of that term, so a leader elected meanwhile, a
 * replica already standing, or a stale term makes it a no-op; it changes to candidate skipping the
 * pre-vote, which the other survivors would refuse while their last heartbeat is recent. Raft's
 * safety rules are the same as for any election: votes still go only to a log at least as up to
 * date. {@code raft.election.on.leader.exit=false} turns this off.
 */
final class LeaderExitElection {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderExitElection.class);

    private final CohortRaftNode node;
    private final AtomicLong callIds = new AtomicLong();
    private final AtomicLong started = new AtomicLong();

    LeaderExitElection(CohortRaftNode node) {
        this.node = node;
    }

    /**
     * The survivor that stands at once in {@code partition} when {@code exitedLeader} leaves a group
     * with these voters: the survivors in node-id order starting after the exited leader (wrapping
     * around), and of those the {@code partition mod count}-th, so that the partitions a dead node led
     * are spread over the survivors rather than all given to one; -1 if it was the only voter. Every
     * survivor computes the same answer from the same configuration.
     */
    static int successor(List<Integer> voters, int exitedLeader, int partition) {
        List<Integer> after = new ArrayList<>();
        List<Integer> before = new ArrayList<>();
        for (int voter : voters.stream().sorted().toList()) {
            if (voter > exitedLeader) {
                after.add(voter);
            } else if (voter < exitedLeader) {
                before.add(voter);
            }
        }
        after.addAll(before);
        return after.isEmpty() ? -1 : after.get(Math.floorMod(partition, after.size()));
    }

    /** How many elections this node started because a leader's process exited. */
    long started() {
        return started.get();
    }

    /**
     * Node {@code exitedNodeId}'s process has exited: stands for election in each partition this
     * node follows with it as leader and succeeds it in. Returns the partitions it stood in.
     */
    List<Integer> leaderExited(int exitedNodeId) {
        RaftPeerId exited = RaftPeerId.valueOf(node.spec().peer(exitedNodeId).peerId());
        List<Integer> stood = new ArrayList<>();
        for (int partition : node.hostedPartitions()) {
            if (standIfSuccessor(partition, exitedNodeId, exited)) {
                stood.add(partition);
            }
        }
        return stood;
    }

    private boolean standIfSuccessor(int partition, int exitedNodeId, RaftPeerId exited) {
        RaftServer.Division division;
        try {
            division = node.division(partition);
        } catch (IOException e) {
            return false;
        }
        DivisionInfo info = division.getInfo();
        if (!info.isFollower() || !exited.equals(info.getLeaderId())) {
            return false;
        }
        List<Integer> voters = node.groupVoters(partition);
        int successor = successor(voters, exitedNodeId, partition);
        TermIndex last = division.getRaftLog().getLastEntryTermIndex();
        if (successor != node.nodeId()) {
            // With this node's last entry: beside the successor's "standing ... after term T at index I" line,
            // it tells whether the successor's log was behind this one (then this node refuses its vote).
            LOG.info("node {}: partition {}'s leader, node {}, exited; node {} stands first, this node waits for its "
                    + "election timeout (its own last entry: {})", node.nodeId(), partition, exitedNodeId, successor,
                    last);
            return false;
        }
        long term = info.getCurrentTerm();
        if (last == null || last.getTerm() != term) {
            LOG.info("node {}: partition {}'s leader, node {}, exited; this replica has no entry of term {}, so it waits "
                    + "for its election timeout", node.nodeId(), partition, exitedNodeId, term);
            return false;
        }
        RaftGroupId groupId = node.spec().raftGroupId(partition);
        StartLeaderElectionRequestProto request = StartLeaderElectionRequestProto.newBuilder()
                .setServerRequest(RaftRpcRequestProto.newBuilder()
                        .setRequestorId(exited.toByteString())
                        .setReplyId(node.selfId().toByteString())
                        .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(groupId.toByteString()))
                        .setCallId(callIds.incrementAndGet()))
                .setLeaderLastEntry(TermIndexProto.newBuilder().setTerm(last.getTerm()).setIndex(last.getIndex()))
                .build();
        try {
            StartLeaderElectionReplyProto reply = node.raftServer().startLeaderElection(request);
            if (!reply.getServerReply().getSuccess()) {
                LOG.info("node {}: partition {}'s leader, node {}, exited; Ratis did not start an election at term {} "
                        + "(a leader or candidate already), so the election timeout decides", node.nodeId(), partition,
                        exitedNodeId, term);
                return false;
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("node {}: partition {}'s leader, node {}, exited; starting an election failed, so the election "
                    + "timeout decides", node.nodeId(), partition, exitedNodeId, e);
            return false;
        }
        started.incrementAndGet();
        LOG.info("node {}: partition {}'s leader, node {}, exited (its connection closed and reconnecting was "
                + "refused); standing for election now, after term {} at index {}", node.nodeId(), partition,
                exitedNodeId, term, last.getIndex());
        return true;
    }
}
