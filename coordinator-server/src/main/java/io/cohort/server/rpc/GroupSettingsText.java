package io.cohort.server.rpc;

import io.cohort.api.v1.GroupConfigEntry;
import io.cohort.core.GroupSettings;
import io.cohort.server.ServerConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The online group settings as the API spells them: cluster.properties keys and decimal values
 * (offsets.retention.minutes in minutes, the shard keeps milliseconds). Parsing throws
 * {@link IllegalArgumentException} with a message fit for gRPC INVALID_ARGUMENT.
 */
final class GroupSettingsText {
    /** Every changeable setting, in the order they are listed. */
    static final List<String> NAMES = List.of(ServerConfig.MIN_SESSION_TIMEOUT_MS, ServerConfig.MAX_SESSION_TIMEOUT_MS,
            ServerConfig.INITIAL_REBALANCE_DELAY_MS, ServerConfig.GROUP_MAX_SIZE, ServerConfig.OFFSETS_RETENTION_MINUTES);
    private static final long MS_PER_MINUTE = 60_000L;

    private GroupSettingsText() {
    }

    static List<GroupConfigEntry> entries(GroupSettings settings) {
        List<GroupConfigEntry> entries = new ArrayList<>();
        entries.add(entry(ServerConfig.MIN_SESSION_TIMEOUT_MS, settings.minSessionTimeoutMs()));
        entries.add(entry(ServerConfig.MAX_SESSION_TIMEOUT_MS, settings.maxSessionTimeoutMs()));
        entries.add(entry(ServerConfig.INITIAL_REBALANCE_DELAY_MS, settings.initialRebalanceDelayMs()));
        entries.add(entry(ServerConfig.GROUP_MAX_SIZE, settings.maxGroupSize()));
        entries.add(entry(ServerConfig.OFFSETS_RETENTION_MINUTES, settings.offsetsRetentionMs() / MS_PER_MINUTE));
        return entries;
    }

    private static GroupConfigEntry entry(String name, long value) {
        return GroupConfigEntry.newBuilder().setName(name).setValue(Long.toString(value)).build();
    }

    /** The entries by name; unknown names, repeated names and malformed numbers throw. */
    static Map<String, Long> parse(List<GroupConfigEntry> entries) {
        Map<String, Long> values = new LinkedHashMap<>();
        for (GroupConfigEntry entry : entries) {
            String name = entry.getName();
            if (!NAMES.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is not a group setting that can be changed online;"
                        + " these can: " + String.join(", ", NAMES));
            }
            long value;
            try {
                value = Long.parseLong(entry.getValue().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + ": '" + entry.getValue() + "' is not a whole number");
            }
            long min = name.equals(ServerConfig.GROUP_MAX_SIZE) || name.equals(ServerConfig.OFFSETS_RETENTION_MINUTES)
                    ? 1 : 0;
            long max = name.equals(ServerConfig.OFFSETS_RETENTION_MINUTES) ? Long.MAX_VALUE / MS_PER_MINUTE
                    : Integer.MAX_VALUE;
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
            }
            if (values.put(name, value) != null) {
                throw new IllegalArgumentException(name + " is given more than once");
            }
        }
        return values;
    }

    /** {@code base} with {@code changes} applied, at {@code version}; throws if the result is inconsistent. */
    static GroupSettings merge(GroupSettings base, Map<String, Long> changes, long version) {
        GroupSettings merged = new GroupSettings(version,
                changes.getOrDefault(ServerConfig.MIN_SESSION_TIMEOUT_MS, (long) base.minSessionTimeoutMs()).intValue(),
                changes.getOrDefault(ServerConfig.MAX_SESSION_TIMEOUT_MS, (long) base.maxSessionTimeoutMs()).intValue(),
                changes.getOrDefault(ServerConfig.INITIAL_REBALANCE_DELAY_MS, (long) base.initialRebalanceDelayMs())
                        .intValue(),
                changes.getOrDefault(ServerConfig.GROUP_MAX_SIZE, (long) base.maxGroupSize()).intValue(),
                changes.containsKey(ServerConfig.OFFSETS_RETENTION_MINUTES)
                        ? changes.get(ServerConfig.OFFSETS_RETENTION_MINUTES) * MS_PER_MINUTE : base.offsetsRetentionMs());
        String invalid = merged.invalidReason();
        if (invalid != null) {
            throw new IllegalArgumentException(invalid);
        }
        return merged;
    }

    /** Settings from a complete list of entries (a forwarded change). */
    static GroupSettings complete(List<GroupConfigEntry> entries, long version) {
        Map<String, Long> values = parse(entries);
        if (!values.keySet().containsAll(NAMES)) {
            throw new IllegalArgumentException("a forwarded change must list every setting: " + NAMES);
        }
        return merge(new GroupSettings(version, 0, 0, 0, 1, 1), values, version);
    }
}
