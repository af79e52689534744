package io.cohort.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.core.GroupConfig;
import io.cohort.core.shard.Result;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proposal timeout is Cohort's: Ratis never times out a write submitted to a leader (a
 * request's timeout is not enforced), so a leader that cannot commit (no majority, a log that
 * cannot be written) held its clients until their own deadline. Here a leader keeps leading (its
 * election timeout is 8-9 s) after both followers stop; a commit to it must be answered when the
 * 1 s proposal timeout runs out, INDETERMINATE (the server's COORDINATOR_NOT_AVAILABLE), not by
 * the step-down seconds later.
 */
class ProposalTimeoutTest {
    private static final long PROPOSAL_TIMEOUT_MS = 1_000;

    @TempDir
    Path tmp;

    @Test
    void testACommitThatCannotCommitIsAnsweredWhenTheProposalTimeoutRunsOut() throws Exception {
        RaftTuning tuning = RaftTestCluster.TEST_TUNING.toBuilder().electionTimeouts(8_000, 9_000)
                .proposalTimeoutMs(PROPOSAL_TIMEOUT_MS).build();
        try (RaftTestCluster cluster = RaftTestCluster.start(tmp, 3, 1, GroupConfig.defaults(), tuning)) {
            CohortRaftNode leader = cluster.leaderOf(0);
            assertThat(leader.submit(0, Commands.simpleCommit("g", "t", 0, 1)).get(20, TimeUnit.SECONDS)).isNotNull();
            for (CohortRaftNode node : cluster.runningNodes()) {
                if (node != leader) {
                    cluster.stopNode(node.nodeId());
                }
            }

            CompletableFuture<Result> stuck = leader.submit(0, Commands.simpleCommit("g", "t", 0, 2));
            // Bounded well below the 8 s the leader keeps leading alone; the answer must be the timeout.
            assertThatThrownBy(() -> stuck.get(6, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(ProposalException.class)
                    .hasMessageContaining("not committed within the proposal timeout (1000 ms)")
                    .satisfies(e -> assertThat(((ProposalException) e).kind())
                            .isEqualTo(ProposalException.Kind.INDETERMINATE));
        }
    }
}
