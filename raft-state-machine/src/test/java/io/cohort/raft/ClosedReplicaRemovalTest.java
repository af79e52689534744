package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When Ratis closes a node's replica of partition 0 on its own, is the node removed from the
 * cluster ({@link MembershipView#closedReplicaMeansRemoval})? Node 3 throughout; it was last seen
 * as a member in the configuration at index 1406 unless a row says otherwise.
 */
class ClosedReplicaRemovalTest {
    private static final int NODE = 3;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // case                                                            | was member | last index | voters now | index now | removal
            "a newer configuration leaves it out (remove-node applied here)       | true  | 1406 | 1,2   | 1500 | true",
            "the replica still lists itself: the leader answered 'you were removed' | true  | 1406 | 1,2,3 | 1406 | true",
            "the replica's configuration went back to one without it (truncated log) | true  | 1406 | 1,2   | 79   | false",
            "the same index without it cannot be a newer decision                  | true  | 1406 | 1,2   | 1406 | false",
            "an empty configuration (the replica's log truncated to nothing)       | true  | 1406 | ''    | -1   | false",
            "an unreadable configuration                                           | true  | 1406 |       |      | false",
            "a node never seen as a member (a joining node whose add was undone)  | false | -1   | 1,2   | 1500 | true",
            "a member since the initial configuration, removed by the first change | true  | -1   | 1,2   | 3    | true",
            "the initial configuration without it cannot remove a member of it    | true  | -1   | 1,2   | -1   | false",
    })
    void decides(String description, boolean wasMember, long lastMemberConfIndex, String votersNow, Long indexNow,
                 boolean removal) {
        Membership now = indexNow == null ? null : new Membership(voters(votersNow), List.of(), indexNow);
        assertThat(MembershipView.closedReplicaMeansRemoval(NODE, wasMember, lastMemberConfIndex, now))
                .as(description).isEqualTo(removal);
    }

    private static List<NodeAddress> voters(String ids) {
        if (ids == null || ids.isBlank()) {
            return List.of();
        }
        return Arrays.stream(ids.split(",")).map(String::trim).map(Integer::parseInt)
                .map(id -> new NodeAddress(id, "127.0.0.1", 7200 + id, 7100 + id)).toList();
    }
}
