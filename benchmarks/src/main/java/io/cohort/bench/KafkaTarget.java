package io.cohort.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** A fresh 3-node Kafka KRaft cluster (see {@link KafkaCluster}) driven through Kafka's own clients. */
final class KafkaTarget implements Target {
    private static final TopicPartition TP = new TopicPartition(COMMIT_TOPIC, 0);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";

    private final KafkaCluster cluster;
    private final Admin admin;
    private final BenchOptions options;
    private volatile boolean keepFiles;

    private KafkaTarget(KafkaCluster cluster, BenchOptions options) {
        this.cluster = cluster;
        this.options = options;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "bench-admin");
        this.admin = Admin.create(p);
    }

    /**
     * Formats and starts 3 combined broker+controller nodes, then waits until all 3 brokers are
     * registered and the offsets topic exists with all 3 replicas in sync (it is created by the
     * first group request, which the benchmark sends here, not in a measured window).
     */
    static KafkaTarget start(BenchOptions options, String name) throws Exception {
        Path runDir = options.workDir().toAbsolutePath().resolve(name + "-" + BenchMain.RUN_ID + "-" + System.nanoTime() % 100000);
        KafkaCluster cluster = new KafkaCluster(options.kafkaClasspath(), options.kafkaJvmArgs(), options.nodeCommandPrefix(), runDir,
                Uuid.randomUuid().toString());
        Machine.log("kafka: formatting and starting 3 KRaft nodes (" + String.join(" ", options.kafkaJvmArgs()) + ") in "
                + runDir);
        KafkaTarget target = null;
        try {
            cluster.formatAndStartAll(180_000);
            target = new KafkaTarget(cluster, options);
            target.awaitReady();
            Machine.log("kafka: serving at " + cluster.bootstrap());
            return target;
        } catch (Exception | Error e) {
            if (target != null) {
                target.keepFiles = true;
                target.close();
            } else {
                cluster.close();
            }
            throw e;
        }
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size() < 3) {
            checkDeadline(deadline, "3 registered brokers");
            Machine.sleep(200);
        }
        // Kafka 4.x refuses commits for partitions of topics it does not know
        // (UNKNOWN_TOPIC_OR_PARTITION): the committers' topic must exist.
        createTopic(COMMIT_TOPIC, 1, (short) 3, deadline);
        // The first commit creates __consumer_offsets (50 partitions, replication 3).
        try (Committer warm = committer("bench-ready")) {
            warm.commit(1);
        }
        awaitOffsetsTopicInSync(deadline);
    }

    private void awaitOffsetsTopicInSync(long deadline) throws Exception {
        while (true) {
            try {
                TopicDescription d = admin.describeTopics(List.of(OFFSETS_TOPIC)).allTopicNames()
                        .get(30, TimeUnit.SECONDS).get(OFFSETS_TOPIC);
                boolean inSync = d.partitions().size() == 50 && d.partitions().stream().allMatch(p ->
                        p.leader() != null && !p.leader().isEmpty() && p.isr().size() == p.replicas().size()
                                && p.replicas().size() == 3);
                if (inSync) {
                    return;
                }
            } catch (ExecutionException e) {
                // Not there yet.
            }
            checkDeadline(deadline, "every partition of " + OFFSETS_TOPIC + " with 3 in-sync replicas");
            Machine.sleep(200);
        }
    }

    private static void checkDeadline(long deadline, String what) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("kafka: timed out waiting for " + what);
        }
    }

    @Override
    public String system() {
        return "kafka";
    }

    @Override
    public Collection<Integer> nodeIds() {
        return cluster.nodeIds();
    }

    @Override
    public List<Long> nodePids() {
        return cluster.pids();
    }

    private Properties consumerProps(String groupId, String clientId) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        // The classic group protocol: the one Cohort implements and the anchor measured.
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    @Override
    public Committer committer(String groupId) {
        // No subscribe/assign: commits carry generation -1 and no member id, as Cohort's do.
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps(groupId, "bench-" + groupId));
        return new Committer() {
            @Override
            public void commit(long offset) {
                consumer.commitSync(Map.of(TP, new OffsetAndMetadata(offset)));
            }

            @Override
            public long fetch() {
                OffsetAndMetadata committed = consumer.committed(Set.of(TP)).get(TP);
                return committed == null ? -1 : committed.offset();
            }

            @Override
            public void close() {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            }
        };
    }

    @Override
    public long fetchCommitted(String groupId) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
        OffsetAndMetadata committed = offsets.get(TP);
        return committed == null ? -1 : committed.offset();
    }

    @Override
    public int coordinatorOf(String groupId) throws Exception {
        Node coordinator = admin.describeClassicGroups(List.of(groupId)).all().get(30, TimeUnit.SECONDS)
                .get(groupId).coordinator();
        return coordinator.id();
    }

    @Override
    public Map<String, Object> beforeKill(int nodeId) throws Exception {
        Map<String, Object> facts = new LinkedHashMap<>();
        int controller = admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
        facts.put("kraft_leader", controller);
        facts.put("killed_was_kraft_leader", controller == nodeId);
        return facts;
    }

    @Override
    public void kill(int nodeId) throws Exception {
        cluster.kill(nodeId);
    }

    /** Restarts the broker; caught up = it is registered again and every offsets partition has 3 in-sync replicas. */
    @Override
    public void restartAndCatchUp(int nodeId) throws Exception {
        cluster.start(nodeId, 180_000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.catchUpTimeoutS());
        awaitRegistered(nodeId, deadline);
        awaitOffsetsTopicInSync(deadline);
    }

    private void awaitRegistered(int nodeId, long deadline) throws Exception {
        while (admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().noneMatch(n -> n.id() == nodeId)) {
            checkDeadline(deadline, "broker " + nodeId + " registered again");
            Machine.sleep(200);
        }
    }

    @Override
    public void startAll() throws Exception {
        cluster.startAll(180_000);
    }

    /** Caught up = every broker registered again and every offsets partition has 3 in-sync replicas. */
    @Override
    public void awaitAllCaughtUp() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.catchUpTimeoutS());
        for (int nodeId : nodeIds()) {
            awaitRegistered(nodeId, deadline);
        }
        awaitOffsetsTopicInSync(deadline);
    }

    @Override
    public void prepareTopic(String topic, int partitions) throws Exception {
        // Replication 1: only the group coordinator is measured; the topic just has to exist.
        createTopic(topic, partitions, (short) 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(120));
        // Let every broker's metadata cache learn the topic before consumers ask for it. A fixed second:
        // the AdminClient sends describeTopics to a broker of its choosing, so it cannot ask each one
        // (CohortTarget asks each node's registry).
        Machine.sleep(1000);
    }

    private void createTopic(String topic, int partitions, short replication, long deadline) throws Exception {
        try {
            admin.createTopics(List.of(new NewTopic(topic, partitions, replication))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        while (true) {
            try {
                List<TopicPartitionInfo> ps = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(30, TimeUnit.SECONDS).get(topic).partitions();
                if (ps.size() == partitions && ps.stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()
                        && p.isr().size() == replication)) {
                    return;
                }
            } catch (ExecutionException e) {
                // Not known yet.
            }
            checkDeadline(deadline, "topic " + topic + " with " + partitions + " led partitions");
            Machine.sleep(200);
        }
    }

    @Override
    public Member member(String groupId, String topic, int partitions, int index, GenerationTracker tracker,
            String protocol) {
        if (protocol.equals(CONSUMER)) {
            return consumerMember(groupId, topic, index, tracker);
        }
        Properties p = consumerProps(groupId, "bench-member-" + index);
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                org.apache.kafka.clients.consumer.RangeAssignor.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        // Kafka's defaults, stated: session 45 s, heartbeat 3 s, max.poll.interval 5 min.
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "45000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "300000");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
        long pollMs = options.memberPollMs();
        return stop -> {
            try {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> added) {
                        tracker.assigned(index, consumer.groupMetadata().generationId(), !consumer.assignment().isEmpty());
                    }

                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        tracker.revoked(index);
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        tracker.revoked(index);
                    }
                });
                while (!stop.get()) {
                    consumer.poll(Duration.ofMillis(pollMs));
                }
            } catch (org.apache.kafka.common.errors.InterruptException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
                } catch (RuntimeException e) {
                    // Leaving is not measured.
                }
            }
        };
    }

    /**
     * A KIP-848 member (group.protocol=consumer, group.remote.assignor=uniform; the broker's
     * heartbeat interval 5 s and session 45 s, Kafka's defaults, which the client may not set); it
     * reports its member epoch and partitions from its listener and after every poll.
     */
    private Member consumerMember(String groupId, String topic, int index, GenerationTracker tracker) {
        Properties p = consumerProps(groupId, "bench-member-" + index);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "uniform");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "300000");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
        long pollMs = options.memberPollMs();
        return stop -> {
            try {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> added) {
                        report(Set.of());
                    }

                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        report(partitions);
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        tracker.owns(index, -1, Set.of(), "listener");
                    }

                    private void report(Collection<TopicPartition> minus) {
                        Set<Integer> numbers = new HashSet<>();
                        for (TopicPartition tp : consumer.assignment()) {
                            if (!minus.contains(tp)) {
                                numbers.add(tp.partition());
                            }
                        }
                        tracker.owns(index, consumer.groupMetadata().generationId(), numbers, "listener");
                    }
                });
                while (!stop.get()) {
                    consumer.poll(Duration.ofMillis(pollMs));
                    Set<Integer> numbers = new HashSet<>();
                    for (TopicPartition tp : consumer.assignment()) {
                        numbers.add(tp.partition());
                    }
                    tracker.owns(index, consumer.groupMetadata().generationId(), numbers, "poll");
                }
            } catch (org.apache.kafka.common.errors.InterruptException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
                } catch (RuntimeException e) {
                    // Leaving is not measured.
                }
            }
        };
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("nodes", 3);
        d.put("kafka_version", cluster.brokerVersion());
        d.put("node_jvm_args", String.join(" ", options.kafkaJvmArgs()));
        if (options.cpuSplit() != null) {
            options.cpuSplit().describeInto(d);
        }
        d.put("config", "KRaft combined broker+controller, offsets.topic.replication.factor=3, "
                + "offsets.topic.num.partitions=50, min.insync.replicas=2, group.initial.rebalance.delay.ms=0");
        return d;
    }

    @Override
    public void keepFiles() {
        keepFiles = true;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
        cluster.close();
        if (options.keep() || keepFiles) {
            Machine.log("kafka: files kept in " + cluster.runDir());
        } else {
            KafkaCluster.deleteTree(cluster.runDir());
        }
    }

    static List<String> defaultJvmArgs() {
        // kafka-server-start.sh's heap (-Xmx1G -Xms1G) and kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS.
        return new ArrayList<>(List.of("-Xmx1g", "-Xms1g", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true"));
    }
}
