package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When Ratis closes a node's replica of partition 0 on its own, is the node removed from the
 * cluster, or is the replica opened again ({@link MembershipView#closedReplicaDecision})? Node 3
 * throughout; it was last seen as a member in the configuration at index 1406 unless a row says
 * otherwise. "Soon": the replica was opened again after an earlier close within the reopen window.
 */
class ClosedReplicaRemovalTest {
    private static final int NODE = 3;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // case                                                               | was member | last index | voters now | index now | soon  | decision
            "a newer configuration leaves it out (remove-node applied here)          | true  | 1406 | 1,2   | 1500 | false | REMOVED",
            "the replica still lists itself: first close, opened again               | true  | 1406 | 1,2,3 | 1406 | false | REOPEN",
            "still lists itself, closed again right after: 'you were removed' again  | true  | 1406 | 1,2,3 | 1406 | true  | REMOVED",
            "the replica's configuration went back to one without it (truncated log)  | true  | 1406 | 1,2   | 79   | false | REOPEN",
            "went back again right after it was opened again: the replica fails      | true  | 1406 | 1,2   | 79   | true  | FAILED",
            "the same index without it cannot be a newer decision                     | true  | 1406 | 1,2   | 1406 | false | REOPEN",
            "an empty configuration (the replica's log truncated to nothing)          | true  | 1406 | ''    | -1   | false | REOPEN",
            "an unreadable configuration                                              | true  | 1406 |       |      | false | REOPEN",
            "an unreadable configuration right after a reopen                         | true  | 1406 |       |      | true  | FAILED",
            "a node never seen as a member (a joining node whose add was undone)     | false | -1   | 1,2   | 1500 | false | REMOVED",
            "a member since the initial configuration, removed by the first change    | true  | -1   | 1,2   | 3    | false | REMOVED",
            "the initial configuration without it cannot remove a member of it       | true  | -1   | 1,2   | -1   | false | REOPEN",
    })
    void decides(String description, boolean wasMember, long lastMemberConfIndex, String votersNow, Long indexNow,
                 boolean closedSoonAfterReopen, MembershipView.ClosedReplica decision) {
        Membership now = indexNow == null ? null : new Membership(voters(votersNow), List.of(), indexNow);
        assertThat(MembershipView.closedReplicaDecision(NODE, wasMember, lastMemberConfIndex, now,
                closedSoonAfterReopen)).as(description).isEqualTo(decision);
    }

    private static List<NodeAddress> voters(String ids) {
        if (ids == null || ids.isBlank()) {
            return List.of();
        }
        return Arrays.stream(ids.split(",")).map(String::trim).map(Integer::parseInt)
                .map(id -> new NodeAddress(id, "127.0.0.1", 7200 + id, 7100 + id)).toList();
    }
}
