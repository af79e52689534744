package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Regex resolution against versions of the topic registry: whole-name matches, kept per registry
 * version and never answered from an older one.
 */
class TopicRegexesTest {

    /** A registry version: an unmodifiable map by name, as TopicRegistry.byName() gives. */
    private static NavigableMap<String, Object> registry(String... names) {
        TreeMap<String, Object> byName = new TreeMap<>();
        for (String name : names) {
            byName.put(name, name);
        }
        return Collections.unmodifiableNavigableMap(byName);
    }

    @Test
    void testARegexMatchesWholeNamesOnly() {
        TopicRegexes regexes = new TopicRegexes();
        Map<String, Object> topics = registry("orders", "orders-eu", "orders-us", "payments", "x-orders-eu");

        assertThat(regexes.matching("orders-.*", topics)).containsExactly("orders-eu", "orders-us");
        assertThat(regexes.matching("orders", topics)).containsExactly("orders");
        assertThat(regexes.matching("nothing-.*", topics)).isEmpty();
    }

    @Test
    void testTheMatchesOfOneRegistryVersionAreKeptAndANewVersionIsMatchedAgain() {
        TopicRegexes regexes = new TopicRegexes();
        Map<String, Object> v1 = registry("orders-eu", "payments");
        Map<String, Object> v2 = registry("orders-eu", "orders-us", "payments");

        var first = regexes.matching("orders-.*", v1);
        assertThat(regexes.matching("orders-.*", v1)).isSameAs(first);
        // A topic created: the next heartbeat must see it, not the matches kept for v1.
        assertThat(regexes.matching("orders-.*", v2)).containsExactly("orders-eu", "orders-us");
        // A topic deleted, or a thread still holding the older version: matched against what it is given.
        assertThat(regexes.matching("orders-.*", v1)).containsExactly("orders-eu");
        // An equal registry that is another object is matched again, with the same answer.
        assertThat(regexes.matching("orders-.*", registry("orders-eu", "payments"))).containsExactly("orders-eu");
    }

    @Test
    void testMoreRegexesThanAreKeptStillMatchExactly() {
        TopicRegexes regexes = new TopicRegexes();
        Map<String, Object> topics = registry("t-0", "t-1", "t-2", "t-3", "t-4", "t-5", "t-6", "t-7", "t-8", "t-9");
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < TopicRegexes.MAX_RESOLVED + 10; i++) {
                String regex = "t-" + (i % 10) + "|q-" + i;
                assertThat(regexes.matching(regex, topics)).as(regex).containsExactly("t-" + (i % 10));
            }
        }
    }

    @Test
    void testMatchesOverTheNameBoundAreNotKeptAndSmallerOnesStillAre() {
        TopicRegexes regexes = new TopicRegexes();
        TreeMap<String, Object> byName = new TreeMap<>();
        for (int i = 0; i <= TopicRegexes.MAX_RESOLVED_NAMES; i++) {
            byName.put(String.format("t-%07d", i), i);
        }
        Map<String, Object> topics = Collections.unmodifiableMap(byName);

        var one = regexes.matching("t-0000042", topics);
        var everything = regexes.matching("t-.*", topics);
        assertThat(everything).hasSize(TopicRegexes.MAX_RESOLVED_NAMES + 1);
        var again = regexes.matching("t-.*", topics);
        assertThat(again).isEqualTo(everything).isNotSameAs(everything);
        assertThat(one).containsExactly("t-0000042");
        assertThat(regexes.matching("t-0000042", topics)).as("kept before and after the one over the bound")
                .isSameAs(one);
    }

    @Test
    void testAnInvalidRegexIsNamedAndTheEmptyRegexIsValid() {
        TopicRegexes regexes = new TopicRegexes();
        assertThat(regexes.invalidReason("")).isNull();
        assertThat(regexes.invalidReason("orders-.*")).isNull();
        assertThat(regexes.invalidReason("orders-(")).contains("orders-(").contains("not a valid regular expression");
    }
}
