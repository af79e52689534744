package io.cohort.core.shard;

import io.cohort.core.acl.AclBinding;
import io.cohort.core.acl.AclBindingFilter;
import io.cohort.core.acl.AclSet;
import io.cohort.core.command.Command;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.core.response.AclChangeResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * CreateAcls and DeleteAcls: reads the applied ACL set, emits {@link CoordinatorRecord.AclValue} and
 * {@link CoordinatorRecord.AclTombstone} records. Bindings were validated by the front end; an
 * invalid one reaching the log (a bug) is skipped, not stored, so no replica ever holds it.
 */
final class AclHandler {
    private final Supplier<AclSet> acls;

    AclHandler(Supplier<AclSet> acls) {
        this.acls = acls;
    }

    void createAcls(Command.CreateAcls command, ResultBuilder result) {
        AclSet current = acls.get();
        Set<AclBinding> added = new HashSet<>();
        List<List<AclBinding>> changed = new ArrayList<>();
        for (AclBinding binding : command.bindings()) {
            if (binding.invalidReason() != null || current.contains(binding) || !added.add(binding)) {
                changed.add(List.of());
                continue;
            }
            result.record(new CoordinatorRecord.AclValue(binding));
            changed.add(List.of(binding));
        }
        result.replyNow(new AclChangeResponse(changed));
    }

    void deleteAcls(Command.DeleteAcls command, ResultBuilder result) {
        AclSet current = acls.get();
        Set<AclBinding> removed = new HashSet<>();
        List<List<AclBinding>> changed = new ArrayList<>();
        for (AclBindingFilter filter : command.filters()) {
            List<AclBinding> removedByFilter = new ArrayList<>();
            for (AclBinding binding : current.matching(filter)) {
                if (removed.add(binding)) {
                    result.record(new CoordinatorRecord.AclTombstone(binding));
                    removedByFilter.add(binding);
                }
            }
            changed.add(removedByFilter);
        }
        result.replyNow(new AclChangeResponse(changed));
    }
}
