package io.cohort.core;

import java.util.Comparator;

/**
 * The group settings an operator may change while the cluster runs (ClusterAdmin AlterGroupConfig,
 * {@code cohort cluster config set}), as one value: group.min.session.timeout.ms,
 * group.max.session.timeout.ms, group.initial.rebalance.delay.ms, group.max.size and
 * offsets.retention.minutes (here in milliseconds). The other {@link GroupConfig} fields stay fixed at
 * creation.
 *
 * <p>A change is a {@code SetGroupConfig} command in every partition's log, so each partition's shard
 * applies it at the same point of its log on every replica. {@code version} orders the changes: a
 * shard keeps the greatest value in {@link #ORDER} (version first, then the values, so two changes
 * that picked the same version still end in the same value on every partition, whatever order their
 * commands reached the logs in). Version 0 is the initial value from cluster.properties.
 */
public record GroupSettings(long version, int minSessionTimeoutMs, int maxSessionTimeoutMs,
                            int initialRebalanceDelayMs, int maxGroupSize, long offsetsRetentionMs) {

    /** The version of the settings a cluster was created with. */
    public static final long INITIAL_VERSION = 0;

    /** Greater wins: version, then each value; a total order, so every partition converges. */
    public static final Comparator<GroupSettings> ORDER = Comparator.comparingLong(GroupSettings::version)
            .thenComparingInt(GroupSettings::minSessionTimeoutMs)
            .thenComparingInt(GroupSettings::maxSessionTimeoutMs)
            .thenComparingInt(GroupSettings::initialRebalanceDelayMs)
            .thenComparingInt(GroupSettings::maxGroupSize)
            .thenComparingLong(GroupSettings::offsetsRetentionMs);

    /** The changeable settings of {@code config}, at {@code version}. */
    public static GroupSettings of(GroupConfig config, long version) {
        return new GroupSettings(version, config.minSessionTimeoutMs(), config.maxSessionTimeoutMs(),
                config.initialRebalanceDelayMs(), config.maxGroupSize(), config.offsetsRetentionMs());
    }

    /** Why these settings cannot be applied, or null if they can (the bounds {@link GroupConfig} checks). */
    public String invalidReason() {
        if (version < 0) {
            return "version must be >= 0, got " + version;
        }
        if (minSessionTimeoutMs < 0) {
            return "group.min.session.timeout.ms must be >= 0, got " + minSessionTimeoutMs;
        }
        if (maxSessionTimeoutMs < minSessionTimeoutMs) {
            return "group.max.session.timeout.ms (" + maxSessionTimeoutMs
                    + ") must be >= group.min.session.timeout.ms (" + minSessionTimeoutMs + ")";
        }
        if (initialRebalanceDelayMs < 0) {
            return "group.initial.rebalance.delay.ms must be >= 0, got " + initialRebalanceDelayMs;
        }
        if (maxGroupSize < 1) {
            return "group.max.size must be >= 1, got " + maxGroupSize;
        }
        if (offsetsRetentionMs <= 0) {
            return "offsets.retention must be positive, got " + offsetsRetentionMs + " ms";
        }
        return null;
    }

    /** {@code base} with these settings; {@link IllegalArgumentException} if they are invalid. */
    public GroupConfig applyTo(GroupConfig base) {
        String invalid = invalidReason();
        if (invalid != null) {
            throw new IllegalArgumentException(invalid);
        }
        return base.withSessionTimeoutBounds(minSessionTimeoutMs, maxSessionTimeoutMs)
                .withInitialRebalanceDelayMs(initialRebalanceDelayMs)
                .withMaxGroupSize(maxGroupSize)
                .withOffsetsRetentionMs(offsetsRetentionMs);
    }

    /** True if these settings win over {@code other} (ORDER greater). */
    public boolean supersedes(GroupSettings other) {
        return ORDER.compare(this, other) > 0;
    }
}
