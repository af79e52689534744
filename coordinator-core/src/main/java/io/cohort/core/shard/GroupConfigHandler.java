package io.cohort.core.shard;

import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.GroupSettings;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroup;
import io.cohort.core.group.ClassicGroupEditor;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.GroupConfigResponse;
import java.util.Map;
import java.util.TreeMap;

/**
 * SetGroupConfig: replaces the partition's online group settings when the command's supersede them,
 * and rebalances the groups the new group.max.size leaves over capacity.
 *
 * <p>Kafka has no online change of group.max.size for classic groups: a new value takes effect when
 * a coordinator loads the partition, and its onLoaded puts every classic group with more members
 * than the limit into PreparingRebalance ("Freshly-loaded group ... is over capacity ... Rebalancing
 * in order to give a chance for consumers to commit offsets"). Applying a new value here is that
 * load, so it does the same, in log order on every replica. The members then rejoin; the join
 * admission (JoinGroupHandler, KAFKA-9885) accepts the first max.size rejoiners and refuses the
 * others with GROUP_MAX_SIZE_REACHED, removing them; members that do not rejoin are removed when
 * the join phase completes. A group already in PreparingRebalance needs nothing: the same admission
 * applies to its running join phase. Static members that do not rejoin are kept, as Kafka keeps them.
 */
final class GroupConfigHandler {
    private final Map<String, ClassicGroup> groups;

    GroupConfigHandler(Map<String, ClassicGroup> groups) {
        this.groups = groups;
    }

    void set(Command.SetGroupConfig command, GroupSettings current, GroupConfig initial, ResultBuilder result) {
        GroupSettings next = command.settings();
        String invalid = next.invalidReason();
        if (invalid != null) {
            result.replyNow(new GroupConfigResponse(ErrorCode.INVALID_REQUEST, invalid, false, current, 0));
            return;
        }
        if (next.equals(current)) {
            // The partition already holds exactly these settings: an earlier proposal of the same
            // change, whose answer its proposer lost and so proposed again. Nothing to write, but
            // the change is in force, which is what the proposer asks.
            result.replyNow(new GroupConfigResponse(ErrorCode.NONE, "", true, current, 0));
            return;
        }
        if (!next.supersedes(current)) {
            result.replyNow(new GroupConfigResponse(ErrorCode.NONE, "", false, current, 0));
            return;
        }
        result.record(new CoordinatorRecord.GroupConfigValue(next));
        int maxGroupSize = next.applyTo(initial).maxGroupSize();
        int rebalanced = 0;
        for (ClassicGroup group : new TreeMap<>(groups).values()) {
            boolean settled = group.isInState(ClassicGroupState.STABLE)
                    || group.isInState(ClassicGroupState.COMPLETING_REBALANCE);
            if (settled && group.members().size() > maxGroupSize) {
                ClassicGroupEditor editor = group.edit();
                new Rebalancer(editor, result).prepareRebalance();
                result.recordGroupIfChanged(group, editor);
                rebalanced++;
            }
        }
        result.replyNow(new GroupConfigResponse(ErrorCode.NONE, "", true, next, rebalanced));
    }
}
