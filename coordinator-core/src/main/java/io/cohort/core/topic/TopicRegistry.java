package io.cohort.core.topic;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The cluster's topics as partition 0's shard holds them: an immutable value, sorted by name, with a
 * lookup by name and by id. The shard replaces its registry on every topic record (copy on write):
 * topic changes are rare and other threads (the consumer-group front end of every partition, which
 * copies subscribed topics into its heartbeat commands, and ListTopics) read it beside apply, so
 * every reader sees one whole applied version without a lock.
 */
public final class TopicRegistry {
    public static final TopicRegistry EMPTY = new TopicRegistry(new TreeMap<>(), new HashMap<>());

    private final NavigableMap<String, TopicMetadata> byName;
    private final Map<UUID, TopicMetadata> byId;

    private TopicRegistry(TreeMap<String, TopicMetadata> byName, HashMap<UUID, TopicMetadata> byId) {
        this.byName = Collections.unmodifiableNavigableMap(byName);
        this.byId = Collections.unmodifiableMap(byId);
    }

    /** This registry with {@code topic} added, or replacing the topic of the same name. */
    public TopicRegistry with(TopicMetadata topic) {
        TreeMap<String, TopicMetadata> names = new TreeMap<>(byName);
        HashMap<UUID, TopicMetadata> ids = new HashMap<>(byId);
        TopicMetadata old = names.put(topic.name(), topic);
        if (old != null) {
            ids.remove(old.topicId());
        }
        TopicMetadata sameId = ids.put(topic.topicId(), topic);
        if (sameId != null) {
            // Two names under one id would make lookups by id ambiguous: a corrupt record, never a
            // command's doing (the handler refuses a used id).
            throw new IllegalStateException("Topic id " + topic.topicId() + " of " + topic.name()
                    + " is already the id of " + sameId.name());
        }
        return new TopicRegistry(names, ids);
    }

    /** This registry without the topic named {@code name} (unchanged if there is none). */
    public TopicRegistry without(String name) {
        TopicMetadata old = byName.get(name);
        if (old == null) {
            return this;
        }
        TreeMap<String, TopicMetadata> names = new TreeMap<>(byName);
        HashMap<UUID, TopicMetadata> ids = new HashMap<>(byId);
        names.remove(name);
        ids.remove(old.topicId());
        return new TopicRegistry(names, ids);
    }

    /** The topic named {@code name}, or null. */
    public TopicMetadata get(String name) {
        return byName.get(name);
    }

    /** The topic with id {@code topicId}, or null. */
    public TopicMetadata get(UUID topicId) {
        return byId.get(topicId);
    }

    public boolean contains(String name) {
        return byName.containsKey(name);
    }

    /** Every topic by name, sorted by name (unmodifiable); the map {@code TopicLookup.of} takes. */
    public NavigableMap<String, TopicMetadata> byName() {
        return byName;
    }

    public int size() {
        return byName.size();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TopicRegistry registry && registry.byName.equals(byName);
    }

    @Override
    public int hashCode() {
        return byName.hashCode();
    }

    @Override
    public String toString() {
        return byName.values().toString();
    }
}
