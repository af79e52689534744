package io.cohort.core.consumer;

import io.cohort.core.topic.TopicMetadata;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the leader of a group's partition found in its replica of the topic registry (partition
 * 0's state) just before proposing a consumer-group heartbeat, carried in the command so that every
 * replica computes the same subscription metadata and target assignment from the log alone.
 *
 * @param found              topics looked up by name and found
 * @param missing            topic names looked up and not in the registry
 * @param regexResolutions   for each regex looked up (the request's and the group's other members'),
 *                           the registry's topic names it matches, sorted
 * A topic name in neither {@code found} nor {@code missing} was not looked up: the group keeps the
 * metadata it stored for it. A regex not in {@code regexResolutions} keeps its stored resolution.
 */
public record TopicLookup(SortedMap<String, TopicMetadata> found, SortedSet<String> missing,
                          SortedMap<String, SortedSet<String>> regexResolutions) {

    public static final TopicLookup NONE = new TopicLookup(new TreeMap<>(), new TreeSet<>(), new TreeMap<>());

    public TopicLookup {
        found = Collections.unmodifiableSortedMap(new TreeMap<>(found));
        missing = Collections.unmodifiableSortedSet(new TreeSet<>(missing));
        TreeMap<String, SortedSet<String>> regexes = new TreeMap<>();
        regexResolutions.forEach((regex, names) ->
                regexes.put(Objects.requireNonNull(regex), Collections.unmodifiableSortedSet(new TreeSet<>(names))));
        regexResolutions = Collections.unmodifiableSortedMap(regexes);
        for (Map.Entry<String, TopicMetadata> e : found.entrySet()) {
            if (!e.getKey().equals(e.getValue().name())) {
                throw new IllegalArgumentException("found: key " + e.getKey() + " names topic " + e.getValue().name());
            }
        }
    }

    /** Whether {@code name} was looked up (found or missing). */
    public boolean lookedUp(String name) {
        return found.containsKey(name) || missing.contains(name);
    }

    /** A lookup of exactly these names against a registry given as a name-to-metadata map. */
    public static TopicLookup of(Set<String> names, Map<String, TopicMetadata> registry,
                                 Map<String, ? extends Set<String>> regexResolutions) {
        TreeMap<String, TopicMetadata> found = new TreeMap<>();
        TreeSet<String> missing = new TreeSet<>();
        for (String name : names) {
            TopicMetadata topic = registry.get(name);
            if (topic == null) {
                missing.add(name);
            } else {
                found.put(name, topic);
            }
        }
        TreeMap<String, SortedSet<String>> regexes = new TreeMap<>();
        regexResolutions.forEach((regex, matched) -> regexes.put(regex, new TreeSet<>(matched)));
        return new TopicLookup(found, missing, regexes);
    }
}
