package io.cohort.cluster.chaos;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The shape of one chaos run. The seed fixes the fault schedule (which fault, which target, how
 * long); what the system does in between is not deterministic, so a seed replays the faults, not
 * the exact history.
 *
 * @param nodes cluster size (3 or 5)
 * @param partitions offsets partitions
 * @param faultPhase how long faults are injected
 * @param seed the fault schedule's seed
 * @param groups consumer groups of GroupMembers
 * @param membersPerGroup GroupMembers per group
 * @param topicPartitions partitions of each group's topic
 * @param committers independent committers (simple groups, generation -1), each with a reader
 * @param minLeaderKills leader kills the schedule must contain at least
 * @param reportDir where the report goes
 * @param diskFull whether one node's data dir is a small tmpfs that the nemesis fills once (needs root)
 * @param raftTls whether the nodes' Raft ports speak mutual TLS (a throwaway peer CA per run)
 * @param authorizer whether the nodes check ACLs ({@code authorizer.enabled}): the workload's
 *                   clients (ANONYMOUS) are then allowed by ACLs a super user creates at the start,
 *                   which live in partition 0's log through every fault
 * @param consumerProtocol whether every other group (the odd-numbered ones) runs KIP-848's consumer
 *                   protocol ({@code GroupProtocol.CONSUMER}, server assignors alternating
 *                   {@code uniform} and {@code range}, topics in the registry) instead of the classic one
 * @param membership whether the nemesis also replaces nodes online ({@link Nemesis.Fault#REPLACE_NODE}:
 *                   remove-node, empty disk, join, add-node); each partition is then placed on 3 of
 *                   the nodes (offsets.replication.factor 3), so that with 5 nodes every replacement
 *                   moves replicas between nodes
 */
public record ChaosConfig(int nodes, int partitions, Duration faultPhase, long seed, int groups, int membersPerGroup,
        int topicPartitions, int committers, int minLeaderKills, Path reportDir, boolean diskFull, boolean raftTls,
        boolean authorizer, boolean consumerProtocol, boolean membership) {
    /** Members are removed after this long without a heartbeat: longer than any injected fault. */
    public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);
    /** The fence probe's session: short, so the probe is expelled while it stays silent. */
    public static final Duration PROBE_SESSION_TIMEOUT = Duration.ofSeconds(3);
    /** The bound of the liveness checker: after the faults stop, every group is Stable and assigned within it. */
    public static final Duration LIVENESS_BOUND = Duration.ofSeconds(60);
    /** The tmpfs of the disk-full node: room for its logs and snapshots, until the nemesis fills it. */
    public static final long SMALL_DISK_BYTES = 64L << 20;
    /**
     * Snapshots this often (entries per partition) in chaos runs, so a full disk is met within
     * seconds by a snapshot write, not only once Ratis's preallocated log space runs out.
     */
    public static final long SNAPSHOT_EVERY_ENTRIES = 500;
    /**
     * The replay bound's minimum ({@code raft.snapshot.min.entries}) in chaos runs, below
     * {@link #SNAPSHOT_EVERY_ENTRIES}: while the state is small, most snapshots are the ones a replica
     * asks Ratis for itself, so that path meets the faults too (leader changes, installs, stops).
     */
    public static final long SNAPSHOT_MIN_ENTRIES = 200;

    /** The short scenario of {@code mvn -B verify}: 3 nodes, about two minutes of faults, one node replaced. */
    public static ChaosConfig shortScenario(long seed, Path reportDir) {
        return new ChaosConfig(3, 3, Duration.ofSeconds(70), seed, 2, 3, 12, 3, 10, reportDir, true, true, true, true, true);
    }

    /** A long run for scripts/chaos.sh. */
    public static ChaosConfig longRun(int nodes, Duration faultPhase, long seed, Path reportDir) {
        int kills = (int) Math.max(10, faultPhase.toSeconds() / 10);
        return new ChaosConfig(nodes, Math.max(3, nodes), faultPhase, seed, 3, 4, 12, 4, kills, reportDir, true, false,
                false, true, false);
    }

    /** The same run without the disk-full fault (no tmpfs, so no root needed). */
    public ChaosConfig withoutDiskFull() {
        return new ChaosConfig(nodes, partitions, faultPhase, seed, groups, membersPerGroup, topicPartitions,
                committers, minLeaderKills, reportDir, false, raftTls, authorizer, consumerProtocol, membership);
    }

    /** This run with mutual TLS on the Raft ports. */
    public ChaosConfig withRaftTls() {
        return new ChaosConfig(nodes, partitions, faultPhase, seed, groups, membersPerGroup, topicPartitions,
                committers, minLeaderKills, reportDir, diskFull, true, authorizer, consumerProtocol, membership);
    }

    /** This run with plaintext Raft ports. */
    public ChaosConfig withoutRaftTls() {
        return new ChaosConfig(nodes, partitions, faultPhase, seed, groups, membersPerGroup, topicPartitions,
                committers, minLeaderKills, reportDir, diskFull, false, authorizer, consumerProtocol, membership);
    }

    /** This run with the authorizer on (ACLs for the workload created at the start). */
    public ChaosConfig withAuthorizer() {
        return new ChaosConfig(nodes, partitions, faultPhase, seed, groups, membersPerGroup, topicPartitions,
                committers, minLeaderKills, reportDir, diskFull, raftTls, true, consumerProtocol, membership);
    }

    /** This run with every group on the classic protocol (no consumer-protocol groups). */
    public ChaosConfig withClassicGroupsOnly() {
        return new ChaosConfig(nodes, partitions, faultPhase, seed, groups, membersPerGroup, topicPartitions,
                committers, minLeaderKills, reportDir, diskFull, raftTls, authorizer, false, membership);
    }

    /** This run with nodes replaced online by the nemesis (see {@code membership}). */
    public ChaosConfig withMembership() {
        return new ChaosConfig(nodes, partitions, faultPhase, seed, groups, membersPerGroup, topicPartitions,
                committers, minLeaderKills, reportDir, diskFull, raftTls, authorizer, consumerProtocol, true);
    }

    /** Whether group {@code group} of this run uses the consumer protocol: the odd-numbered ones. */
    public boolean consumerProtocol(int group) {
        return consumerProtocol && group % 2 == 1;
    }

    /** The node whose data dir is the small tmpfs: drawn from the seed, like the other targets. */
    public int diskFullNode() {
        return 1 + (int) Math.floorMod(seed, (long) nodes);
    }

    @Override
    public String toString() {
        return "nodes=" + nodes + " partitions=" + partitions + " faultPhase=" + faultPhase.toSeconds() + "s seed=" + seed
                + " groups=" + groups + "x" + membersPerGroup + " members (topic of " + topicPartitions
                + " partitions) committers=" + committers + " minLeaderKills=" + minLeaderKills
                + (diskFull ? " diskFullNode=" + diskFullNode() : " diskFull=off") + " raftTls=" + raftTls
                + " authorizer=" + authorizer + " consumerProtocolGroups=" + (consumerProtocol ? "odd" : "none")
                + " membership=" + membership;
    }
}
