package io.cohort.core.acl;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * An immutable, sorted set of ACLs. The shard replaces its set on every ACL record (copy on write):
 * ACL changes are rare and requests read the set concurrently with apply, so every reader sees one
 * whole applied version without a lock.
 */
public final class AclSet {
    public static final AclSet EMPTY = new AclSet(new TreeSet<>());

    private final NavigableSet<AclBinding> bindings;

    private AclSet(NavigableSet<AclBinding> bindings) {
        this.bindings = Collections.unmodifiableNavigableSet(bindings);
    }

    public static AclSet of(Collection<AclBinding> bindings) {
        return new AclSet(new TreeSet<>(bindings));
    }

    public AclSet with(AclBinding binding) {
        TreeSet<AclBinding> next = new TreeSet<>(bindings);
        next.add(binding);
        return new AclSet(next);
    }

    public AclSet without(AclBinding binding) {
        TreeSet<AclBinding> next = new TreeSet<>(bindings);
        next.remove(binding);
        return new AclSet(next);
    }

    public boolean contains(AclBinding binding) {
        return bindings.contains(binding);
    }

    /** The ACLs {@code filter} selects, sorted. */
    public List<AclBinding> matching(AclBindingFilter filter) {
        List<AclBinding> matched = new ArrayList<>();
        for (AclBinding binding : bindings) {
            if (filter.matches(binding)) {
                matched.add(binding);
            }
        }
        return matched;
    }

    /** Every ACL, sorted. */
    public NavigableSet<AclBinding> bindings() {
        return bindings;
    }

    public int size() {
        return bindings.size();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AclSet set && set.bindings.equals(bindings);
    }

    @Override
    public int hashCode() {
        return bindings.hashCode();
    }

    @Override
    public String toString() {
        return bindings.toString();
    }
}
