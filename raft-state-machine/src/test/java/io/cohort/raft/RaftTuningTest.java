package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

class RaftTuningTest {

    @Test
    void testAReplicaFsyncsBeforeItAcknowledgesUnlessToldOtherwise() {
        NodeAddress self = new NodeAddress(1, "127.0.0.1", 7201, 7101);
        assertThat(RaftTuning.defaults().fsyncBeforeAck()).isTrue();
        assertThat(RaftServerConfigKeys.Log.unsafeFlushEnabled(
                RaftServerProperties.of(Path.of("data"), self, RaftTuning.defaults()))).isFalse();

        RaftTuning unsynced = RaftTuning.builder().fsyncBeforeAck(false).build();
        assertThat(RaftServerConfigKeys.Log.unsafeFlushEnabled(
                RaftServerProperties.of(Path.of("data"), self, unsynced))).isTrue();
        // Ratis refuses both at once; the unsafe flush is the one that writes to the OS before acknowledging.
        assertThat(RaftServerConfigKeys.Log.asyncFlushEnabled(
                RaftServerProperties.of(Path.of("data"), self, unsynced))).isFalse();
    }

    /**
     * Pins the follower's direct append. With Ratis's composed append (its default), a follower
     * could keep an old leader's entry that a new leader replaced, acknowledge the new one, and
     * stay behind for good (docs/OPERATIONS.md, "Raft settings", follower append). The race itself
     * cannot be provoked on purpose with real servers, so this guards the setting that prevents it,
     * for every tuning.
     */
    @Test
    void testFollowersAppendOnTheRequestThreadWhateverTheTuning() {
        NodeAddress self = new NodeAddress(1, "127.0.0.1", 7201, 7101);
        for (RaftTuning tuning : new RaftTuning[] {RaftTuning.defaults(),
                RaftTuning.builder().fsyncBeforeAck(false).logMetadataEnabled(true).build()}) {
            assertThat(RaftServerConfigKeys.Log.appendEntriesComposeEnabled(
                    RaftServerProperties.of(Path.of("data"), self, tuning))).isFalse();
        }
    }

    @Test
    void testBuilderStartsFromTheDefaultsAndChangesOnlyWhatIsSet() {
        RaftTuning defaults = RaftTuning.defaults();
        RaftTuning tuned = RaftTuning.builder().electionTimeouts(300, 600).snapshotEveryEntries(500).build();

        assertThat(tuned.electionTimeoutMinMs()).isEqualTo(300);
        assertThat(tuned.electionTimeoutMaxMs()).isEqualTo(600);
        assertThat(tuned.snapshotEveryEntries()).isEqualTo(500);
        assertThat(tuned.maxBatchCommands()).isEqualTo(defaults.maxBatchCommands());
        assertThat(tuned.batchLingerMaxMicros()).isEqualTo(defaults.batchLingerMaxMicros());
        assertThat(tuned).isNotEqualTo(defaults);
        assertThat(tuned.toBuilder().electionTimeouts(defaults.electionTimeoutMinMs(), defaults.electionTimeoutMaxMs())
                .snapshotEveryEntries(defaults.snapshotEveryEntries()).build())
                .isEqualTo(defaults).hasSameHashCodeAs(defaults);
    }

    @Test
    void testToBuilderCopiesEverySettingAndLeavesTheOriginalAlone() {
        RaftTuning original = RaftTuning.builder().electionTimeouts(1_000, 2_000).batching(64, 4)
                .logMetadataEnabled(true).appenderWaitMinMs(0).batchLingerMaxMicros(250).leaderLeaseEnabled(false)
                .segmentSizeMaxBytes(4 << 10).proposalTimeoutMs(700).readTimeoutMs(800).leaderBalanceHoldMs(900)
                .build();

        RaftTuning.Builder builder = original.toBuilder();
        assertThat(builder.build()).isEqualTo(original);
        RaftTuning changed = builder.batching(1, 1).build();

        assertThat(changed.maxBatchCommands()).isEqualTo(1);
        assertThat(original.maxBatchCommands()).isEqualTo(64);
        assertThat(changed.leaderLeaseEnabled()).isFalse();
        assertThat(changed.preallocatedBytes()).isEqualTo(4 << 10);
        assertThat(changed.toString()).contains("electionTimeoutMinMs=1000", "maxBatchCommands=1",
                "batchLingerMaxMicros=250");
    }

    @Test
    void testABuilderChangedAfterBuildDoesNotChangeWhatItBuilt() {
        RaftTuning.Builder builder = RaftTuning.builder().snapshotEveryEntries(5);
        RaftTuning built = builder.build();

        builder.snapshotEveryEntries(6);

        assertThat(built.snapshotEveryEntries()).isEqualTo(5);
    }

    @Test
    void testValuesThatCannotWorkTogetherAreRefused() {
        assertThatThrownBy(() -> RaftTuning.builder().electionTimeouts(400, 400).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("election timeout");
        assertThatThrownBy(() -> RaftTuning.builder().batchLingerMaxMicros(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("linger");
        // Ratis's op-size limit (buffer - 8) must sit just above a power of two (LargeEntryRestartTest).
        assertThatThrownBy(() -> RaftTuning.builder().writeBufferBytes(1L << 20).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
        org.assertj.core.api.Assertions.assertThat(RaftTuning.builder().writeBufferBytes((2L << 20) + 16).build()
                .writeBufferBytes()).isEqualTo((2L << 20) + 16);
        assertThatThrownBy(() -> RaftTuning.builder().batching(0, 1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch limits");
    }

    @Test
    void testElectionTimeoutsGrowWithThePartitions() {
        assertThat(RaftTuning.builder().electionTimeoutsFor(1).build()).isEqualTo(RaftTuning.defaults());
        assertTimeouts(2, 300, 600);
        assertTimeouts(12, 300, 600);
        assertTimeouts(16, 320, 640);
        assertTimeouts(50, 1_000, 2_000);
    }

    private static void assertTimeouts(int partitions, int minMs, int maxMs) {
        RaftTuning tuning = RaftTuning.builder().electionTimeoutsFor(partitions).build();
        assertThat(tuning.electionTimeoutMinMs()).as("min at P=%d", partitions).isEqualTo(minMs);
        assertThat(tuning.electionTimeoutMaxMs()).as("max at P=%d", partitions).isEqualTo(maxMs);
    }
}
