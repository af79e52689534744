package io.cohort.server.rpc;

import io.cohort.core.ErrorCode;
import io.cohort.core.response.ListedGroup;
import io.cohort.raft.CohortRaftNode;
import io.cohort.raft.ProposalException;
import io.cohort.server.rpc.ErrorTable.Failure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * What one node answers to ListGroups, as Kafka's group coordinator does (its
 * {@code GroupCoordinatorService.listGroups} reads every coordinator partition the broker hosts):
 * the groups of every partition this node leads, read all at once; partitions it does not lead are
 * skipped (Kafka's NOT_COORDINATOR is dropped silently); a partition it leads but has not finished
 * loading makes the whole answer COORDINATOR_LOAD_IN_PROGRESS. A client lists the cluster by asking
 * every node and merging, told by {@link Listing#partitions()} which partitions each answer covers.
 *
 * <p>"Loading" is Cohort's leader that was elected but has not applied its term's first entry yet
 * ({@link CohortRaftNode#isLeaderReady}): it is replaying entries of earlier terms, the state it
 * would list is not the committed one yet. It is answered at once, without a read: reading it
 * would wait for the replay (Ratis's read index is served only by a ready leader).
 *
 * <p>Each read is linearizable (the leader lease, else a read index), so a group whose creation was
 * acknowledged before the call is listed by its partition's leader. A read never waits longer
 * than the Raft read timeout ({@code RaftTuning.readTimeoutMs}); one that fails answers
 * COORDINATOR_NOT_AVAILABLE, retriable.
 */
final class LedGroupsListing {
    private final CohortRaftNode node;

    LedGroupsListing(CohortRaftNode node) {
        this.node = node;
    }

    /**
     * One node's listing: the partitions read (increasing) and their groups (sorted by group id),
     * or the failure that replaces them.
     */
    record Listing(List<Integer> partitions, List<ListedGroup> groups, Failure failure) {
        static Listing failed(Failure failure) {
            return new Listing(List.of(), List.of(), failure);
        }
    }

    /**
     * Lists the groups of the partitions this node leads that pass the filters (unauthorized groups
     * are the caller's to drop). Completes at once if a led partition is loading, else once every
     * read has finished; never exceptionally.
     */
    CompletableFuture<Listing> list(Collection<String> statesFilter, Collection<String> typesFilter) {
        List<String> states = List.copyOf(statesFilter);
        List<String> types = List.copyOf(typesFilter);
        List<Integer> led = new ArrayList<>();
        for (int partition = 0; partition < node.partitions(); partition++) {
            if (!node.isLeader(partition)) {
                continue;
            }
            if (!node.isLeaderReady(partition)) {
                return CompletableFuture.completedFuture(Listing.failed(loading(partition)));
            }
            led.add(partition);
        }
        // Every read is issued before any is waited for: one call costs one read per led
        // partition, in parallel, not a chain of them.
        Map<Integer, CompletableFuture<List<ListedGroup>>> reads = new TreeMap<>();
        for (int partition : led) {
            reads.put(partition, read(partition, states, types));
        }
        return CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new))
                .handle((ignored, error) -> combine(reads));
    }

    private CompletableFuture<List<ListedGroup>> read(int partition, List<String> states, List<String> types) {
        try {
            return node.read(partition, true, shard -> shard.listGroups(states, types));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The reads' groups; a partition lost since its read began is skipped, as Kafka skips it. */
    private Listing combine(Map<Integer, CompletableFuture<List<ListedGroup>>> reads) {
        List<Integer> partitions = new ArrayList<>();
        List<ListedGroup> groups = new ArrayList<>();
        Failure failure = null;
        for (Map.Entry<Integer, CompletableFuture<List<ListedGroup>>> read : reads.entrySet()) {
            int partition = read.getKey();
            try {
                groups.addAll(read.getValue().join());
                partitions.add(partition);
            } catch (RuntimeException e) {
                Throwable cause = ErrorTable.unwrap(e);
                if (cause instanceof ProposalException p && p.kind() == ProposalException.Kind.NOT_LEADER) {
                    continue;
                }
                Failure readFailure = cause instanceof ProposalException p && p.kind() == ProposalException.Kind.NOT_READY
                        ? loading(partition)
                        : ErrorTable.failureOf(e, node);
                // Loading is the more telling answer: the client retries the same node for it.
                if (failure == null || (readFailure.code() == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
                        && failure.code() != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)) {
                    failure = new Failure(readFailure.code(), "partition " + partition + ": " + readFailure.message(),
                            null);
                }
            }
        }
        if (failure != null) {
            return Listing.failed(failure);
        }
        groups.sort(Comparator.comparing(ListedGroup::groupId));
        return new Listing(List.copyOf(partitions), groups, null);
    }

    private Failure loading(int partition) {
        return new Failure(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, "node " + node.nodeId() + " leads partition "
                + partition + " but is still loading it (replaying its log); retry this node shortly", null);
    }
}
