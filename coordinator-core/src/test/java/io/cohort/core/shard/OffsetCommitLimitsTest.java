package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.commitResponse;
import static io.cohort.core.shard.OffsetTestSupport.error;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static io.cohort.core.shard.OffsetTestSupport.topicErrors;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.StateLimits;
import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.record.OffsetAndMetadata;
import io.cohort.core.response.OffsetCommitResponse;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * OffsetCommit against the partition's {@link StateLimits}: a commit that would grow a count beyond
 * its limit is refused as a whole (every partition INVALID_COMMIT_OFFSET_SIZE, a message naming the
 * limit's key and value, no record); commits that do not grow the count are accepted.
 */
class OffsetCommitLimitsTest {
    private static final long START_MS = 100_000L;

    private static GroupShardTestContext contextWith(StateLimits limits) {
        return new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG.withLimits(limits), START_MS);
    }

    private static Command.PartitionCommit withMetadata(int partition, long offset, String metadata) {
        return partition(partition, offset, -1, metadata);
    }

    private static OffsetAndMetadata committed(long offset, String metadata) {
        return new OffsetAndMetadata(offset, -1, metadata, START_MS, OffsetAndMetadata.NO_EXPIRE_TIMESTAMP);
    }

    private static void assertRefused(Result result, Command.OffsetCommit request, String message) {
        assertThat(result.immediateResponse())
                .isEqualTo(OffsetCommitResponse.allFailed(request, ErrorCode.INVALID_COMMIT_OFFSET_SIZE, message));
        assertThat(result.records()).isEmpty();
        assertThat(result.timers()).isEmpty();
        assertThat(result.completions()).isEmpty();
    }

    @Test
    @DisplayName("group.max.offsets: a commit adding offsets beyond it is refused whole; updates still pass")
    void testOffsetCommitBeyondMaxOffsetsPerGroup() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxOffsetsPerGroup(2));
        assertThat(context.apply(commit("g").topic("t", partition(0, 10L), partition(1, 10L)).build())
                .immediateResponse()).isEqualTo(commitResponse(topicErrors("t", error(0, ErrorCode.NONE),
                error(1, ErrorCode.NONE))));

        // p1 alone would be an update; p2 is new and would make 3 offsets.
        Command.OffsetCommit growing = commit("g").topic("t", partition(1, 20L), partition(2, 20L)).build();
        assertRefused(context.apply(growing), growing, "group.max.offsets=2 would be exceeded: group g holds 2 "
                + "offsets and this request would add 1; nothing of the request was applied");
        assertThat(context.shard().fetchOffsets("g", null).topics().get(0).partitions())
                .extracting(p -> p.partition() + "@" + p.offset()).containsExactly("0@10", "1@10");

        // Updates of offsets the group holds, and another group's offsets, are accepted.
        assertThat(context.apply(commit("g").topic("t", partition(0, 30L), partition(1, 30L)).build())
                .records()).hasSize(2);
        assertThat(context.apply(commit("other").topic("t", partition(0, 1L), partition(1, 1L)).build())
                .records()).hasSize(2);
        assertThat(context.shard().offsetCount("g")).isEqualTo(2);
    }

    @Test
    @DisplayName("offsets.partition.max.offsets counts the offsets of every group of the partition")
    void testOffsetCommitBeyondMaxOffsetsPerPartition() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxOffsetsPerPartition(3));
        context.apply(commit("a").topic("t", partition(0, 1L), partition(1, 1L)).build());
        context.apply(commit("b").topic("t", partition(0, 1L)).build());

        Command.OffsetCommit growing = commit("b").topic("t", partition(1, 1L)).build();
        assertRefused(context.apply(growing), growing, "offsets.partition.max.offsets=3 would be exceeded: the "
                + "partition holds 3 offsets and this request would add 1; nothing of the request was applied");
        assertThat(context.shard().offsetCount()).isEqualTo(3);
    }

    @Test
    @DisplayName("offsets.partition.max.groups: a simple commit that would create one group too many is refused")
    void testOffsetCommitBeyondMaxGroupsPerPartition() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxGroupsPerPartition(2));
        context.apply(commit("a").topic("t", partition(0, 1L)).build());
        context.apply(commit("b").topic("t", partition(0, 1L)).build());

        Command.OffsetCommit creating = commit("c").topic("t", partition(0, 1L)).build();
        assertRefused(context.apply(creating), creating, "offsets.partition.max.groups=2 would be exceeded: the "
                + "partition holds 2 groups and this request would add 1; nothing of the request was applied");
        assertThat(context.group("c")).isNull();
        assertThat(context.apply(commit("a").topic("t", partition(1, 1L)).build()).records()).hasSize(1);
    }

    @Test
    @DisplayName("offsets.partition.max.metadata.bytes: growth of metadata is refused, shrinking always passes")
    void testOffsetCommitBeyondMaxMetadataBytesPerPartition() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxMetadataBytesPerPartition(10));
        context.apply(commit("g").topic("t", withMetadata(0, 1L, "12345"), withMetadata(1, 1L, "1234")).build());
        assertThat(context.shard().metadataBytes()).isEqualTo(9);

        Command.OffsetCommit newOffset = commit("g").topic("t", withMetadata(2, 1L, "xx")).build();
        assertRefused(context.apply(newOffset), newOffset, "offsets.partition.max.metadata.bytes=10 would be "
                + "exceeded: the partition holds 9 bytes of metadata and this request would add 2; nothing of the "
                + "request was applied");
        Command.OffsetCommit longer = commit("g").topic("t", withMetadata(0, 2L, "1234567")).build();
        assertRefused(context.apply(longer), longer, "offsets.partition.max.metadata.bytes=10 would be exceeded: "
                + "the partition holds 9 bytes of metadata and this request would add 2; nothing of the request was "
                + "applied");

        // Net growth is what counts: shrinking p0 by 2 pays for 3 more on p2 in the same request.
        Result netGrowth = context.apply(commit("g").topic("t", withMetadata(0, 3L, "123"),
                withMetadata(2, 3L, "abc")).build());
        assertThat(netGrowth.records()).containsExactly(
                new CoordinatorRecord.OffsetValue("g", "t", 0, committed(3L, "123")),
                new CoordinatorRecord.OffsetValue("g", "t", 2, committed(3L, "abc")));
        assertThat(context.shard().metadataBytes()).isEqualTo(10);
    }

    @Test
    @DisplayName("a command of a log written before the limits (stateLimitsApply false) replays as it was accepted")
    void testOffsetCommitFromALogWithoutLimitsIsApplied() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxOffsetsPerGroup(1));
        Command.OffsetCommit twoOffsets = commit("g").topic("t", partition(0, 1L), partition(1, 1L)).build();

        Result replayed = context.shard().apply(twoOffsets, START_MS, false);

        assertThat(replayed.immediateResponse()).isEqualTo(commitResponse(topicErrors("t", error(0, ErrorCode.NONE),
                error(1, ErrorCode.NONE))));
        assertThat(context.shard().offsetCount("g")).isEqualTo(2);
        // The same command written under the limits is refused.
        assertThat(context.shard().apply(commit("g").topic("t", partition(2, 1L)).build(), START_MS, true)
                .records()).isEmpty();
    }

    @Test
    @DisplayName("a partition committed twice in one request is counted once")
    void testOffsetCommitWithDuplicatePartitionCountsOnce() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxOffsetsPerGroup(1));
        Result result = context.apply(commit("g").topic("t", partition(0, 1L), partition(0, 2L)).build());
        assertThat(result.records()).hasSize(2);
        assertThat(context.shard().offsetCount("g")).isEqualTo(1);
    }

    @Test
    @DisplayName("state over a limit (accepted by an older build) is kept, updated and deleted; it only cannot grow")
    void testStateOverTheLimitIsKeptAndMayShrink() {
        GroupShardTestContext context = contextWith(StateLimits.defaults().withMaxOffsetsPerGroup(1)
                .withMaxMetadataBytesPerPartition(4));
        // Replayed as a log written without limits would be: three offsets, 9 bytes of metadata.
        List<CoordinatorRecord> oldLog = List.of(
                new CoordinatorRecord.OffsetValue("g", "t", 0, committed(1L, "aaa")),
                new CoordinatorRecord.OffsetValue("g", "t", 1, committed(1L, "bbb")),
                new CoordinatorRecord.OffsetValue("g", "t", 2, committed(1L, "ccc")));
        oldLog.forEach(context::replay);
        assertThat(context.shard().offsetCount("g")).isEqualTo(3);
        assertThat(context.shard().metadataBytes()).isEqualTo(9);

        assertThat(context.apply(commit("g").topic("t", withMetadata(0, 5L, "aaa")).build()).records()).hasSize(1);
        Command.OffsetCommit growing = commit("g").topic("t", withMetadata(3, 5L, "")).build();
        assertThat(context.apply(growing).records()).isEmpty();
        assertThat(context.apply(new Command.OffsetDelete("g", List.of(new Command.TopicPartitions("t", List.of(1)))))
                .records()).hasSize(1);
        assertThat(context.shard().offsetCount("g")).isEqualTo(2);
        assertThat(context.shard().metadataBytes()).isEqualTo(6);

        // A snapshot of the over-limit state restores, with the same counts.
        GroupCoordinatorShard restored = new GroupCoordinatorShard(context.shard().config());
        restored.restore(context.shard().snapshot());
        assertThat(restored.snapshot()).isEqualTo(context.shard().snapshot());
        assertThat(restored.offsetCount("g")).isEqualTo(2);
        assertThat(restored.metadataBytes()).isEqualTo(6);
    }
}
