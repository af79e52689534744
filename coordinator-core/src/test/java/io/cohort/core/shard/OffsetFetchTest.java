package io.cohort.core.shard;

import static io.cohort.core.shard.OffsetTestSupport.commit;
import static io.cohort.core.shard.OffsetTestSupport.makeDead;
import static io.cohort.core.shard.OffsetTestSupport.partition;
import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.ErrorCode;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.response.OffsetFetchResponse;
import io.cohort.core.response.OffsetFetchResponse.PartitionOffset;
import io.cohort.core.response.OffsetFetchResponse.TopicOffsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * OffsetFetch (reference 1.8, 3.2, case 107). Cohort has no transactional offsets, so case 109
 * (require_stable with pending transactional offsets) does not apply.
 */
class OffsetFetchTest {
    private final GroupShardTestContext context = new GroupShardTestContext(GroupShardTestContext.TEST_CONFIG, 5_000L);

    /** foo-0, foo-1, bar-0 in that order (a LinkedHashMap keeps the request's topic order). */
    private static Map<String, List<Integer>> fooAndBar() {
        Map<String, List<Integer>> topics = new LinkedHashMap<>();
        topics.put("foo", List.of(0, 1));
        topics.put("bar", List.of(0));
        return topics;
    }

    private static OffsetFetchResponse allUnknown(String groupId) {
        return new OffsetFetchResponse(groupId, ErrorCode.NONE, List.of(
                new TopicOffsets("foo", List.of(
                        new PartitionOffset(0, -1L, -1, "", ErrorCode.NONE),
                        new PartitionOffset(1, -1L, -1, "", ErrorCode.NONE))),
                new TopicOffsets("bar", List.of(new PartitionOffset(0, -1L, -1, "", ErrorCode.NONE)))));
    }

    @Test
    @DisplayName("case 107: fetch from an unknown group: -1, leader epoch -1, metadata \"\", NONE for each partition")
    void testFetchOffsetsWithUnknownGroup() {
        assertThat(context.shard().fetchOffsets("group", fooAndBar())).isEqualTo(allUnknown("group"));
    }

    @Test
    @DisplayName("case 107: fetch from a Dead group that still holds offsets: -1 for each partition")
    void testGenericGroupFetchOffsetsWithDeadGroup() {
        context.apply(commit("group").topic("foo", partition(0, 100L), partition(1, 110L))
                .topic("bar", partition(0, 200L)).build());
        makeDead(context, "group");
        assertThat(context.group("group").state()).isEqualTo(ClassicGroupState.DEAD);

        assertThat(context.shard().fetchOffsets("group", fooAndBar())).isEqualTo(allUnknown("group"));
    }

    @Test
    @DisplayName("case 107: fetch-all from an unknown group: empty list, NONE")
    void testFetchAllOffsetsWithUnknownGroup() {
        assertThat(context.shard().fetchOffsets("group", null))
                .isEqualTo(new OffsetFetchResponse("group", ErrorCode.NONE, List.of()));
    }

    @Test
    @DisplayName("case 107: fetch-all from a Dead group that still holds offsets: empty list, NONE")
    void testGenericGroupFetchAllOffsetsWithDeadGroup() {
        context.apply(commit("group").topic("foo", partition(0, 100L)).build());
        makeDead(context, "group");

        assertThat(context.shard().fetchOffsets("group", null))
                .isEqualTo(new OffsetFetchResponse("group", ErrorCode.NONE, List.of()));
    }

    @Test
    @DisplayName("fetch returns the committed offset, leader epoch and metadata; -1 where nothing was committed")
    void testFetchCommittedOffsets() {
        context.apply(commit("group").topic("foo", partition(0, 100L, 3, "meta-0"), partition(1, 110L, -1, null))
                .build());

        assertThat(context.shard().fetchOffsets("group", fooAndBar()))
                .isEqualTo(new OffsetFetchResponse("group", ErrorCode.NONE, List.of(
                        new TopicOffsets("foo", List.of(
                                new PartitionOffset(0, 100L, 3, "meta-0", ErrorCode.NONE),
                                new PartitionOffset(1, 110L, -1, "", ErrorCode.NONE))),
                        new TopicOffsets("bar", List.of(new PartitionOffset(0, -1L, -1, "", ErrorCode.NONE))))));
    }

    @Test
    @DisplayName("fetch-all lists every committed partition, sorted by topic then partition")
    void testFetchAllOffsetsSorted() {
        context.apply(commit("group").topic("foo", partition(1, 11L), partition(0, 10L, 4, "m"))
                .topic("bar", partition(2, 22L)).build());
        context.apply(commit("group").topic("abc", partition(0, 1L)).topic("bar", partition(0, 20L)).build());
        // Another group's offsets are not listed.
        context.apply(commit("other").topic("aaa", partition(0, 9L)).build());

        assertThat(context.shard().fetchOffsets("group", null))
                .isEqualTo(new OffsetFetchResponse("group", ErrorCode.NONE, List.of(
                        new TopicOffsets("abc", List.of(new PartitionOffset(0, 1L, -1, "", ErrorCode.NONE))),
                        new TopicOffsets("bar", List.of(
                                new PartitionOffset(0, 20L, -1, "", ErrorCode.NONE),
                                new PartitionOffset(2, 22L, -1, "", ErrorCode.NONE))),
                        new TopicOffsets("foo", List.of(
                                new PartitionOffset(0, 10L, 4, "m", ErrorCode.NONE),
                                new PartitionOffset(1, 11L, -1, "", ErrorCode.NONE))))));
    }

    @Test
    @DisplayName("fetch with a null group id: INVALID_GROUP_ID; \"\" is a legal group id")
    void testFetchOffsetsInvalidGroupId() {
        assertThat(context.shard().fetchOffsets(null, fooAndBar()))
                .isEqualTo(new OffsetFetchResponse(null, ErrorCode.INVALID_GROUP_ID, List.of()));
        assertThat(context.shard().fetchOffsets(null, null))
                .isEqualTo(new OffsetFetchResponse(null, ErrorCode.INVALID_GROUP_ID, List.of()));

        context.apply(commit("").topic("foo", partition(0, 100L)).build());
        assertThat(context.shard().fetchOffsets("", null))
                .isEqualTo(new OffsetFetchResponse("", ErrorCode.NONE, List.of(
                        new TopicOffsets("foo", List.of(new PartitionOffset(0, 100L, -1, "", ErrorCode.NONE))))));
    }

    @Test
    @DisplayName("fetch no longer sees offsets removed by OffsetDelete")
    void testFetchAfterOffsetDelete() {
        context.apply(commit("group").topic("foo", partition(0, 100L), partition(1, 110L)).build());
        context.apply(new Command.OffsetDelete("group",
                List.of(new Command.TopicPartitions("foo", List.of(0)))));

        assertThat(context.shard().fetchOffsets("group", null))
                .isEqualTo(new OffsetFetchResponse("group", ErrorCode.NONE, List.of(
                        new TopicOffsets("foo", List.of(new PartitionOffset(1, 110L, -1, "", ErrorCode.NONE))))));
    }
}
