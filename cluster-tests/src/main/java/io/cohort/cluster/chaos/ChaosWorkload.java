package io.cohort.cluster.chaos;

import io.cohort.api.v1.CreateTopicsRequest;
import io.cohort.api.v1.CreateTopicsResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.api.v1.OffsetCommitRequest;
import io.cohort.api.v1.OffsetCommitResponse;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.api.v1.SyncGroupResponse;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import io.cohort.client.CommitFailedException;
import io.cohort.client.ErrorCodes;
import io.cohort.client.GroupMember;
import io.cohort.client.GroupProtocol;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.RebalanceListener;
import io.cohort.client.TopicPartition;
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
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What runs against the cluster during a chaos run, every operation recorded in the history:
 * consumer groups of {@link GroupMember}s committing the partitions they own (every other group on
 * KIP-848's consumer protocol when {@link ChaosConfig#consumerProtocol()}, its topic created in the
 * topic registry at the start; the others classic); a reader per group
 * fetching its offsets; independent committers (simple groups, generation -1), each with a reader;
 * and a fence probe that joins a group, goes silent past its session, and then tries to commit.
 */
public final class ChaosWorkload implements AutoCloseable {
    static final String PROBE_PREFIX = "chaos-fence-";
    private static final Duration COMMIT_EVERY = Duration.ofMillis(300);
    private static final Duration READ_EVERY = Duration.ofMillis(400);
    private static final Duration BACKUP_EVERY = Duration.ofSeconds(15);

    private final ChaosConfig config;
    private final String bootstrap;
    private final ChaosHistory history;
    private final List<Worker> workers = new ArrayList<>();
    private final List<Member> members = new ArrayList<>();
    /** The next value to write per key; values of one key increase in the order writes are sent. */
    private final Map<String, AtomicLong> nextValue = new ConcurrentHashMap<>();
    private final AtomicLong backupsTaken = new AtomicLong();
    private final AtomicLong backupsFailed = new AtomicLong();
    private final CohortClient admin;
    private volatile boolean running = true;

    public ChaosWorkload(ChaosConfig config, String bootstrap, ChaosHistory history) {
        this.config = config;
        this.bootstrap = bootstrap;
        this.history = history;
        this.admin = client("chaos-admin");
    }

    public static String groupId(int group) {
        return "chaos-g" + group;
    }

    static String topic(int group) {
        return "topic-g" + group;
    }

    static String committerGroup(int committer) {
        return "chaos-c" + committer;
    }

    static String key(String group, TopicPartition tp) {
        return group + "/" + tp;
    }

    private CohortClient client(String clientId) {
        return CohortClient.builder().bootstrap(bootstrap).clientId(clientId).apiTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** Starts every member, reader, committer and the probe. */
    public void start() {
        createConsumerProtocolTopics();
        for (int g = 0; g < config.groups(); g++) {
            for (int m = 0; m < config.membersPerGroup(); m++) {
                Member member = new Member(g, m);
                members.add(member);
                workers.add(member);
            }
            workers.add(new GroupReader(g));
        }
        for (int c = 0; c < config.committers(); c++) {
            workers.add(new Committer(c));
            workers.add(new CommitterReader(c));
        }
        workers.add(new FenceProbe());
        workers.add(new Backups());
        workers.forEach(Worker::start);
    }

    /**
     * Creates the topics of the consumer-protocol groups in the registry: the coordinator assigns
     * from it. Retried (the cluster may still be electing); an existing topic is fine.
     */
    private void createConsumerProtocolTopics() {
        List<CreateTopicsRequest.NewTopic> topics = new ArrayList<>();
        for (int g = 0; g < config.groups(); g++) {
            if (config.consumerProtocol(g)) {
                topics.add(CreateTopicsRequest.NewTopic.newBuilder().setName(topic(g))
                        .setPartitionCount(config.topicPartitions()).build());
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!topics.isEmpty()) {
            List<CreateTopicsRequest.NewTopic> left = new ArrayList<>();
            String lastError = "";
            try {
                CreateTopicsResponse response = admin.createTopics(topics, false);
                for (int i = 0; i < response.getResultsCount(); i++) {
                    ErrorCode code = response.getResults(i).getErrorCode();
                    if (code != ErrorCode.NONE && code != ErrorCode.TOPIC_ALREADY_EXISTS) {
                        left.add(topics.get(i));
                        lastError = code.name() + ": " + response.getResults(i).getErrorMessage();
                    }
                }
            } catch (RuntimeException e) {
                left = topics;
                lastError = e.toString();
            }
            if (!left.isEmpty() && System.nanoTime() > deadline) {
                throw new IllegalStateException("could not create the consumer-protocol topics: " + lastError);
            }
            topics = left;
            if (!topics.isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // back off before retrying
            }
        }
        history.event("workload", "topics-created", consumerProtocolGroups().toString());
    }

    /** The ids of the groups on the consumer protocol, for the ownership checker. */
    Set<String> consumerProtocolGroups() {
        Set<String> groups = new TreeSet<>();
        for (int g = 0; g < config.groups(); g++) {
            if (config.consumerProtocol(g)) {
                groups.add(groupId(g));
            }
        }
        return groups;
    }

    /** The members of every group, for the liveness check. */
    List<Member> members() {
        return List.copyOf(members);
    }

    CohortClient admin() {
        return admin;
    }

    /** Stops every worker (members close: revoke, commit, leave). The admin client stays open. */
    public void stopWorkers() {
        running = false;
        for (Worker worker : workers) {
            worker.stop();
        }
    }

    @Override
    public void close() {
        stopWorkers();
        admin.close();
    }

    /** One thread of the workload. */
    abstract class Worker {
        final String name;
        private Thread thread;

        Worker(String name) {
            this.name = name;
        }

        void start() {
            thread = new Thread(() -> {
                try {
                    body();
                } catch (RuntimeException e) {
                    history.event(name, "worker-failed", e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    cleanUp();
                }
            }, "chaos-" + name);
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            try {
                thread.join(90_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        abstract void body() throws InterruptedException;

        void cleanUp() {
        }
    }

    /** Records a commit of {@code offsets} by {@code process} and sends it with {@code send}. */
    private void recordedCommit(String process, String group, Map<TopicPartition, OffsetAndMetadata> offsets,
            int generation, Runnable send) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            history.record(process, Op.INVOKE, "commit", key(group, e.getKey()), e.getValue().offset(), generation, "");
        }
        String type;
        String detail;
        try {
            send.run();
            type = Op.OK;
            detail = "";
        } catch (CommitFailedException e) {
            // With a cause, an earlier attempt got no answer and may have been applied.
            type = e.getCause() != null ? Op.INFO : Op.FAIL;
            detail = e.errorCode().name() + (e.getCause() != null ? ": " + e.getMessage() : "");
        } catch (CohortException e) {
            // A refusal was not applied. A timeout, a routing error or UNKNOWN_SERVER_ERROR (a failed
            // replicated write) may have been: the API says so.
            type = ErrorCodes.isRetriable(e.errorCode()) || e.getCause() != null
                    || e.errorCode() == ErrorCode.UNKNOWN_SERVER_ERROR ? Op.INFO : Op.FAIL;
            detail = e.errorCode().name() + ": " + e.getMessage();
        } catch (RuntimeException e) {
            type = Op.INFO;
            detail = e.toString();
        }
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
            history.record(process, type, "commit", key(group, e.getKey()), e.getValue().offset(), generation, detail);
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> nextOffsets(String group, Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>();
        for (TopicPartition tp : partitions) {
            offsets.put(tp, new OffsetAndMetadata(nextValue.computeIfAbsent(key(group, tp), k -> new AtomicLong())
                    .incrementAndGet()));
        }
        return offsets;
    }

    /** Records a linearizable fetch of {@code keys} of {@code group}. */
    private void recordedFetch(String process, CohortClient client, String group, List<TopicPartition> keys) {
        recordedRead(process, keys.stream().map(tp -> key(group, tp)).toList(), () -> {
            Map<String, Long> values = new HashMap<>();
            client.fetchOffsets(group).forEach((tp, offset) -> values.put(key(group, tp), offset.offset()));
            return values;
        });
    }

    /**
     * Records one read of {@code keys}, all invoked before {@code read} starts and completed after
     * it returns: each key's value, -1 for a key it has none of; every key failed if it throws.
     * Returns whether it read.
     */
    private boolean recordedRead(String process, Collection<String> keys, Supplier<Map<String, Long>> read) {
        keys.forEach(key -> history.record(process, Op.INVOKE, "fetch", key, -1, -1, ""));
        try {
            Map<String, Long> values = read.get();
            keys.forEach(key -> history.record(process, Op.OK, "fetch", key, values.getOrDefault(key, -1L), -1, ""));
            return true;
        } catch (RuntimeException e) {
            keys.forEach(key -> history.record(process, Op.FAIL, "fetch", key, -1, -1, e.toString()));
            return false;
        }
    }

    private List<TopicPartition> topicPartitions(int group) {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < config.topicPartitions(); p++) {
            all.add(new TopicPartition(topic(group), p));
        }
        return all;
    }

    /** One GroupMember, polled and committing what it owns, its listener recording ownership. */
    final class Member extends Worker {
        final String group;
        final CohortClient client;
        final GroupMember member;

        Member(int group, int index) {
            super("g" + group + "-m" + index);
            this.group = groupId(group);
            this.client = client(name);
            GroupMember.Builder builder = GroupMember.builder(client, this.group).subscribe(List.of(topic(group)))
                    .rebalanceTimeout(Duration.ofSeconds(30)).listener(new Listener());
            if (config.consumerProtocol(group)) {
                // KIP-848: the coordinator assigns (uniform and range in turn); sessions are the
                // cluster's group.consumer.* settings.
                builder.groupProtocol(GroupProtocol.CONSUMER).serverAssignor(group % 4 == 1 ? "uniform" : "range");
            } else {
                // The classic groups rebalance cooperatively and eagerly in turn.
                builder.topicMetadata(Map.of(topic(group), config.topicPartitions()))
                        .assignors(List.of((config.consumerProtocol() ? group / 2 : group) % 2 == 0
                                ? new CooperativeStickyAssignor() : new RangeAssignor()))
                        .sessionTimeout(ChaosConfig.SESSION_TIMEOUT).heartbeatInterval(Duration.ofSeconds(1));
            }
            this.member = builder.build();
        }

        private final class Listener implements RebalanceListener {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                commitOwned(partitions);
                history.record(name, Op.EVENT, "revoked", group, -1, member.generationId(), partitions.toString());
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                history.record(name, Op.EVENT, "lost", group, -1, member.generationId(), partitions.toString());
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                history.record(name, Op.EVENT, "assigned", group, -1, member.generationId(),
                        partitions + " of " + member.assignment());
            }
        }

        @Override
        void body() throws InterruptedException {
            long nextCommit = System.nanoTime();
            while (running) {
                member.poll(Duration.ofMillis(200));
                if (System.nanoTime() >= nextCommit) {
                    commitOwned(member.assignment());
                    nextCommit = System.nanoTime() + COMMIT_EVERY.toNanos();
                }
                Thread.sleep(20);
            }
        }

        private void commitOwned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = nextOffsets(group, partitions);
            recordedCommit(name, group, offsets, member.generationId(), () -> member.commitSync(offsets));
        }

        @Override
        void cleanUp() {
            try {
                member.close();
            } catch (RuntimeException e) {
                history.event(name, "close-failed", e.toString());
            } finally {
                client.close();
            }
        }
    }

    /** Fetches a consumer group's offsets over and over. */
    private final class GroupReader extends Worker {
        final int group;
        final CohortClient client;

        GroupReader(int group) {
            super("g" + group + "-reader");
            this.group = group;
            this.client = client(name);
        }

        @Override
        void body() throws InterruptedException {
            while (running) {
                recordedFetch(name, client, groupId(group), topicPartitions(group));
                Thread.sleep(READ_EVERY.toMillis());
            }
        }

        @Override
        void cleanUp() {
            client.close();
        }
    }

    /** A simple group committing one key with increasing values, one commit at a time. */
    private final class Committer extends Worker {
        final String group;
        final CohortClient client;

        Committer(int index) {
            super("c" + index);
            this.group = committerGroup(index);
            this.client = client(name);
        }

        @Override
        void body() throws InterruptedException {
            TopicPartition tp = new TopicPartition("t", 0);
            while (running) {
                Map<TopicPartition, OffsetAndMetadata> offsets = nextOffsets(group, List.of(tp));
                recordedCommit(name, group, offsets, -1, () -> client.commitOffsets(group, offsets));
                Thread.sleep(50);
            }
        }

        @Override
        void cleanUp() {
            client.close();
        }
    }

    /** Backups of the whole cluster every {@link #BACKUP_EVERY}, each a fetch of every key ({@link ChaosBackups}). */
    private final class Backups extends Worker {
        final CohortClient client;

        Backups() {
            super("backup");
            this.client = client(name);
        }

        @Override
        void body() throws InterruptedException {
            long next = System.nanoTime() + BACKUP_EVERY.toNanos();
            while (running) {
                if (System.nanoTime() < next) {
                    Thread.sleep(200);
                    continue;
                }
                next = System.nanoTime() + BACKUP_EVERY.toNanos();
                (recordedRead(name, keys(), () -> ChaosBackups.offsets(client)) ? backupsTaken : backupsFailed)
                        .incrementAndGet();
            }
        }

        @Override
        void cleanUp() {
            client.close();
        }
    }

    /** Backups that gave an image of every partition, and those that did not. */
    public long backupsTaken() {
        return backupsTaken.get();
    }

    public long backupsFailed() {
        return backupsFailed.get();
    }

    private final class CommitterReader extends Worker {
        final String group;
        final CohortClient client;

        CommitterReader(int index) {
            super("c" + index + "-reader");
            this.group = committerGroup(index);
            this.client = client(name);
        }

        @Override
        void body() throws InterruptedException {
            while (running) {
                recordedFetch(name, client, group, List.of(new TopicPartition("t", 0)));
                Thread.sleep(READ_EVERY.toMillis() / 2);
            }
        }

        @Override
        void cleanUp() {
            client.close();
        }
    }

    /**
     * A member that stops heartbeating (as a paused process would): it joins a fresh group, stays
     * silent until the coordinator has expired it, then commits with the generation it joined. The
     * coordinator must refuse that commit (UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION).
     */
    private final class FenceProbe extends Worker {
        final CohortClient client;
        int round;

        FenceProbe() {
            super("fence-probe");
            this.client = client(name);
        }

        @Override
        void body() throws InterruptedException {
            while (running) {
                probe(PROBE_PREFIX + round++);
            }
        }

        private void probe(String group) throws InterruptedException {
            int sessionMs = (int) ChaosConfig.PROBE_SESSION_TIMEOUT.toMillis();
            JoinGroupRequest.Builder join = JoinGroupRequest.newBuilder().setGroupId(group)
                    .setSessionTimeoutMs(sessionMs).setRebalanceTimeoutMs(sessionMs).setProtocolType("consumer")
                    .setClientId(name).addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("range"));
            Duration longPoll = Duration.ofSeconds(10);
            JoinGroupResponse joined = client.joinGroup(join.build(), longPoll, Duration.ofSeconds(30));
            if (joined.getErrorCode() == ErrorCode.MEMBER_ID_REQUIRED) {
                joined = client.joinGroup(join.setMemberId(joined.getMemberId()).build(), longPoll,
                        Duration.ofSeconds(30));
            }
            if (joined.getErrorCode() != ErrorCode.NONE) {
                history.event(name, "probe-skipped", group + " join: " + joined.getErrorCode());
                Thread.sleep(1_000);
                return;
            }
            SyncGroupResponse synced = client.syncGroup(SyncGroupRequest.newBuilder().setGroupId(group)
                    .setGenerationId(joined.getGenerationId()).setMemberId(joined.getMemberId())
                    .addAssignments(SyncGroupRequest.Assignment.newBuilder().setMemberId(joined.getMemberId()))
                    .build(), longPoll, Duration.ofSeconds(30));
            if (synced.getErrorCode() != ErrorCode.NONE) {
                history.event(name, "probe-skipped", group + " sync: " + synced.getErrorCode());
                Thread.sleep(1_000);
                return;
            }
            history.record(name, Op.EVENT, "probe-joined", group, -1, joined.getGenerationId(), joined.getMemberId());
            // Silent: no heartbeat, no commit. Every leadership change of the group's partition gives
            // each member a fresh session on the new leader (as a Kafka coordinator does when it loads
            // a group), so under churn the expiry can come later than one session after the last
            // call: wait until the coordinator itself (a linearizable DescribeGroups) no longer lists
            // the member, then commit. That commit must be refused.
            Thread.sleep(sessionMs);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (stillListed(group, joined.getMemberId())) {
                if (System.nanoTime() > deadline) {
                    history.event(name, "probe-not-expired", group + ": still a member 60 s after going silent");
                    return;
                }
                Thread.sleep(sessionMs / 2);
            }
            OffsetCommitRequest commit = OffsetCommitRequest.newBuilder().setGroupId(group)
                    .setGenerationIdOrMemberEpoch(joined.getGenerationId()).setMemberId(joined.getMemberId())
                    .addTopics(OffsetCommitRequest.Topic.newBuilder().setName("t").addPartitions(
                            OffsetCommitRequest.Partition.newBuilder().setPartitionIndex(0).setCommittedOffset(1)))
                    .build();
            history.record(name, Op.INVOKE, "fence-commit", group, 1, joined.getGenerationId(), "");
            try {
                OffsetCommitResponse response = client.offsetCommit(commit, Duration.ofSeconds(30));
                ErrorCode code = response.getTopics(0).getPartitions(0).getErrorCode();
                history.record(name, code == ErrorCode.NONE ? Op.OK : Op.FAIL, "fence-commit", group, 1,
                        joined.getGenerationId(), code.name());
            } catch (RuntimeException e) {
                history.record(name, Op.INFO, "fence-commit", group, 1, joined.getGenerationId(), e.toString());
            }
        }

        private boolean stillListed(String group, String memberId) {
            try {
                return client.describeGroup(group).map(g -> g.getMembersList().stream()
                        .anyMatch(m -> m.getMemberId().equals(memberId))).orElse(false);
            } catch (RuntimeException e) {
                return true; // unknown: ask again
            }
        }

        @Override
        void cleanUp() {
            client.close();
        }
    }

    /** Every key written so far: committers' and members' (for the final fetch). */
    Set<String> keys() {
        return new HashSet<>(nextValue.keySet());
    }
}
