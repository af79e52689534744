package io.cohort.client;

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.OffsetCommitResponse;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's offset commits, for both protocols: sync and async commits sent one at a time in the
 * order they were made (so a retried commit can never overwrite a newer one), each carrying the
 * {@link Membership.CommitTarget} of the moment it was made (the classic generation, or the
 * consumer protocol's member epoch), and auto-commit of the positions recorded with
 * {@link GroupMember#markProcessed}. What a refusal means is the membership's to say.
 */
final class OffsetCommits {
    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommits.class);

    private final CohortClient client;
    private final String groupId;
    private final Optional<String> groupInstanceId;
    private final Membership membership;
    private final Duration autoCommitInterval;
    /** Positions to auto-commit (the next offset to process), by partition; poll thread only. */
    private final Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
    private long nextAutoCommitNanos;
    /** Sends commits one at a time, in submission order. */
    private final ExecutorService committer;
    /** The committer's current worker (it ends when idle and a new one starts), for {@link #serialExecutor}. */
    private volatile Thread committerThread;

    OffsetCommits(CohortClient client, String groupId, Optional<String> groupInstanceId, Membership membership,
            Duration autoCommitInterval) {
        this.client = client;
        this.groupId = groupId;
        this.groupInstanceId = groupInstanceId;
        this.membership = membership;
        this.autoCommitInterval = autoCommitInterval;
        this.nextAutoCommitNanos = System.nanoTime() + (autoCommitInterval == null ? 0 : autoCommitInterval.toNanos());
        String name = "cohort-" + groupId + "-" + client.clientId() + "-committer";
        // One worker keeps the order; it ends when idle, so that members that rarely commit (or
        // many members in one JVM) hold no thread for it.
        ThreadPoolExecutor serial = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread worker = Membership.daemon(r, name);
                    committerThread = worker;
                    return worker;
                });
        serial.allowCoreThreadTimeOut(true);
        this.committer = serial;
    }

    boolean autoCommitEnabled() {
        return autoCommitInterval != null;
    }

    void markProcessed(TopicPartition partition, long nextOffset) {
        positions.put(partition, new OffsetAndMetadata(nextOffset));
    }

    /** The application's commitSync: a {@link GroupMember#wakeup} ends the wait (the commit goes on). */
    void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        commitSync(offsets, true);
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, boolean wakeable) {
        await(commit(offsets, serialExecutor()), wakeable, "commit");
    }

    /**
     * Where a call that must follow the commits already made runs: the committer; on the committer
     * thread itself (code chained on a commitAsync future runs there), at once, since queuing
     * behind the task that waits for it would only wait out the timeout.
     */
    private Executor serialExecutor() {
        return Thread.currentThread() == committerThread ? Runnable::run : committer;
    }

    /**
     * The application's {@code committed}: runs {@code fetch} on the committer thread, after the
     * commits this member made before the call (so it sees them), and waits for it; a
     * {@link GroupMember#wakeup} ends the wait (the fetch goes on, its answer is dropped).
     */
    <T> T fetchAfterCommits(Supplier<T> fetch) {
        CompletableFuture<T> fetched = new CompletableFuture<>();
        try {
            serialExecutor().execute(() -> {
                try {
                    fetched.complete(fetch.get());
                } catch (RuntimeException e) {
                    fetched.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("member of group '" + groupId + "' is closed", e);
        }
        return await(fetched, true, "offset fetch");
    }

    /**
     * Waits for {@code call} (a commit or fetch on the committer thread) at most the api timeout
     * plus one request timeout, the longest it can take; throws what it failed with.
     */
    private <T> T await(CompletableFuture<T> call, boolean wakeable, String what) {
        long deadline = System.nanoTime() + client.apiTimeout().plus(client.requestTimeout()).toNanos();
        try {
            boolean answered = wakeable ? membership.wakeup.await(call, deadline)
                    : awaitUnwakeable(call, deadline);
            if (!answered) {
                throw new CohortException(ErrorCode.REQUEST_TIMED_OUT, what + " for group '" + groupId + "' not answered");
            }
            return call.get();
        } catch (InterruptedException e) {
            throw new InterruptException(e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new CohortException(ErrorCode.UNKNOWN_SERVER_ERROR, what + " failed", e.getCause());
        }
    }

    private static boolean awaitUnwakeable(CompletableFuture<?> call, long deadlineNanos)
            throws InterruptedException, ExecutionException {
        try {
            call.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }

    CompletableFuture<Void> commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        return commit(offsets, committer);
    }

    /** Validates and sends a commit on {@code executor}; the future completes with its answer. */
    private CompletableFuture<Void> commit(Map<TopicPartition, OffsetAndMetadata> offsets, Executor executor) {
        Map<TopicPartition, OffsetAndMetadata> copy = new TreeMap<>(offsets);
        Membership.CommitTarget target = membership.commitTarget();
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (copy.isEmpty()) {
            done.complete(null);
            return done;
        }
        if (target.generationOrEpoch() < 0) {
            // Kafka fails such a commit at once: there is no generation whose partitions it could cover.
            done.completeExceptionally(new CommitFailedException(ErrorCode.ILLEGAL_GENERATION,
                    "member of group '" + groupId + "' has no current generation (rebalancing or not joined)"));
            return done;
        }
        if (membership.refusesCommitsWhileRebalancing()) {
            // Kafka fails it at once too (RebalanceInProgressException): sent now, it would carry the
            // generation the rebalance is replacing, and its ILLEGAL_GENERATION could arrive before
            // the member learned of its new generation, resetting a member that is in it.
            done.completeExceptionally(new CommitFailedException(ErrorCode.REBALANCE_IN_PROGRESS,
                    "member of group '" + groupId + "' is rebalancing: poll until the rebalance completes, then commit"));
            return done;
        }
        executor.execute(() -> {
            try {
                sendCommit(copy, target);
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    /**
     * Sends the commit, again with a newer epoch where the protocol says so. A failure thrown after
     * an attempt that got no answer carries it as its cause ({@link ClusterRouter#afterUnansweredAttempt}):
     * the commit may have been applied by that attempt.
     */
    private void sendCommit(Map<TopicPartition, OffsetAndMetadata> offsets, Membership.CommitTarget first) {
        long deadline = System.nanoTime() + client.apiTimeout().toNanos();
        Membership.CommitTarget target = first;
        StatusRuntimeException unanswered = null;
        while (true) {
            ClusterRouter.Answered<OffsetCommitResponse> answered;
            try {
                answered = client.answeredOffsetCommit(OffsetCommitMessages.request(groupId,
                        target.generationOrEpoch(), target.memberId(), groupInstanceId, offsets), client.apiTimeout());
            } catch (CohortException e) {
                throw ClusterRouter.afterUnansweredAttempt(e, unanswered);
            }
            if (unanswered == null) {
                unanswered = answered.unansweredAttempt();
            }
            try {
                OffsetCommitMessages.throwIfFailed(answered.response(), groupId);
                return;
            } catch (CohortException e) {
                Membership.CommitTarget retry = membership.retryCommitAfter(e.errorCode(), target, deadline);
                if (retry == null) {
                    RuntimeException failure = membership.onCommitFailed(e, target);
                    throw failure instanceof CohortException definite
                            ? ClusterRouter.afterUnansweredAttempt(definite, unanswered) : failure;
                }
                LOG.debug("group {}: commit with epoch {} answered {}; retrying with epoch {}", groupId,
                        target.generationOrEpoch(), e.errorCode(), retry.generationOrEpoch());
                target = retry;
            }
        }
    }

    /** Poll thread: auto-commits if it is on and due. */
    void maybeAutoCommit() {
        if (autoCommitInterval == null || System.nanoTime() < nextAutoCommitNanos) {
            return;
        }
        nextAutoCommitNanos = System.nanoTime() + autoCommitInterval.toNanos();
        commitPositionsQuietly("auto-commit");
    }

    /** If auto-commit is on: commits the positions of owned partitions, logging failures (as Kafka's auto-commit). */
    void autoCommitBeforeRevoke(String why) {
        if (autoCommitInterval != null) {
            commitPositionsQuietly(why);
        }
    }

    /** Commits the positions of owned partitions, logging rather than throwing failures (as Kafka's auto-commit). */
    void commitPositionsQuietly(String why) {
        Map<TopicPartition, OffsetAndMetadata> due = new TreeMap<>();
        Set<TopicPartition> mine = membership.owned;
        positions.forEach((tp, offset) -> {
            if (mine.contains(tp)) {
                due.put(tp, offset);
            }
        });
        if (due.isEmpty() || membership.commitGeneration() < 0 || membership.refusesCommitsWhileRebalancing()) {
            return; // committed after the rebalance: at the next interval, or before a revocation
        }
        try {
            // Not woken by GroupMember.wakeup, as Kafka's auto-commit and close are not.
            commitSync(due, false);
        } catch (CohortException e) {
            LOG.warn("group {}: {} of {} partitions failed: {}", groupId, why, due.size(), e.getMessage());
        }
    }

    /** Sends the commits already made, waiting at most {@code timeout}; no new ones are taken. */
    void shutdown(Duration timeout) {
        committer.shutdown();
        try {
            committer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
