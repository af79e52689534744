package io.cohort.server.rpc;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * KIP-848's subscribed_topic_regex, with Kafka's syntax (Google RE2J: linear time, no
 * backreferences, so a member cannot stall the coordinator with a pathological pattern). A regex
 * matches a topic name when it matches the whole name, as Kafka's coordinator does. Compiled
 * patterns are kept (a group's members share one regex); the cache is emptied when it grows past
 * {@link #MAX_CACHED}, which only costs recompiling.
 */
final class TopicRegexes {
    static final int MAX_CACHED = 10_000;

    private final ConcurrentHashMap<String, Pattern> compiled = new ConcurrentHashMap<>();

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

    /** The names {@code regex} matches, sorted. */
    Set<String> matching(String regex, Collection<String> names) {
        Pattern pattern = pattern(regex);
        Set<String> matched = new TreeSet<>();
        for (String name : names) {
            if (pattern.matches(name)) {
                matched.add(name);
            }
        }
        return matched;
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
