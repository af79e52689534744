package io.cohort.core.shard;

import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.Response;
import java.util.List;
import java.util.Objects;

/**
 * What handling one command produced, without any state having changed yet: the records to replay,
 * the answer for the caller, answers for other parked calls, and timer requests for the leader.
 *
 * @param records     replayed, in order, by the shard right after {@code handle} returns
 * @param reply       the caller's answer: now, parked under a key, or none (timer commands)
 * @param completions answers for parked calls of other members (or of the caller, before it parked)
 * @param timers      timer operations, applied by the leader only
 */
public record Result(List<CoordinatorRecord> records, Reply reply, List<Completion> completions,
                     List<TimerOp> timers) {
    public Result {
        records = List.copyOf(records);
        Objects.requireNonNull(reply, "reply");
        completions = List.copyOf(completions);
        timers = List.copyOf(timers);
    }

    /** The caller's answer. */
    public sealed interface Reply {
        /** Answered at once. */
        record Now(Response response) implements Reply {
            public Now {
                Objects.requireNonNull(response, "response");
            }
        }

        /** Parked: a later command will complete it through a {@link Completion} with this key. */
        record Parked(ParkKey key) implements Reply {
            public Parked {
                Objects.requireNonNull(key, "key");
            }
        }

        /** No caller (a timer command). */
        record None() implements Reply {
        }
    }

    /** An answer addressed to a parked call. */
    public record Completion(ParkKey key, Response response) {
        public Completion {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(response, "response");
        }
    }

    /** The immediate response, or null when the reply is not {@link Reply.Now}. */
    public Response immediateResponse() {
        return reply instanceof Reply.Now now ? now.response() : null;
    }
}
