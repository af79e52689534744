package io.cohort.server.rpc;

import io.cohort.core.ErrorCode;
import io.cohort.core.response.JoinGroupResponse;
import io.cohort.core.response.Response;
import io.cohort.core.response.SyncGroupResponse;
import io.cohort.core.shard.ParkKey;
import io.cohort.core.shard.Result;
import io.cohort.raft.PartitionListener;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's parked long-poll calls: JoinGroup and SyncGroup calls that wait, under their
 * {@link ParkKey}, for a later command to answer them through a {@link Result.Completion}.
 *
 * <p><b>No completion is missed.</b> The proposer completes a submit future on the apply thread
 * before the same entry's results reach {@link #onApplied}, and later entries come later on that
 * thread; so a call registered from a synchronous continuation of its submit future is always in
 * the map before any answer addressed to it. One case escapes that argument: the future may already
 * be complete when the continuation is attached (the gRPC thread was descheduled between
 * {@code submit} and {@code whenComplete}), and then the continuation runs late, on the gRPC thread.
 * To close it, a {@link Ticket} taken before submitting collects every result applied on the
 * partition until the call is parked; {@link #park} looks for the call's own result among them and,
 * if it is there, takes the first answer for the key from the results applied after it.
 *
 * <p><b>Leadership.</b> On step-down every parked call of the partition fails with NOT_COORDINATOR,
 * and so does any call parked later by a submission that began before the step-down. Several calls
 * under one key (a client that resent) all get the answer. A call whose client cancels is dropped.
 *
 * <p><b>Threads.</b> {@link #onApplied} and {@link #onStepDown} run on Ratis threads: they only move
 * calls between maps under a per-partition lock and hand the answers to a responder executor, which
 * maps and sends them, so the apply thread never waits for serialization or the network.
 */
public final class ParkedCalls implements PartitionListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ParkedCalls.class);

    private final Executor responder;
    private final ExecutorService ownedResponder;
    private final ConcurrentHashMap<Integer, PartitionCalls> partitions = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** With its own responder threads (daemon), stopped by {@link #close()}. */
    public ParkedCalls() {
        this(newResponder());
    }

    private ParkedCalls(ExecutorService responder) {
        this.responder = responder;
        this.ownedResponder = responder;
    }

    /** With the given responder (tests use {@code Runnable::run} for synchronous delivery). */
    ParkedCalls(Executor responder) {
        this.responder = responder;
        this.ownedResponder = null;
    }

    private static ExecutorService newResponder() {
        AtomicInteger threads = new AtomicInteger();
        int count = Math.max(2, Runtime.getRuntime().availableProcessors());
        return Executors.newFixedThreadPool(count, r -> {
            Thread thread = new Thread(r, "cohort-responder-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** A parked call: the gRPC call and how to turn a core answer or an error into its response. */
    static final class ParkedCall<T> {
        private final RpcCall<T> call;
        private final Function<Response, T> onAnswer;
        private final BiFunction<ErrorCode, String, T> onFailure;

        ParkedCall(RpcCall<T> call, Function<Response, T> onAnswer, BiFunction<ErrorCode, String, T> onFailure) {
            this.call = call;
            this.onAnswer = onAnswer;
            this.onFailure = onFailure;
        }

        RpcCall<T> call() {
            return call;
        }

        void answer(Response response) {
            try {
                call.respond(onAnswer.apply(response), errorOf(response).name());
            } catch (RuntimeException e) {
                LOG.error("{}: could not map the answer {}", call.rpc(), response, e);
                call.fail(Status.INTERNAL.withDescription("could not map the answer: " + e));
            }
        }

        void fail(ErrorCode error, String message) {
            try {
                call.respond(onFailure.apply(error, message), error.name());
            } catch (RuntimeException e) {
                LOG.error("{}: could not map the error {}", call.rpc(), error, e);
                call.fail(Status.INTERNAL.withDescription("could not map the error: " + e));
            }
        }

        private static ErrorCode errorOf(Response response) {
            if (response instanceof JoinGroupResponse join) {
                return join.error();
            }
            if (response instanceof SyncGroupResponse sync) {
                return sync.error();
            }
            return ErrorCode.NONE;
        }
    }

    /**
     * Taken before a command that may park is submitted; collects what the partition applies until
     * {@link #park} or {@link #abandon} settles it.
     */
    static final class Ticket {
        private final int partition;
        private final List<List<Result>> applied = new ArrayList<>();
        private boolean steppedDown;

        private Ticket(int partition) {
            this.partition = partition;
        }
    }

    /** One partition's calls and tickets, guarded by the object's monitor. */
    private static final class PartitionCalls {
        final Map<ParkKey, List<ParkedCall<?>>> parked = new HashMap<>();
        final Set<Ticket> tickets = new HashSet<>();
    }

    private PartitionCalls partition(int partition) {
        return partitions.computeIfAbsent(partition, p -> new PartitionCalls());
    }

    /** Call before submitting a command whose reply may be {@link Result.Reply.Parked}. */
    Ticket expect(int partition) {
        Ticket ticket = new Ticket(partition);
        PartitionCalls calls = partition(partition);
        synchronized (calls) {
            calls.tickets.add(ticket);
        }
        return ticket;
    }

    /** The submission failed or was answered at once: stop collecting for it. */
    void abandon(Ticket ticket) {
        PartitionCalls calls = partition(ticket.partition);
        synchronized (calls) {
            calls.tickets.remove(ticket);
            ticket.applied.clear();
        }
    }

    /**
     * Parks {@code call} under {@code key}, or answers it at once if its answer was applied already
     * (see the class comment) or leadership was lost since {@code ticket} was taken.
     *
     * @param own the result whose reply parked the call (the submit future's value)
     */
    void park(Ticket ticket, ParkKey key, Result own, ParkedCall<?> call) {
        PartitionCalls calls = partition(ticket.partition);
        Response missed = null;
        ErrorCode refusal = null;
        boolean registered = false;
        synchronized (calls) {
            calls.tickets.remove(ticket);
            if (closed) {
                refusal = ErrorCode.COORDINATOR_NOT_AVAILABLE;
            } else if (ticket.steppedDown) {
                refusal = ErrorCode.NOT_COORDINATOR;
            } else {
                missed = firstAnswerAfter(ticket.applied, own, key);
                if (missed == null && !call.call().isFinished()) {
                    calls.parked.computeIfAbsent(key, k -> new ArrayList<>()).add(call);
                    registered = true;
                }
            }
            ticket.applied.clear();
        }
        if (registered) {
            call.call().whenCancelled(() -> drop(ticket.partition, key, call));
        } else if (missed != null) {
            Response answer = missed;
            deliver(() -> call.answer(answer));
        } else if (refusal != null) {
            failLater(List.of(call), refusal, refusal == ErrorCode.NOT_COORDINATOR ? STEPPED_DOWN : SHUTTING_DOWN);
        }
    }

    /** The first answer for {@code key} in results applied after {@code own}, or null. */
    private static Response firstAnswerAfter(List<List<Result>> applied, Result own, ParkKey key) {
        boolean afterOwn = false;
        for (List<Result> entry : applied) {
            for (Result result : entry) {
                if (afterOwn) {
                    for (Result.Completion completion : result.completions()) {
                        if (completion.key().equals(key)) {
                            return completion.response();
                        }
                    }
                }
                afterOwn |= result == own;
            }
        }
        return null;
    }

    private void drop(int partition, ParkKey key, ParkedCall<?> call) {
        PartitionCalls calls = partition(partition);
        synchronized (calls) {
            List<ParkedCall<?>> waiting = calls.parked.get(key);
            if (waiting != null && waiting.remove(call) && waiting.isEmpty()) {
                calls.parked.remove(key);
            }
        }
    }

    @Override
    public void onApplied(int partition, List<Result> results) {
        PartitionCalls calls = partitions.get(partition);
        if (calls == null) {
            return;
        }
        List<Runnable> answers = new ArrayList<>();
        synchronized (calls) {
            for (Ticket ticket : calls.tickets) {
                ticket.applied.add(results);
            }
            if (calls.parked.isEmpty()) {
                return;
            }
            for (Result result : results) {
                for (Result.Completion completion : result.completions()) {
                    List<ParkedCall<?>> waiting = calls.parked.remove(completion.key());
                    if (waiting != null) {
                        for (ParkedCall<?> call : waiting) {
                            answers.add(() -> call.answer(completion.response()));
                        }
                    }
                }
            }
        }
        answers.forEach(this::deliver);
    }

    private static final String STEPPED_DOWN = "leadership of the group's partition moved while the call was waiting; "
            + "find the coordinator again and resend with the same member id";
    private static final String SHUTTING_DOWN = "the node is shutting down; find the coordinator again and resend "
            + "with the same member id";

    @Override
    public void onStepDown(int partition) {
        PartitionCalls calls = partitions.get(partition);
        if (calls == null) {
            return;
        }
        List<ParkedCall<?>> failed;
        synchronized (calls) {
            for (Ticket ticket : calls.tickets) {
                ticket.steppedDown = true;
            }
            failed = takeAll(calls);
        }
        if (!failed.isEmpty()) {
            LOG.info("partition {}: failing {} parked calls with NOT_COORDINATOR after step-down", partition,
                    failed.size());
        }
        failLater(failed, ErrorCode.NOT_COORDINATOR, STEPPED_DOWN);
    }

    private static List<ParkedCall<?>> takeAll(PartitionCalls calls) {
        List<ParkedCall<?>> all = new ArrayList<>();
        calls.parked.values().forEach(all::addAll);
        calls.parked.clear();
        return all;
    }

    private void failLater(List<ParkedCall<?>> calls, ErrorCode error, String message) {
        for (ParkedCall<?> call : calls) {
            deliver(() -> call.fail(error, message));
        }
    }

    /** Runs {@code answer} on the responder; inline once the responder is stopped. */
    void deliver(Runnable answer) {
        try {
            responder.execute(answer);
        } catch (RejectedExecutionException e) {
            answer.run();
        }
    }

    /** Parked calls of every partition (for tests and metrics). */
    public int size() {
        int size = 0;
        for (Integer partition : partitions.keySet()) {
            size += size(partition);
        }
        return size;
    }

    /** Parked calls of {@code partition}. */
    public int size(int partition) {
        PartitionCalls calls = partitions.get(partition);
        if (calls == null) {
            return 0;
        }
        synchronized (calls) {
            return calls.parked.values().stream().mapToInt(List::size).sum();
        }
    }

    /**
     * Fails every parked call with COORDINATOR_NOT_AVAILABLE (the node is stopping: clients re-find
     * the coordinator and resend), refuses to park more, and stops the responder once the answers
     * already handed to it are sent.
     */
    @Override
    public void close() {
        closed = true;
        List<ParkedCall<?>> failed = new ArrayList<>();
        for (PartitionCalls calls : partitions.values()) {
            synchronized (calls) {
                failed.addAll(takeAll(calls));
            }
        }
        failLater(failed, ErrorCode.COORDINATOR_NOT_AVAILABLE, SHUTTING_DOWN);
        if (ownedResponder != null) {
            ownedResponder.shutdown();
        }
    }
}
