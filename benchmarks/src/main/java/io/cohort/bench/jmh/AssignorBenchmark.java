package io.cohort.bench.jmh;

import io.cohort.core.consumer.Assignment;
import io.cohort.core.consumer.assignor.AssignmentSpec;
import io.cohort.core.consumer.assignor.GroupAssignment;
import io.cohort.core.consumer.assignor.ServerAssignor;
import io.cohort.core.consumer.assignor.ServerAssignors;
import io.cohort.core.topic.TopicMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One target-assignment computation of a server assignor, as a committed consumer-group heartbeat
 * runs it inside the log apply: 500 members over 1,000 partitions (10 topics of 100).
 * <ul>
 *   <li>shape: homogeneous (all subscribe to all 10 topics), racks (the same, members and partition
 *       replicas on 3 racks), heterogeneous (each member subscribes to 3 of the 10, seeded);</li>
 *   <li>scenario: fresh (no current targets), joinOne (the balanced assignment of 499 members plus
 *       one new member: the join_one_more of the issue), stable (the group's own assignment).</li>
 * </ul>
 * Not part of mvn verify. Build with {@code mvn -B -q -Pbench -pl benchmarks -am package -DskipTests
 * -Djacoco.skip=true}, run with {@code java -cp benchmarks/target/cohort-bench.jar:$(cat
 * benchmarks/target/bench.classpath) org.openjdk.jmh.Main AssignorBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class AssignorBenchmark {
    private static final int MEMBERS = 500;
    private static final int TOPICS = 10;
    private static final int PARTITIONS_PER_TOPIC = 100;
    private static final int HETEROGENEOUS_SUBSCRIPTIONS = 3;
    private static final String[] RACKS = {"rack-a", "rack-b", "rack-c"};

    @Param({"uniform", "range"})
    public String assignor;

    @Param({"homogeneous", "racks", "heterogeneous"})
    public String shape;

    @Param({"fresh", "joinOne", "stable"})
    public String scenario;

    private ServerAssignor serverAssignor;
    private AssignmentSpec spec;

    @Setup(Level.Trial)
    public void setUp() {
        serverAssignor = ServerAssignors.byName(ServerAssignors.defaults(), assignor);
        Random random = new Random(42);
        TreeMap<UUID, TopicMetadata> topics = topics(random, shape.equals("racks"));
        List<SortedSet<UUID>> subscriptions = subscriptions(random, topics);
        List<String> racks = new ArrayList<>();
        for (int m = 0; m < MEMBERS; m++) {
            racks.add(shape.equals("racks") ? RACKS[m % RACKS.length] : null);
        }
        switch (scenario) {
            case "fresh" -> spec = spec(MEMBERS, topics, subscriptions, racks, null);
            case "stable" -> {
                AssignmentSpec fresh = spec(MEMBERS, topics, subscriptions, racks, null);
                spec = spec(MEMBERS, topics, subscriptions, racks, serverAssignor.assign(fresh));
            }
            case "joinOne" -> {
                AssignmentSpec before = spec(MEMBERS - 1, topics, subscriptions, racks, null);
                spec = spec(MEMBERS, topics, subscriptions, racks, serverAssignor.assign(before));
            }
            default -> throw new IllegalArgumentException("scenario " + scenario);
        }
    }

    @Benchmark
    public GroupAssignment assign() {
        return serverAssignor.assign(spec);
    }

    private static TreeMap<UUID, TopicMetadata> topics(Random random, boolean withRacks) {
        TreeMap<UUID, TopicMetadata> topics = new TreeMap<>();
        for (int t = 0; t < TOPICS; t++) {
            UUID id = new UUID(random.nextLong(), random.nextLong());
            List<List<String>> partitionRacks = new ArrayList<>();
            if (withRacks) {
                for (int p = 0; p < PARTITIONS_PER_TOPIC; p++) {
                    partitionRacks.add(List.of(RACKS[random.nextInt(RACKS.length)]));
                }
            }
            topics.put(id, new TopicMetadata(id, "topic-" + t, PARTITIONS_PER_TOPIC, partitionRacks));
        }
        return topics;
    }

    private List<SortedSet<UUID>> subscriptions(Random random, TreeMap<UUID, TopicMetadata> topics) {
        List<UUID> ids = new ArrayList<>(topics.keySet());
        List<SortedSet<UUID>> subscriptions = new ArrayList<>();
        for (int m = 0; m < MEMBERS; m++) {
            TreeSet<UUID> subscription = new TreeSet<>();
            if (shape.equals("heterogeneous")) {
                while (subscription.size() < HETEROGENEOUS_SUBSCRIPTIONS) {
                    subscription.add(ids.get(random.nextInt(ids.size())));
                }
            } else {
                subscription.addAll(ids);
            }
            subscriptions.add(subscription);
        }
        return subscriptions;
    }

    /** The first {@code members} members; current targets from {@code previous} (null: none). */
    private static AssignmentSpec spec(int members, TreeMap<UUID, TopicMetadata> topics,
                                       List<SortedSet<UUID>> subscriptions, List<String> racks,
                                       GroupAssignment previous) {
        TreeMap<String, AssignmentSpec.MemberSpec> specs = new TreeMap<>();
        for (int m = 0; m < members; m++) {
            String id = String.format("member-%04d", m);
            Assignment current = previous == null ? Assignment.EMPTY
                    : previous.members().getOrDefault(id, Assignment.EMPTY);
            specs.put(id, new AssignmentSpec.MemberSpec(racks.get(m), subscriptions.get(m), current));
        }
        return new AssignmentSpec(specs, topics);
    }
}
