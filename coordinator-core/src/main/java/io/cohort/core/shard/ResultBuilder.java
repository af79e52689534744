package io.cohort.core.shard;

import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.Response;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects what one command produces while a handler runs. It carries the command's leader time and
 * the config, so handlers never look elsewhere for either.
 */
final class ResultBuilder {
    final long nowMs;
    final GroupConfig config;
    private final List<CoordinatorRecord> records = new ArrayList<>();
    private final LinkedHashMap<ParkKey, Response> completions = new LinkedHashMap<>();
    private final List<TimerOp> timers = new ArrayList<>();
    private Result.Reply reply = new Result.Reply.None();

    ResultBuilder(long nowMs, GroupConfig config) {
        this.nowMs = nowMs;
        this.config = config;
    }

    void record(CoordinatorRecord record) {
        records.add(record);
    }

    /** Records the edited group if it differs from what the shard holds ({@code original} may be null). */
    void recordGroupIfChanged(ClassicGroup original, ClassicGroupEditor edited) {
        ClassicGroup value = edited.build();
        if (!value.equals(original)) {
            records.add(new CoordinatorRecord.GroupValue(value));
        }
    }

    void replyNow(Response response) {
        reply = new Result.Reply.Now(response);
    }

    void park(ParkKey key) {
        reply = new Result.Reply.Parked(key);
    }

    void complete(ParkKey key, Response response) {
        completions.put(key, response);
    }

    void schedule(String key, long deadlineMs, Command command) {
        timers.add(new TimerOp.Schedule(key, deadlineMs, command));
    }

    void cancel(String key) {
        timers.add(new TimerOp.Cancel(key));
    }

    /**
     * The result. A caller whose own parked call was completed within the same command gets that
     * answer directly, so adapters never see a completion for a call that is not parked yet.
     */
    Result build() {
        Result.Reply finalReply = reply;
        Map<ParkKey, Response> remaining = new LinkedHashMap<>(completions);
        if (reply instanceof Result.Reply.Parked parked && remaining.containsKey(parked.key())) {
            finalReply = new Result.Reply.Now(remaining.remove(parked.key()));
        }
        List<Result.Completion> completionList = new ArrayList<>();
        remaining.forEach((key, response) -> completionList.add(new Result.Completion(key, response)));
        return new Result(records, finalReply, completionList, timers);
    }
}
