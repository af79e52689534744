package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.DescribedConsumerGroup;
import io.cohort.api.v1.ErrorCode;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.GroupMember;
import io.cohort.client.GroupProtocol;
import io.cohort.client.RebalanceListener;
import io.cohort.client.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 17's "done when", at CI size: a KIP-848 consumer-protocol group of 50 {@link GroupMember}s
 * (server assignor {@code uniform}) shares a 100-partition topic of the registry on three real node
 * JVMs, every member committing what it owns all along. A 51st member joins: only the members
 * giving it a partition see a revocation, and only of the partitions it takes, while the others'
 * commits keep being acknowledged. A 52nd member joins and the group's coordinator is SIGKILLed
 * while the group is Reconciling: the group converges on the new coordinator with the same
 * incremental moves. Checked throughout, from the listeners: no partition is ever owned by two
 * members at once; no member fails or loses its partitions; and at the end every partition's
 * fetched offset is its last acknowledged commit (or a later one whose answer was lost in the crash).
 *
 * <p>A separate class from {@link ConsumerGroupFailoverIT}: the classic test checks per-generation
 * ownership through a stop-the-world rebalance, this one checks that a rebalance stops nobody.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ConsumerProtocolFailoverIT {
    private static final String GROUP = "kip848-failover";
    private static final String TOPIC = "kip848-events";
    /**
     * 50 members and 100 partitions in CI; the 500-member run is this test with
     * {@code -Dcohort.it.kip848.members=500 -Dcohort.it.kip848.partitions=1000
     * -Dcohort.it.kip848.heartbeat.ms=2000} (docs/BENCHMARKS.md, "Consumer protocol").
     */
    private static final int TOPIC_PARTITIONS = Integer.getInteger("cohort.it.kip848.partitions", 100);
    private static final int MEMBERS = Integer.getInteger("cohort.it.kip848.members", 50);
    /** Members per CohortClient: a client's channels serve many members, as in one application. */
    private static final int MEMBERS_PER_CLIENT = 10;
    /** No member may expire during the failover (about a second): 10 s is ample. */
    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final int HEARTBEAT_INTERVAL_MS = Integer.getInteger("cohort.it.kip848.heartbeat.ms", 500);
    private static final Duration COMMIT_EVERY = Duration.ofSeconds(1);
    /** Generous bound for 50 JVM-local members on a loaded two-core machine. */
    private static final Duration SETTLE_BOUND = Duration.ofSeconds(120);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    private ProcessCluster cluster;
    private History history;
    private final List<CohortClient> clients = new ArrayList<>();
    private final List<Consumer> consumers = new ArrayList<>();
    private final Ownership ownership = new Ownership();
    /** What the members committed, for the check that nothing acknowledged is lost. */
    private final CommitLedger ledger = new CommitLedger();

    @Test
    void aMemberJoinsFiftyWithoutStoppingThemAndAReconciliationSurvivesACoordinatorKill() throws Exception {
        cluster = run.start(ProcessCluster.builder().nodes(3).partitions(3)
                .set("group.consumer.session.timeout.ms", SESSION_TIMEOUT_MS)
                .set("group.consumer.heartbeat.interval.ms", HEARTBEAT_INTERVAL_MS));
        history = new History(cluster.runDir().resolve("history.log"));
        cluster.awaitPreferredLeaders(SETTLE_BOUND);
        String bootstrap = cluster.bootstrap();

        try (CohortClient admin = CohortClient.builder().bootstrap(bootstrap).clientId("admin").build()) {
            var created = admin.createTopics(List.of(CreateTopicsRequest.NewTopic.newBuilder().setName(TOPIC)
                    .setPartitionCount(TOPIC_PARTITIONS).build()), false);
            assertThat(created.getResults(0).getErrorCode()).isEqualTo(ErrorCode.NONE);
            for (int i = 0; i < MEMBERS; i++) {
                consumers.add(new Consumer("c" + i, bootstrap));
            }
            long formedMs = awaitBalanced(admin, "first assignment of " + MEMBERS);
            history.record("threads of this JVM: " + threadCounts());

            // Join 1: member 51, no fault. Nobody but the givers revokes; the others keep committing.
            Map<String, Set<TopicPartition>> before = assignments();
            ownership.startPhase();
            Map<String, Long> acksBefore = acksByMember();
            Consumer joiner = new Consumer("c" + MEMBERS, bootstrap);
            consumers.add(joiner);
            long joinMs = awaitBalanced(admin, "after c" + MEMBERS + " joined");
            Set<String> givers = checkIncremental(before, joiner, "join of " + joiner.name);
            long acksDuringJoin = acksSince(acksBefore, givers);
            history.record(acksDuringJoin + " commits of the " + (MEMBERS - givers.size())
                    + " members not giving a partition acknowledged during the " + joinMs + " ms rebalance");
            // They were never stopped (checkIncremental: no revocation), so they keep committing: the
            // members commit once a second in step, so a short rebalance may fall between two rounds;
            // the next round must then be acknowledged.
            cluster.awaitCondition(SETTLE_BOUND, "commits of the members not involved in the join",
                    () -> acksSince(acksBefore, givers) > 0, this::describeMembers);

            // Join 2: member 52, and the coordinator SIGKILLed while the group reconciles.
            before = assignments();
            ownership.startPhase();
            int coordinator = admin.findCoordinator(GROUP).nodeId();
            Consumer second = new Consumer("c" + (MEMBERS + 1), bootstrap);
            consumers.add(second);
            long secondStart = System.nanoTime();
            DescribedConsumerGroup reconciling = awaitReconciling(admin, second);
            long acksAtKill = totalAcks();
            cluster.kill(coordinator);
            long killedNanos = System.nanoTime();
            history.record("SIGKILLed node " + coordinator + ", the coordinator of " + GROUP + ", "
                    + (killedNanos - secondStart) / 1_000_000 + " ms after " + second.name + " started; the group was "
                    + reconciling.getGroupState() + " at epoch " + reconciling.getGroupEpoch());
            long commitsAgainMs = awaitAcks(acksAtKill + consumers.size(), killedNanos);
            awaitBalanced(admin, "after the coordinator was killed during " + second.name + "'s join");
            long sinceKillMs = (System.nanoTime() - killedNanos) / 1_000_000;
            long secondJoinMs = (System.nanoTime() - secondStart) / 1_000_000;
            int newCoordinator = admin.findCoordinator(GROUP).nodeId();
            assertThat(newCoordinator).isNotEqualTo(coordinator);
            checkIncremental(before, second, "join of " + second.name + " through the kill");

            for (Consumer consumer : consumers) {
                consumer.stop();
            }
            for (Consumer consumer : consumers) {
                assertThat(consumer.failure.get()).as("failure of %s", consumer.name).isNull();
            }
            assertThat(ownership.violations()).as("ownership violations").isEmpty();
            assertThat(ownership.lost()).as("partitions reported lost").isEmpty();
            assertEveryAcknowledgedCommitFetched(admin);

            String summary = String.format("%s: %d members balanced after %d ms; join of member %d: %d ms, %d "
                            + "commits of the uninvolved members acknowledged meanwhile; join of member %d with a "
                            + "SIGKILL of coordinator node %d while %s -> %d commits acknowledged %d ms after the "
                            + "kill, group balanced %d ms after the kill (%d ms after the join) on node %d; %d "
                            + "commits acknowledged, %d failed or unanswered",
                    getClass().getSimpleName(), MEMBERS, formedMs, MEMBERS + 1, joinMs, acksDuringJoin, MEMBERS + 2,
                    coordinator, reconciling.getGroupState(), consumers.size(), commitsAgainMs, sinceKillMs,
                    secondJoinMs, newCoordinator,
                    totalAcks(), ledger.inDoubtCount());
            history.record(summary);
            System.out.println(summary);
            System.out.println("threads: " + threadCounts());
        } finally {
            for (Consumer consumer : consumers) {
                consumer.stop();
            }
            for (Consumer consumer : consumers) {
                consumer.close();
            }
            clients.forEach(CohortClient::close);
        }
    }

    /**
     * The move was incremental: every member but the joiner kept a subset of what it had, only the
     * partitions the joiner ended with were revoked (each once, by its previous owner), and only
     * their previous owners saw a revocation. Returns the members that gave partitions.
     */
    private Set<String> checkIncremental(Map<String, Set<TopicPartition>> before, Consumer joiner, String what) {
        Set<TopicPartition> taken = joiner.member.assignment();
        Map<String, List<TopicPartition>> revoked = ownership.revokedInPhase();
        Set<String> givers = new TreeSet<>();
        for (Consumer consumer : consumers) {
            if (consumer == joiner) {
                continue;
            }
            Set<TopicPartition> had = before.get(consumer.name);
            assertThat(had).as("%s: %s kept a subset of its partitions", what, consumer.name)
                    .containsAll(consumer.member.assignment());
            Set<TopicPartition> gave = new TreeSet<>(had);
            gave.removeAll(consumer.member.assignment());
            assertThat(new TreeSet<>(revoked.getOrDefault(consumer.name, List.of())))
                    .as("%s: partitions %s revoked (exactly those it gave the joiner)", what, consumer.name)
                    .isEqualTo(gave);
            assertThat(revoked.getOrDefault(consumer.name, List.of())).as("%s: %s revoked each once", what,
                    consumer.name).doesNotHaveDuplicates();
            assertThat(taken).as("%s: what %s gave went to the joiner", what, consumer.name).containsAll(gave);
            if (!gave.isEmpty()) {
                givers.add(consumer.name);
            }
        }
        int moved = revoked.values().stream().mapToInt(List::size).sum();
        // Balance needs the joiner to take floor(partitions / members), or one more.
        int atMost = (TOPIC_PARTITIONS + consumers.size() - 1) / consumers.size();
        assertThat(moved).as("%s: partitions revoked in all", what).isEqualTo(taken.size()).isLessThanOrEqualTo(atMost);
        history.record(what + ": " + moved + " partitions moved to " + joiner.name + " from " + givers
                + "; no other member revoked anything");
        return givers;
    }

    /** Live threads by name, numbers stripped: what 50 members cost in threads. */
    private static Map<String, Integer> threadCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            counts.merge(thread.getName().replaceAll("[0-9]+", "N"), 1, Integer::sum);
        }
        return counts;
    }

    private Map<String, Set<TopicPartition>> assignments() {
        Map<String, Set<TopicPartition>> result = new HashMap<>();
        for (Consumer consumer : consumers) {
            result.put(consumer.name, new TreeSet<>(consumer.member.assignment()));
        }
        return result;
    }

    /**
     * Waits until the coordinator lists {@code joiner} in a group that is not Stable yet (the new
     * target computed, revocations outstanding), the moment to kill it.
     */
    private DescribedConsumerGroup awaitReconciling(CohortClient admin, Consumer joiner) {
        AtomicReference<DescribedConsumerGroup> seen = new AtomicReference<>();
        cluster.awaitCondition(SETTLE_BOUND, joiner.name + " in the group while it reconciles", () -> {
            DescribedConsumerGroup group = admin.describeConsumerGroups(List.of(GROUP)).get(0);
            seen.set(group);
            boolean listed = group.getMembersList().stream().anyMatch(m -> m.getMemberId().equals(joiner.member.memberId()));
            if (listed && group.getGroupState().equals("Stable")) {
                throw new AssertionError("the group reconciled " + joiner.name + " before the test saw it reconciling");
            }
            return listed;
        }, () -> String.valueOf(seen.get()));
        return seen.get();
    }

    /**
     * Waits until every partition is owned by exactly one member (by the members' own view), every
     * member at the group epoch, and the coordinator reports the group Stable with every member at it.
     */
    private long awaitBalanced(CohortClient admin, String what) {
        long start = System.nanoTime();
        cluster.awaitCondition(SETTLE_BOUND, "group balanced " + what, () -> {
            Set<Integer> epochs = new HashSet<>();
            int owned = 0;
            Set<TopicPartition> all = new HashSet<>();
            for (Consumer consumer : consumers) {
                if (consumer.failure.get() != null) {
                    throw new AssertionError(consumer.name + " failed", consumer.failure.get());
                }
                epochs.add(consumer.member.generationId());
                owned += consumer.member.assignment().size();
                all.addAll(consumer.member.assignment());
            }
            if (epochs.size() != 1 || epochs.contains(-1) || owned != TOPIC_PARTITIONS
                    || all.size() != TOPIC_PARTITIONS) {
                return false;
            }
            try {
                DescribedConsumerGroup group = admin.describeConsumerGroups(List.of(GROUP)).get(0);
                return group.getGroupState().equals("Stable") && group.getMembersCount() == consumers.size()
                        && epochs.contains(group.getGroupEpoch()) && group.getMembersList().stream()
                        .allMatch(m -> m.getMemberEpoch() == group.getGroupEpoch());
            } catch (CohortException e) {
                return false;
            }
        }, this::describeMembers);
        long ms = (System.nanoTime() - start) / 1_000_000;
        history.record("balanced " + what + " in " + ms + " ms: " + describeMembers());
        return ms;
    }

    private long awaitAcks(long target, long sinceNanos) {
        cluster.awaitCondition(SETTLE_BOUND, "at least " + target + " acknowledged commits", () -> totalAcks() >= target,
                () -> "acknowledged " + totalAcks() + "; " + describeMembers());
        return (System.nanoTime() - sinceNanos) / 1_000_000;
    }

    private long totalAcks() {
        return consumers.stream().mapToLong(c -> c.acks.get()).sum();
    }

    private Map<String, Long> acksByMember() {
        Map<String, Long> acks = new java.util.HashMap<>();
        consumers.forEach(c -> acks.put(c.name, c.acks.get()));
        return acks;
    }

    /** Commits acknowledged since {@code before} to the members it names, but the {@code excluded}. */
    private long acksSince(Map<String, Long> before, Set<String> excluded) {
        return consumers.stream().filter(c -> before.containsKey(c.name) && !excluded.contains(c.name))
                .mapToLong(c -> c.acks.get() - before.get(c.name)).sum();
    }

    private String describeMembers() {
        StringBuilder text = new StringBuilder();
        for (Consumer consumer : consumers) {
            text.append(consumer.name).append("(e").append(consumer.member.generationId()).append(", ")
                    .append(consumer.member.assignment().size()).append(") ");
        }
        return text.toString();
    }

    private void assertEveryAcknowledgedCommitFetched(CohortClient admin) {
        ledger.assertEveryAcknowledgedCommitFetched(admin.fetchOffsets(GROUP), TOPIC_PARTITIONS, history);
    }

    /**
     * Who owns what, from the listeners: with the consumer protocol a partition is assigned only
     * once its previous owner revoked it, so any partition assigned while another member still owns
     * it is a violation (no per-generation allowance as in the classic test).
     */
    private static final class Ownership {
        private final Map<TopicPartition, String> owner = new HashMap<>();
        private final List<String> violations = new ArrayList<>();
        private final List<String> lost = new ArrayList<>();
        private Map<String, List<TopicPartition>> revokedInPhase = new HashMap<>();

        synchronized void assigned(String member, Collection<TopicPartition> added) {
            for (TopicPartition tp : added) {
                String previous = owner.putIfAbsent(tp, member);
                if (previous != null && !previous.equals(member)) {
                    violations.add(tp + " assigned to " + member + " while " + previous + " owns it");
                }
            }
        }

        synchronized void released(String member, Collection<TopicPartition> partitions, boolean wasLost) {
            for (TopicPartition tp : partitions) {
                if (!owner.remove(tp, member)) {
                    violations.add(member + " released " + tp + ", which it did not own");
                }
                if (wasLost) {
                    lost.add(member + " lost " + tp);
                } else {
                    revokedInPhase.computeIfAbsent(member, m -> new ArrayList<>()).add(tp);
                }
            }
        }

        /** Starts counting revocations afresh (one join). */
        synchronized void startPhase() {
            revokedInPhase = new HashMap<>();
        }

        synchronized Map<String, List<TopicPartition>> revokedInPhase() {
            Map<String, List<TopicPartition>> copy = new HashMap<>();
            revokedInPhase.forEach((member, tps) -> copy.put(member, List.copyOf(tps)));
            return copy;
        }

        synchronized List<String> violations() {
            return List.copyOf(violations);
        }

        synchronized List<String> lost() {
            return List.copyOf(lost);
        }
    }

    private CohortClient sharedClient(String bootstrap) {
        if (consumers.size() % MEMBERS_PER_CLIENT == 0 || clients.isEmpty()) {
            clients.add(CohortClient.builder().bootstrap(bootstrap).clientId("app-" + clients.size()).build());
        }
        return clients.get(clients.size() - 1);
    }

    /** One application thread: a consumer-protocol GroupMember, polled and committing what it owns. */
    private final class Consumer implements AutoCloseable {
        final String name;
        final GroupMember member;
        final Thread thread;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong acks = new AtomicLong();
        volatile boolean running = true;

        Consumer(String name, String bootstrap) {
            this.name = name;
            this.member = GroupMember.builder(sharedClient(bootstrap), GROUP).subscribe(List.of(TOPIC))
                    .groupProtocol(GroupProtocol.CONSUMER).serverAssignor("uniform").listener(new Listener()).build();
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
                history.record(name + " revoked " + partitions + " at epoch " + member.generationId());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                ownership.released(name, partitions, true);
                history.record(name + " LOST " + partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                ownership.assigned(name, partitions);
                if (!partitions.isEmpty()) {
                    history.record(name + " epoch " + member.generationId() + " assigned " + partitions + " = "
                            + member.assignment().size());
                }
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
                    // Idle until the next commit, but reconcile as soon as a heartbeat brings news.
                    member.awaitRebalanceNeeded(Duration.ofMillis(100));
                }
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
                acks.incrementAndGet();
            } else {
                history.record(name + " commit of " + partitions.size() + " failed: " + failure.getMessage());
            }
        }

        /** Stops the poll loop (the member stays in the group until {@link #close}). */
        void stop() throws InterruptedException {
            running = false;
            thread.join(60_000);
        }

        /** Leaves the group. */
        @Override
        public void close() {
            member.close();
        }
    }
}
