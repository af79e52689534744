package io.cohort.server.rpc;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Collections;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * KIP-848's subscribed_topic_regex, with Kafka's syntax (Google RE2J: linear time, no
 * backreferences, so a member cannot stall the coordinator with a pathological pattern). A regex
 * matches a topic name when it matches the whole name, as Kafka's coordinator does. Compiled
 * patterns are kept (a group's members share one regex); the cache is emptied when it grows past
 * {@link #MAX_CACHED}, which only costs recompiling.
 *
 * <p>The names a regex matches are kept too, for one version of the topic registry: every
 * heartbeat of a member of a group with a regex resolves the group's regexes (on a client event
 * loop, rpc.consumer.heartbeat.inline), and matching against every topic of a large registry costs
 * a pattern match per topic, while the registry changes only when a topic is created or deleted.
 * The registry is copy on write, so its map by name is one object per version: the cache is keyed
 * by that object's identity and starts empty when another object is asked about. A result is thus
 * exactly what matching would give, never one of an older registry.
 */
final class TopicRegexes {
    static final int MAX_CACHED = 10_000;
    /**
     * Most regexes whose matches are kept for one registry version, and most topic names over all
     * their matches (a TreeSet entry is ~40 bytes: 200,000 names ~8 MB, whatever the regexes
     * match): past either the cache starts empty again, which only costs matching again.
     */
    static final int MAX_RESOLVED = 1_024;
    static final int MAX_RESOLVED_NAMES = 200_000;

    private final ConcurrentHashMap<String, Pattern> compiled = new ConcurrentHashMap<>();
    private volatile Resolved resolved = new Resolved(Map.of());

    /** The matches of each regex asked about against {@code topics}, one registry version. */
    private record Resolved(Map<String, ?> topics, ConcurrentHashMap<String, SortedSet<String>> matches,
                            AtomicInteger names) {
        Resolved(Map<String, ?> topics) {
            this(topics, new ConcurrentHashMap<>(), new AtomicInteger());
        }

        /** Whether {@code matched} can be kept within the bounds; counts its names if so. */
        boolean roomFor(SortedSet<String> matched) {
            if (matches.size() >= MAX_RESOLVED || names.get() + matched.size() > MAX_RESOLVED_NAMES) {
                return false;
            }
            names.addAndGet(matched.size()); // racing threads may overshoot by a result: a bound, not a count
            return true;
        }
    }

    /** Why {@code regex} is not valid RE2J, or null if it is (or is "", which removes a regex). */
    String invalidReason(String regex) {
        if (regex.isEmpty()) {
            return null;
        }
        try {
            pattern(regex);
            return null;
        } catch (PatternSyntaxException e) {
            return "SubscribedTopicRegex " + regex + " is not a valid regular expression: " + e.getDescription();
        }
    }

    /**
     * The names of {@code topicsByName} that {@code regex} matches, sorted and unmodifiable.
     *
     * @param topicsByName one version of the topic registry by name, never modified (a changed
     *                     registry is another map: the result is kept per map identity)
     */
    SortedSet<String> matching(String regex, Map<String, ?> topicsByName) {
        Resolved current = resolved;
        if (current.topics() != topicsByName) {
            // Another version (or, with threads racing over a change, an older one again: that only
            // costs matching once more).
            current = new Resolved(topicsByName);
            resolved = current;
        }
        SortedSet<String> kept = current.matches().get(regex);
        if (kept != null) {
            return kept;
        }
        Pattern pattern = pattern(regex);
        TreeSet<String> matched = new TreeSet<>();
        for (String name : topicsByName.keySet()) {
            if (pattern.matches(name)) {
                matched.add(name);
            }
        }
        SortedSet<String> result = Collections.unmodifiableSortedSet(matched);
        if (result.size() > MAX_RESOLVED_NAMES) {
            // More names than are ever kept: matched at every call, leaving the others' matches kept.
            return result;
        }
        if (!current.roomFor(result)) {
            current = new Resolved(topicsByName);
            resolved = current;
            current.roomFor(result);
        }
        current.matches().put(regex, result);
        return result;
    }

    private Pattern pattern(String regex) {
        Pattern pattern = compiled.get(regex);
        if (pattern == null) {
            pattern = Pattern.compile(regex);
            if (compiled.size() >= MAX_CACHED) {
                compiled.clear();
            }
            compiled.put(regex, pattern);
        }
        return pattern;
    }
}
