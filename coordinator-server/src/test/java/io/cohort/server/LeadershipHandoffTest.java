package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.raft.PartitionStatus;
import io.cohort.raft.PartitionStatus.Replica;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeadershipHandoffTest {
    private static PartitionStatus leading(Replica... replicas) {
        return new PartitionStatus(0, "g", 1, 3, true, true, 100, 100, -1, List.of(replicas));
    }

    @Test
    void testPrefersThePreferredLeaderWhenCaughtUp() {
        PartitionStatus status = leading(new Replica(2, 100, 101, 0, 5), new Replica(3, 100, 101, 0, 1));
        assertThat(LeadershipHandoff.chooseTarget(status, 3, 1_000)).contains(3);
        assertThat(LeadershipHandoff.chooseTarget(status, 1, 1_000)).contains(3);
        assertThat(LeadershipHandoff.chooseTarget(status, 2, 1_000)).contains(2);
    }

    @Test
    void testSkipsLaggingAndSilentFollowers() {
        PartitionStatus status = leading(new Replica(2, 90, 91, 10, 5), new Replica(3, 100, 101, 0, 5_000));
        // Node 3 shows no lag but has not answered for 5 s: on an idle partition a dead follower looks caught up.
        assertThat(LeadershipHandoff.chooseTarget(status, 2, 1_000)).isEmpty();
        assertThat(LeadershipHandoff.chooseTarget(status, 2, 10_000)).contains(3);
    }

    @Test
    void testNoFollowersNoTarget() {
        assertThat(LeadershipHandoff.chooseTarget(leading(), 1, 1_000)).isEmpty();
    }
}
