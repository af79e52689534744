package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.ListGroupsResponse;
import io.cohort.client.internal.Partitioner;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How one node's ListGroups answers are merged into the cluster's list. */
class ClusterGroupListingTest {
    private static final int PARTITIONS = 4;

    private static String groupIn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            String group = prefix + "-" + i;
            if (Partitioner.partitionFor(group, PARTITIONS) == partition) {
                return group;
            }
        }
    }

    private static ListGroupsResponse answer(List<Integer> partitions, String... groups) {
        ListGroupsResponse.Builder answer = ListGroupsResponse.newBuilder().setErrorCode(ErrorCode.NONE)
                .addAllPartitionIndexes(partitions);
        for (String group : groups) {
            answer.addGroups(ListGroupsResponse.Group.newBuilder().setGroupId(group).setGroupState("Empty")
                    .setGroupType("classic"));
        }
        return answer.build();
    }

    @Test
    void testEveryPartitionIsTakenFromTheFirstAnswerThatCoversIt() {
        String zero = groupIn(0, "z");
        String one = groupIn(1, "o");
        String oneDeletedSince = groupIn(1, "gone");
        String two = groupIn(2, "t");
        String three = groupIn(3, "h");
        ClusterGroupListing.Merge merge = new ClusterGroupListing.Merge(PARTITIONS);

        merge.add(answer(List.of(0, 1), zero, one));
        assertThat(merge.complete()).isFalse();
        assertThat(merge.missing()).containsExactly(2, 3);
        // A node that took partition 1 over later answers for it again, with another view: ignored,
        // so the list never mixes two nodes' views of one partition.
        merge.add(answer(List.of(1, 2), one, oneDeletedSince, two));
        // A node that leads nothing answers NONE with no partitions.
        merge.add(answer(List.of()));
        assertThat(merge.missing()).containsExactly(3);
        merge.add(answer(List.of(3), three));

        assertThat(merge.complete()).isTrue();
        assertThat(merge.missing()).isEmpty();
        assertThat(merge.groups()).extracting(ListGroupsResponse.Group::getGroupId)
                .containsExactlyElementsOf(java.util.stream.Stream.of(zero, one, two, three).sorted().toList());
    }

    @Test
    void testAGroupOfAPartitionTheAnswerDoesNotCoverIsIgnored() {
        ClusterGroupListing.Merge merge = new ClusterGroupListing.Merge(PARTITIONS);
        merge.add(answer(List.of(0), groupIn(0, "a"), groupIn(2, "stray")));
        assertThat(merge.groups()).extracting(ListGroupsResponse.Group::getGroupId).containsExactly(groupIn(0, "a"));
        assertThat(merge.missing()).containsExactly(1, 2, 3);
    }

    @Test
    void testANodeOfAReleaseBeforePartitionIndexesCoversEveryPartitionNotHeardFromYet() {
        // Rolling upgrade with the new client: an older node lists the whole cluster and names no partitions.
        String zero = groupIn(0, "z");
        String two = groupIn(2, "t");
        String three = groupIn(3, "h");
        ClusterGroupListing.Merge merge = new ClusterGroupListing.Merge(PARTITIONS);
        merge.add(answer(List.of(0), zero));
        merge.add(answer(List.of(), zero, groupIn(0, "stale"), two, three));

        assertThat(merge.complete()).isTrue();
        // Partition 0 stays as the node that named it answered: views are never mixed within a partition.
        assertThat(merge.groups()).extracting(ListGroupsResponse.Group::getGroupId)
                .containsExactlyElementsOf(java.util.stream.Stream.of(zero, two, three).sorted().toList());
    }
}
