package io.cohort.core.consumer.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/** Builders and invariant checks shared by the assignor tests. */
final class AssignorFixtures {
    static final UUID T1 = new UUID(0, 1);
    static final UUID T2 = new UUID(0, 2);
    static final UUID T3 = new UUID(0, 3);
    static final UUID T4 = new UUID(0, 4);
    /** A topic id no spec in these tests describes. */
    static final UUID UNKNOWN = new UUID(0, 99);

    static final String A = "A";
    static final String B = "B";
    static final String C = "C";
    static final String D = "D";

    private AssignorFixtures() {
    }

    static TopicMetadata topic(UUID id, int partitions) {
        return new TopicMetadata(id, "topic-" + id.getLeastSignificantBits(), partitions, List.of());
    }

    /** A topic whose partition i has its replicas on racks.get(i) (a comma-separated list). */
    static TopicMetadata rackedTopic(UUID id, String... racks) {
        List<List<String>> partitionRacks = new ArrayList<>();
        for (String r : racks) {
            partitionRacks.add(Arrays.asList(r.split(",")));
        }
        return new TopicMetadata(id, "topic-" + id.getLeastSignificantBits(), racks.length, partitionRacks);
    }

    static Map.Entry<UUID, List<Integer>> tp(UUID topic, Integer... partitions) {
        return Map.entry(topic, List.of(partitions));
    }

    @SafeVarargs
    static Assignment assignment(Map.Entry<UUID, List<Integer>>... topics) {
        Map<UUID, List<Integer>> map = new LinkedHashMap<>();
        for (Map.Entry<UUID, List<Integer>> e : topics) {
            map.put(e.getKey(), e.getValue());
        }
        return Assignment.of(map);
    }

    static Builder spec() {
        return new Builder();
    }

    /** A spec builder; members and topics kept in insertion order until build(). */
    static final class Builder {
        private final Map<String, AssignmentSpec.MemberSpec> members = new LinkedHashMap<>();
        private final Map<UUID, TopicMetadata> topics = new LinkedHashMap<>();

        Builder topics(TopicMetadata... metadata) {
            for (TopicMetadata t : metadata) {
                topics.put(t.topicId(), t);
            }
            return this;
        }

        Builder member(String id, Set<UUID> subscriptions) {
            return member(id, null, subscriptions, Assignment.EMPTY);
        }

        Builder member(String id, Set<UUID> subscriptions, Assignment current) {
            return member(id, null, subscriptions, current);
        }

        Builder member(String id, String rack, Set<UUID> subscriptions, Assignment current) {
            members.put(id, new AssignmentSpec.MemberSpec(rack, new TreeSet<>(subscriptions), current));
            return this;
        }

        AssignmentSpec build() {
            return new AssignmentSpec(new TreeMap<>(members), new TreeMap<>(topics));
        }
    }

    /** The same spec with every member's current target replaced by {@code result}'s. */
    static AssignmentSpec withCurrentTargets(AssignmentSpec spec, GroupAssignment result) {
        TreeMap<String, AssignmentSpec.MemberSpec> members = new TreeMap<>();
        spec.members().forEach((id, m) -> members.put(id, new AssignmentSpec.MemberSpec(m.rackId(),
                m.subscribedTopicIds(), result.members().getOrDefault(id, Assignment.EMPTY))));
        return new AssignmentSpec(members, spec.topics());
    }

    /**
     * The invariants of every assignor's output: one entry per member; only partitions that exist
     * of topics the member subscribes to; every partition of a subscribed topic exactly once.
     */
    static void assertValid(AssignmentSpec spec, GroupAssignment result) {
        assertThat(result.members().keySet()).isEqualTo(spec.members().keySet());
        Map<UUID, int[]> times = new TreeMap<>();
        spec.members().forEach((id, member) -> {
            for (UUID topic : member.subscribedTopicIds()) {
                TopicMetadata metadata = spec.topics().get(topic);
                if (metadata != null) {
                    times.computeIfAbsent(topic, t -> new int[metadata.partitionCount()]);
                }
            }
        });
        result.members().forEach((id, assignment) -> assignment.partitions().forEach((topic, partitions) -> {
            assertThat(spec.members().get(id).subscribedTopicIds()).as("%s subscribes to %s", id, topic)
                    .contains(topic);
            int[] count = times.get(topic);
            assertThat(count).as("topic %s exists", topic).isNotNull();
            for (int p : partitions) {
                assertThat(p).isBetween(0, count.length - 1);
                count[p]++;
            }
        }));
        times.forEach((topic, count) -> {
            for (int p = 0; p < count.length; p++) {
                assertThat(count[p]).as("times %s-%d is assigned", topic, p).isEqualTo(1);
            }
        });
    }

    static SortedMap<String, Integer> loads(GroupAssignment result) {
        SortedMap<String, Integer> loads = new TreeMap<>();
        result.members().forEach((id, a) -> loads.put(id, a.size()));
        return loads;
    }

    /** Partitions previously owned by a member still in {@code after} that now have another owner. */
    static int movedPartitions(GroupAssignment before, GroupAssignment after) {
        int moved = 0;
        for (Map.Entry<String, Assignment> e : before.members().entrySet()) {
            Assignment now = after.members().get(e.getKey());
            if (now == null) {
                continue;
            }
            for (Map.Entry<UUID, SortedSet<Integer>> topic : e.getValue().partitions().entrySet()) {
                for (int p : topic.getValue()) {
                    if (!now.contains(topic.getKey(), p)) {
                        moved++;
                    }
                }
            }
        }
        return moved;
    }

    /**
     * The fewest partitions that members keeping their current ones ({@code currentCounts}) must give
     * up for a homogeneous balanced assignment of {@code total} partitions over {@code members}:
     * the largest holders get the P%M extra places.
     */
    static int minimumMovesForBalance(List<Integer> currentCounts, int members, int total) {
        List<Integer> sorted = new ArrayList<>(currentCounts);
        sorted.sort((a, b) -> Integer.compare(b, a));
        int minimum = total / members;
        int extra = total % members;
        int moves = 0;
        for (int rank = 0; rank < sorted.size(); rank++) {
            int quota = minimum + (rank < extra ? 1 : 0);
            moves += Math.max(0, sorted.get(rank) - quota);
        }
        return moves;
    }
}
