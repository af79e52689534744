package io.cohort.raft;

import static io.cohort.raft.MembershipView.ClosedReplica.FAILED;
import static io.cohort.raft.MembershipView.ClosedReplica.REMOVED;
import static io.cohort.raft.MembershipView.ClosedReplica.REOPEN;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a node releases a replica because the cluster moved the partition away
 * ({@link HostedReplicas#movedAway}, {@link HostedReplicas#closedByRatis}), and which replica dirs hold nothing worth keeping
 * ({@link ReplicaStorage#holdsNoData}).
 */
class HostedReplicasTest {
    private static final int SELF = 1;
    private static final long HOLD_MS = 1_000;
    private static final long REOPEN_WINDOW_MS = 10_000;

    @TempDir
    Path dir;

    private static Membership conf(long index, int... voters) {
        return new Membership(IntStream.of(voters).mapToObj(id -> new NodeAddress(id, "127.0.0.1", 7200 + id,
                7100 + id)).toList(), List.of(), index);
    }

    @Test
    void aReplicaNeverListedIsNotReleased() {
        HostedReplicas replicas = new HostedReplicas(2);
        // Being added: the snapshot it was sent carries a configuration from before it.
        assertThat(replicas.movedAway(1, SELF, conf(10, 2, 3), 0, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(10, 2, 3), 5_000, HOLD_MS)).isFalse();
        assertThat(replicas.closedByRatis(1, SELF, conf(10, 2, 3), 5_000, REOPEN_WINDOW_MS)).isEmpty();
        assertThat(replicas.wasMember(1)).isFalse();
    }

    @Test
    void afterARestartTheReplicasOwnLogSaysWhetherItWasAMember() {
        // Removed (configuration 20 without it), killed before releasing, restarted: this run never
        // saw it listed, but its log holds configuration 15 listing it (the joint one of its removal).
        HostedReplicas removed = new HostedReplicas(2);
        assertThat(removed.logUnread(1)).isTrue();
        removed.noteLogRead(1, 15);
        assertThat(removed.logUnread(1)).isFalse();
        assertThat(removed.wasMember(1)).isTrue();
        assertThat(removed.movedAway(1, SELF, conf(20, 2, 3), 0, HOLD_MS)).isFalse();
        assertThat(removed.movedAway(1, SELF, conf(20, 2, 3), 1_101, HOLD_MS)).isTrue();

        // Being added, restarted: its log holds only configurations from before it. Read once, never released.
        HostedReplicas beingAdded = new HostedReplicas(2);
        beingAdded.noteLogRead(1, -1);
        assertThat(beingAdded.logUnread(1)).isFalse();
        assertThat(beingAdded.wasMember(1)).isFalse();
        assertThat(beingAdded.movedAway(1, SELF, conf(20, 2, 3), 5_000, HOLD_MS)).isFalse();

        // A replica created again is read again.
        beingAdded.set(1, null);
        assertThat(beingAdded.logUnread(1)).isTrue();
    }

    @Test
    void aNewerConfigurationWithoutTheNodeReleasesItAfterTheHold() {
        HostedReplicas replicas = new HostedReplicas(2);
        assertThat(replicas.movedAway(1, SELF, conf(10, 1, 2), 0, HOLD_MS)).isFalse();
        assertThat(replicas.wasMember(1)).isTrue();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), 1_000, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), 1_101, HOLD_MS)).isTrue();
    }

    @Test
    void anOlderConfigurationWithoutTheNodeIsTheLogGoingBackNotAMove() {
        HostedReplicas replicas = new HostedReplicas(2);
        replicas.movedAway(1, SELF, conf(30, 1, 2), 0, HOLD_MS);
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), 5_000, HOLD_MS)).isFalse();
        assertThat(replicas.closedByRatis(1, SELF, conf(20, 2, 3), 5_000, REOPEN_WINDOW_MS)).contains(REOPEN);
    }

    @Test
    void listedAgainBeforeTheHoldEndsResetsIt() {
        HostedReplicas replicas = new HostedReplicas(2);
        replicas.movedAway(1, SELF, conf(10, 1, 2), 0, HOLD_MS);
        assertThat(replicas.movedAway(1, SELF, conf(20, 2, 3), 100, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(30, 1, 3), 500, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(40, 2, 3), 1_200, HOLD_MS)).isFalse();
        assertThat(replicas.movedAway(1, SELF, conf(40, 2, 3), 2_201, HOLD_MS)).isTrue();
    }

    @Test
    void aClosedReplicaIsReleasedWhenTheClusterRemovedIt() {
        HostedReplicas replicas = new HostedReplicas(3);
        replicas.movedAway(1, SELF, conf(10, 1, 2), 0, HOLD_MS);
        // Closed with its configuration still listing it: opened again first (a member's replica
        // was seen closed so); closed again within the window, the leader's "removed" stands.
        assertThat(replicas.closedByRatis(1, SELF, conf(10, 1, 2), 100, REOPEN_WINDOW_MS)).contains(REOPEN);
        replicas.noteReopened(1, 200);
        assertThat(replicas.closedByRatis(1, SELF, conf(10, 1, 2), 1_200, REOPEN_WINDOW_MS)).contains(REMOVED);
        // Closed again only after the window: another transient close, opened again.
        assertThat(replicas.closedByRatis(1, SELF, conf(10, 1, 2), 200 + REOPEN_WINDOW_MS, REOPEN_WINDOW_MS))
                .contains(REOPEN);
        replicas.movedAway(2, SELF, conf(10, 1, 2), 0, HOLD_MS);
        // Closed after a newer configuration without it: at once, no hold.
        assertThat(replicas.closedByRatis(2, SELF, conf(11, 2, 3), 100, REOPEN_WINDOW_MS)).contains(REMOVED);
        // An empty or unreadable configuration removes nothing: opened again, and if it closes
        // again within the window the replica failed.
        assertThat(replicas.closedByRatis(2, SELF, null, 100, REOPEN_WINDOW_MS)).contains(REOPEN);
        replicas.noteReopened(2, 200);
        assertThat(replicas.closedByRatis(2, SELF, new Membership(List.of(), List.of(), -1), 300, REOPEN_WINDOW_MS))
                .contains(FAILED);
        // A replica created again (set) starts without a reopen behind it.
        replicas.set(2, null);
        replicas.movedAway(2, SELF, conf(12, 1, 2), 0, HOLD_MS);
        assertThat(replicas.closedByRatis(2, SELF, null, 400, REOPEN_WINDOW_MS)).contains(REOPEN);
    }

    @Test
    void onlyAReplicaWithoutDataOfAGroupListingTheNodeIsDisposable() throws Exception {
        Path empty = dir.resolve("empty");
        Files.createDirectories(empty.resolve("current"));
        Files.writeString(empty.resolve("current").resolve("raft-meta"), "term=0\n");
        Files.createDirectories(empty.resolve("sm"));
        assertThat(ReplicaStorage.holdsNoData(empty, SELF)).isTrue();
        assertThat(ReplicaStorage.holdsNoData(dir.resolve("half-made"), SELF)).isTrue();

        // Its leader's configuration stored (without this node), and the empty snapshot at 0.
        Path staged = dir.resolve("staged");
        writeConf(staged, 2, 3);
        Files.createDirectories(staged.resolve("sm"));
        Files.writeString(staged.resolve("sm").resolve("snapshot.0_0"), "x");
        Files.writeString(staged.resolve("sm").resolve("snapshot.0_0.md5"), "x");
        assertThat(ReplicaStorage.holdsNoData(staged, SELF)).isTrue();

        // A new cluster's replica: the empty snapshot and a configuration listing the node.
        Path created = dir.resolve("created");
        writeConf(created, 1, 2, 3);
        assertThat(ReplicaStorage.holdsNoData(created, SELF)).isFalse();

        Path unreadable = dir.resolve("unreadable");
        Files.createDirectories(unreadable.resolve("current"));
        Files.write(unreadable.resolve("current").resolve("raft-meta.conf"), new byte[] {(byte) 0xff, 0x01});
        assertThat(ReplicaStorage.holdsNoData(unreadable, SELF)).isFalse();

        Path withLog = dir.resolve("log");
        Files.createDirectories(withLog.resolve("current"));
        Files.writeString(withLog.resolve("current").resolve("log_inprogress_1"), "x");
        assertThat(ReplicaStorage.holdsNoData(withLog, SELF)).isFalse();

        Path withSnapshot = dir.resolve("snapshot");
        Files.createDirectories(withSnapshot.resolve("sm"));
        Files.writeString(withSnapshot.resolve("sm").resolve("snapshot.3_120"), "x");
        assertThat(ReplicaStorage.holdsNoData(withSnapshot, SELF)).isFalse();
    }

    private static void writeConf(Path groupDir, int... peers) throws Exception {
        Files.createDirectories(groupDir.resolve("current"));
        org.apache.ratis.proto.RaftProtos.RaftConfigurationProto.Builder conf =
                org.apache.ratis.proto.RaftProtos.RaftConfigurationProto.newBuilder();
        for (int peer : peers) {
            conf.addPeers(org.apache.ratis.proto.RaftProtos.RaftPeerProto.newBuilder()
                    .setId(org.apache.ratis.thirdparty.com.google.protobuf.ByteString.copyFromUtf8("n" + peer))
                    .setAddress("127.0.0.1:" + (7200 + peer)));
        }
        try (java.io.OutputStream out = Files.newOutputStream(groupDir.resolve("current").resolve("raft-meta.conf"))) {
            org.apache.ratis.proto.RaftProtos.LogEntryProto.newBuilder().setTerm(2).setIndex(1)
                    .setConfigurationEntry(conf).build().writeTo(out);
        }
    }
}
