package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.GroupMember;
import io.cohort.client.RebalanceListener;
import io.cohort.client.TopicPartition;
import io.cohort.client.assignor.ConsumerPartitionAssignor;
import io.cohort.client.assignor.CooperativeStickyAssignor;
import io.cohort.client.assignor.RangeAssignor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 5's end-to-end test: 20 {@link GroupMember}s of one consumer group share a 60-partition
 * topic on three real node JVMs, each committing the partitions it owns all along. A 21st member
 * joins, one member leaves, then the group's coordinator is SIGKILLed. Checked throughout: no
 * partition is ever owned by two members at once, or assigned to two members within one
 * generation; no member fails or loses its partitions; and at the end every partition's fetched
 * offset is its last acknowledged commit (or a later commit whose answer was lost in the crash).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ConsumerGroupFailoverIT {
    private static final String GROUP = "failover-consumers";
    private static final String TOPIC = "events";
    private static final int TOPIC_PARTITIONS = 60;
    private static final int MEMBERS = 20;
    /** Members must not expire while the coordinator fails over (about a second); 10 s is ample. */
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    private static final Duration REBALANCE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration COMMIT_EVERY = Duration.ofMillis(250);
    /** Generous bound for a rebalance of 20 JVM-local members on a loaded two-core machine. */
    private static final Duration SETTLE_BOUND = Duration.ofSeconds(90);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    private ProcessCluster cluster;
    private History history;
    private final List<Consumer> consumers = new ArrayList<>();
    private final Ownership ownership = new Ownership();
    /** What the members committed, for the check that nothing acknowledged is lost. */
    private final CommitLedger ledger = new CommitLedger();
    /** Commit calls acknowledged, all members together. */
    private final AtomicLong ackCount = new AtomicLong();

    static Stream<Arguments> protocols() {
        return Stream.of(Arguments.of("cooperative-sticky", new CooperativeStickyAssignor()),
                Arguments.of("range", new RangeAssignor()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("protocols")
    void membersKeepExclusiveOwnershipAndEveryAcknowledgedCommitThroughJoinLeaveAndCoordinatorKill(
            String name, ConsumerPartitionAssignor assignor) throws Exception {
        cluster = run.start(ProcessCluster.builder().nodes(3).partitions(3)
                .set("group.initial.rebalance.delay.ms", 1_000));
        history = new History(cluster.runDir().resolve("history.log"));
        cluster.awaitPreferredLeaders(SETTLE_BOUND);
        String bootstrap = String.join(",", cluster.nodeIds().stream()
                .map(id -> "127.0.0.1:" + cluster.clientPort(id)).toList());

        try (CohortClient admin = CohortClient.builder().bootstrap(bootstrap).clientId("admin").build()) {
            for (int i = 0; i < MEMBERS; i++) {
                consumers.add(new Consumer("c" + i, bootstrap, assignor));
            }
            long formedMs = awaitBalanced("first generation of " + MEMBERS);

            Consumer joiner = new Consumer("c" + MEMBERS, bootstrap, assignor);
            consumers.add(joiner);
            long joinMs = awaitBalanced("after c" + MEMBERS + " joined");

            Consumer leaver = consumers.remove(0);
            leaver.close();
            long leaveMs = awaitBalanced("after " + leaver.name + " left");

            int coordinator = admin.findCoordinator(GROUP).nodeId();
            long acksBefore = totalAcks();
            cluster.kill(coordinator);
            long killedNanos = System.nanoTime();
            history.record("SIGKILLed node " + coordinator + ", the coordinator of " + GROUP);
            // One commit per member acknowledged after the kill: the whole group is committing again.
            long commitsAgainMs = awaitAcksAfter(acksBefore + consumers.size(), killedNanos);
            int newCoordinator = admin.findCoordinator(GROUP).nodeId();
            assertThat(newCoordinator).isNotEqualTo(coordinator);
            // The group keeps committing on the new coordinator for a while, with every partition owned.
            long acksAfterFailover = totalAcks();
            awaitAcksAfter(acksAfterFailover + 5L * consumers.size(), System.nanoTime());
            long settledMs = awaitBalanced("after the coordinator was killed");

            for (Consumer consumer : consumers) {
                consumer.close();
            }
            for (Consumer consumer : consumers) {
                assertThat(consumer.failure.get()).as("failure of %s", consumer.name).isNull();
            }
            assertThat(ownership.violations()).as("ownership violations").isEmpty();
            assertThat(ownership.lost()).as("partitions reported lost").isEmpty();
            assertEveryAcknowledgedCommitFetched(admin);

            String summary = String.format("%s[%s]: %d members balanced after %d ms; join rebalance %d ms; leave "
                            + "rebalance %d ms; SIGKILL of coordinator node %d -> %d commits acknowledged "
                            + "%d ms later, new coordinator node %d, group balanced %d ms after the kill; %d commits acknowledged",
                    getClass().getSimpleName(), name, MEMBERS, formedMs, joinMs, leaveMs, coordinator,
                    consumers.size(), commitsAgainMs, newCoordinator, settledMs, totalAcks());
            history.record(summary);
            System.out.println(summary);
        } finally {
            for (Consumer consumer : consumers) {
                consumer.close();
            }
        }
    }

    /** Waits until the live members form one generation that owns every partition exactly once. */
    private long awaitBalanced(String what) {
        long start = System.nanoTime();
        cluster.awaitCondition(SETTLE_BOUND, "group balanced " + what, () -> {
            Set<Integer> generations = new HashSet<>();
            int owned = 0;
            Set<TopicPartition> all = new HashSet<>();
            for (Consumer consumer : consumers) {
                if (consumer.failure.get() != null) {
                    throw new AssertionError(consumer.name + " failed", consumer.failure.get());
                }
                generations.add(consumer.member.generationId());
                owned += consumer.member.assignment().size();
                all.addAll(consumer.member.assignment());
            }
            return generations.size() == 1 && !generations.contains(-1) && owned == TOPIC_PARTITIONS
                    && all.size() == TOPIC_PARTITIONS;
        }, this::describeMembers);
        long ms = (System.nanoTime() - start) / 1_000_000;
        history.record("balanced " + what + " in " + ms + " ms: " + describeMembers());
        return ms;
    }

    private long awaitAcksAfter(long target, long sinceNanos) {
        cluster.awaitCondition(SETTLE_BOUND, "at least " + target + " acknowledged commits", () -> totalAcks() >= target,
                () -> "acknowledged " + totalAcks() + "; " + describeMembers());
        return (System.nanoTime() - sinceNanos) / 1_000_000;
    }

    private long totalAcks() {
        return ackCount.get();
    }

    private String describeMembers() {
        StringBuilder text = new StringBuilder();
        for (Consumer consumer : consumers) {
            text.append(consumer.name).append("(g").append(consumer.member.generationId()).append(", ")
                    .append(consumer.member.assignment().size()).append(") ");
        }
        return text.toString();
    }

    private void assertEveryAcknowledgedCommitFetched(CohortClient admin) {
        ledger.assertEveryAcknowledgedCommitFetched(admin.fetchOffsets(GROUP), TOPIC_PARTITIONS, history);
    }

    /**
     * Who owns what, from the listeners: a partition assigned while another member still owns it
     * (not yet revoked or lost), or assigned to two members of the same generation, is a violation.
     */
    private static final class Ownership {
        private final Map<TopicPartition, String> owner = new HashMap<>();
        private final Map<Integer, Map<TopicPartition, String>> byGeneration = new HashMap<>();
        private final List<String> violations = new ArrayList<>();
        private final List<String> lost = new ArrayList<>();

        synchronized void assigned(String member, int generation, Collection<TopicPartition> added,
                Collection<TopicPartition> all) {
            for (TopicPartition tp : added) {
                String previous = owner.putIfAbsent(tp, member);
                if (previous != null && !previous.equals(member)) {
                    violations.add(tp + " assigned to " + member + " while " + previous + " owns it");
                }
            }
            Map<TopicPartition, String> generationOwners = byGeneration.computeIfAbsent(generation, g -> new HashMap<>());
            for (TopicPartition tp : all) {
                String other = generationOwners.putIfAbsent(tp, member);
                if (other != null && !other.equals(member)) {
                    violations.add(tp + " assigned to " + member + " and " + other + " in generation " + generation);
                }
            }
        }

        synchronized void released(String member, Collection<TopicPartition> partitions, boolean wasLost) {
            for (TopicPartition tp : partitions) {
                owner.remove(tp, member);
                if (wasLost) {
                    lost.add(member + " lost " + tp);
                }
            }
        }

        synchronized List<String> violations() {
            return List.copyOf(violations);
        }

        synchronized List<String> lost() {
            return List.copyOf(lost);
        }
    }

    /** One application: a GroupMember with its own client, polled and committing on its own thread. */
    private final class Consumer implements AutoCloseable {
        final String name;
        final CohortClient client;
        final GroupMember member;
        final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean running = true;

        Consumer(String name, String bootstrap, ConsumerPartitionAssignor assignor) {
            this.name = name;
            this.client = CohortClient.builder().bootstrap(bootstrap).clientId(name).build();
            this.member = GroupMember.builder(client, GROUP).subscribe(List.of(TOPIC))
                    .topicMetadata(Map.of(TOPIC, TOPIC_PARTITIONS)).assignors(List.of(assignor))
                    .sessionTimeout(SESSION_TIMEOUT).heartbeatInterval(HEARTBEAT_INTERVAL)
                    .rebalanceTimeout(REBALANCE_TIMEOUT).listener(new Listener()).build();
            this.thread = new Thread(this::loop, "consumer-" + name);
            this.thread.setDaemon(true);
            this.thread.start();
        }

        private final class Listener implements RebalanceListener {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // Commit before giving partitions up, as a well-behaved Kafka consumer does.
                commitOwned(partitions);
                ownership.released(name, partitions, false);
                history.record(name + " revoked " + partitions.size());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                ownership.released(name, partitions, true);
                history.record(name + " LOST " + partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                ownership.assigned(name, member.generationId(), partitions, member.assignment());
                history.record(name + " generation " + member.generationId() + " assigned +" + partitions.size()
                        + " = " + member.assignment().size());
            }
        }

        private void loop() {
            long nextCommit = System.nanoTime();
            try {
                while (running) {
                    member.poll(Duration.ofMillis(100));
                    if (System.nanoTime() >= nextCommit) {
                        commitOwned(member.assignment());
                        nextCommit = System.nanoTime() + COMMIT_EVERY.toNanos();
                    }
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable t) {
                failure.set(t);
                history.record(name + " FAILED: " + t);
            }
        }

        private void commitOwned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            CohortException failure = ledger.commitNext(partitions, member::commitSync);
            if (failure == null) {
                ackCount.incrementAndGet();
            } else {
                history.record(name + " commit of " + partitions.size() + " failed: " + failure.getMessage());
            }
        }

        @Override
        public void close() throws InterruptedException {
            if (!running) {
                return;
            }
            running = false;
            thread.join(60_000);
            try {
                member.close();
            } finally {
                client.close();
            }
        }
    }
}
