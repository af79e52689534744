package io.cohort.bench;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclBindingFilter;
import io.cohort.api.v1.AclOperation;
import io.cohort.api.v1.AclPatternType;
import io.cohort.api.v1.AclPermission;
import io.cohort.api.v1.AclResourceType;
import io.cohort.api.v1.DescribeAclsRequest;
import io.cohort.api.v1.ListTopicsRequest;
import io.cohort.client.CohortClient;
import io.cohort.client.GroupMember;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.RebalanceListener;
import io.cohort.client.TopicPartition;
import io.cohort.client.assignor.RangeAssignor;
import io.cohort.cluster.ProcessCluster;
import io.cohort.cluster.ProcessClusterBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;

/**
 * A fresh 3-node Cohort cluster of real node JVMs (ProcessCluster) driven through the Java client;
 * plaintext, with {@code --tls} TLS on the client ports, or secured ({@code --vs-secure}'s second
 * system): mutual TLS on the client and Raft ports, the authorizer on, the workload's principal
 * allowed by an ACL.
 */
final class CohortTarget implements Target {
    /** The names of {@code --registry-topics}' topics: {@value}N. */
    private static final String REGISTRY_TOPIC_PREFIX = "bench-registry-";
    /** Topics per CreateTopics call when filling the registry. */
    private static final int REGISTRY_BATCH = 500;

    private final ProcessCluster cluster;
    private final CohortClient admin;
    private final String bootstrap;
    private final List<String> jvmArgs;
    private final Map<String, String> settings;
    private final BenchOptions options;
    private volatile boolean keepFiles;

    /** The system name of a secured cluster's results. */
    static final String SECURED = "cohort-secure";
    /** The system name of a {@code --vs-set} cluster's results: the run's settings plus the variant's. */
    static final String VARIANT = "cohort-variant";
    /** The workloads' groups all start with this: the secured cluster's ACL allows READ on the prefix. */
    private static final String GROUP_PREFIX = "bench-";

    /** The run's certificates with {@code --tls} or secured, else null. */
    private final BenchTls tls;
    private final boolean secured;
    private final String system;

    private CohortTarget(ProcessCluster cluster, List<String> jvmArgs, Map<String, String> settings,
            BenchOptions options, BenchTls tls, String system) {
        this.tls = tls;
        this.system = system;
        this.secured = system.equals(SECURED);
        this.cluster = cluster;
        this.jvmArgs = jvmArgs;
        this.settings = settings;
        this.options = options;
        this.bootstrap = cluster.nodeIds().stream().map(i -> "127.0.0.1:" + cluster.clientPort(i))
                .collect(Collectors.joining(","));
        this.admin = (tls == null ? CohortClient.builder().bootstrap(bootstrap)
                : CohortClient.builder().bootstrap(bootstrap).tls(tls.ca(), tls.adminCert(), tls.adminKey()))
                .clientId("bench-admin").build();
    }

    /**
     * Starts 3 nodes with {@code heap} (e.g. -Xmx512m) and the benchmark's JVM options, waits until
     * every partition is led by its preferred node (leaders spread as in production).
     */
    static CohortTarget start(BenchOptions options, String name, String heap, Map<String, String> extraSettings) {
        return start(options, name, heap, extraSettings, "cohort", options.partitionCounts().get(0));
    }

    /**
     * As {@link #start(BenchOptions, String, String, Map)} with {@code partitions} offsets partitions,
     * for {@code system}: "cohort", {@link #SECURED} (see the class comment) or {@link #VARIANT} (the
     * run's settings plus {@code --vs-set}'s).
     */
    static CohortTarget start(BenchOptions options, String name, String heap, Map<String, String> extraSettings,
            String system, int partitions) {
        boolean secured = system.equals(SECURED);
        Map<String, String> settings = new LinkedHashMap<>(options.cohortSettings());
        settings.putAll(extraSettings);
        if (system.equals(VARIANT)) {
            settings.putAll(options.variantSettings());
        }
        BenchTls tls = options.tls() || secured ? BenchTls.generate(options.workDir().resolve(name + "-certs")) : null;
        if (tls != null) {
            settings.putAll(hasAuthorizer(options, secured) ? tls.securedNodeSettings() : tls.nodeSettings());
        }
        // ProcessCluster's defaults (C1 only, serial GC) suit tests, not measurements: restore the JVM's
        // own defaults (C2, G1 on this machine), then the heap and any options given on the command line.
        List<String> jvmArgs = new ArrayList<>(List.of("-XX:TieredStopAtLevel=4", "-XX:-UseSerialGC", "-XX:+UseG1GC", heap));
        jvmArgs.addAll(options.cohortJvmArgs());
        if (system.equals(VARIANT)) {
            jvmArgs.addAll(options.variantJvmArgs());
        }
        ProcessClusterBuilder builder = ProcessCluster.builder().nodes(options.nodes()).partitions(partitions)
                .clusterId("cohort-bench").name(name)
                .serverJar(system.equals(VARIANT) && options.variantServerJar() != null
                        ? options.variantServerJar() : options.serverJar())
                .baseDir(options.workDir()).startTimeout(Duration.ofSeconds(120))
                .jvmArgs(jvmArgs.toArray(String[]::new))
                .commandPrefix(options.nodeCommandPrefix())
                // The nodes' own default, which the test harness turns off: the bench measures what is deployed
                // (--set node.warmup.enabled=false still turns it off).
                .leaderWarmup();
        settings.forEach(builder::set);
        if (tls != null) {
            builder.clientCredentials(tls.adminCredentials());
        }
        if (secured && options.securedWith("raft-tls")) {
            builder.raftTls();
        }
        Machine.log("cohort: starting " + options.nodes() + " nodes (" + String.join(" ", jvmArgs) + ", partitions " + partitions
                + (settings.isEmpty() ? "" : ", " + settings) + ")");
        ProcessCluster cluster = builder.start();
        try {
            cluster.awaitPreferredLeaders(Duration.ofSeconds(120));
        } catch (RuntimeException | AssertionError e) {
            cluster.close();
            throw new IllegalStateException("cohort cluster did not settle its leaders: " + e.getMessage(), e);
        }
        Machine.log("cohort: serving at " + cluster.runDir());
        CohortTarget target = new CohortTarget(cluster, jvmArgs, settings, options, tls, system);
        try {
            if (hasAuthorizer(options, secured)) {
                target.allowWorkloadGroups();
            }
            if (options.registryTopics() > 0) {
                target.fillRegistry(options.registryTopics());
            }
        } catch (RuntimeException | AssertionError e) {
            target.close();
            throw e;
        }
        return target;
    }

    /**
     * As the super user, ALLOW the workload principal READ (which implies DESCRIBE) on every group
     * named {@value #GROUP_PREFIX}*, then waits until every node has applied it (ACLs replicate
     * through partition 0's log): a measured commit is then checked against a real ACL, not refused.
     */
    private void allowWorkloadGroups() {
        AclBinding allow = AclBinding.newBuilder().setPrincipal(BenchTls.CLIENT_PRINCIPAL).setHost("*")
                .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_GROUP).setResourceName(GROUP_PREFIX)
                .setPatternType(AclPatternType.ACL_PATTERN_TYPE_PREFIXED).setOperation(AclOperation.ACL_OPERATION_READ)
                .setPermission(AclPermission.ACL_PERMISSION_ALLOW).build();
        admin.createAcls(List.of(allow));
        DescribeAclsRequest everything = DescribeAclsRequest.newBuilder().setFilter(AclBindingFilter.newBuilder()
                .setResourceType(AclResourceType.ACL_RESOURCE_TYPE_ANY).setPatternType(AclPatternType.ACL_PATTERN_TYPE_ANY)
                .setOperation(AclOperation.ACL_OPERATION_ANY).setPermission(AclPermission.ACL_PERMISSION_ANY)).build();
        awaitEveryNode("the workload's ACL",
                id -> cluster.admin(id).describeAcls(everything).getAclsList().contains(allow));
        Machine.log("cohort: secured; " + BenchTls.CLIENT_PRINCIPAL + " may READ groups " + GROUP_PREFIX + "*");
    }

    /**
     * Creates {@code topics} topics of one partition ({@value #REGISTRY_TOPIC_PREFIX}N) and waits until
     * every node's replica of the registry holds them: the registry a consumer-protocol heartbeat's
     * regex is matched against.
     */
    private void fillRegistry(int topics) {
        for (int first = 0; first < topics; first += REGISTRY_BATCH) {
            List<io.cohort.api.v1.CreateTopicsRequest.NewTopic> batch = new ArrayList<>();
            for (int i = first; i < Math.min(topics, first + REGISTRY_BATCH); i++) {
                batch.add(io.cohort.api.v1.CreateTopicsRequest.NewTopic.newBuilder()
                        .setName(String.format("%s%06d", REGISTRY_TOPIC_PREFIX, i)).setPartitionCount(1).build());
            }
            admin.createTopics(batch, false).getResultsList().forEach(this::throwUnlessCreated);
        }
        awaitTopicOnEveryNode(String.format("%s%06d", REGISTRY_TOPIC_PREFIX, topics - 1));
        Machine.log("cohort: " + topics + " topics in the registry");
    }

    private void throwUnlessCreated(io.cohort.api.v1.TopicResult result) {
        if (result.getErrorCode() != io.cohort.api.v1.ErrorCode.NONE
                && result.getErrorCode() != io.cohort.api.v1.ErrorCode.TOPIC_ALREADY_EXISTS) {
            throw new IllegalStateException("cohort: creating topic " + result.getName() + ": " + result);
        }
    }

    /**
     * Waits until every node's replica of the topic registry (partition 0's applied state) holds
     * {@code topic}, and so every topic created before it (records apply in log order).
     */
    private void awaitTopicOnEveryNode(String topic) {
        ListTopicsRequest ask = ListTopicsRequest.newBuilder().addNames(topic).build();
        awaitEveryNode("topic " + topic, id -> cluster.admin(id).withDeadlineAfter(5, TimeUnit.SECONDS)
                .listTopics(ask).getTopicsList().stream().anyMatch(t -> t.getName().equals(topic)));
    }

    /**
     * Waits until {@code applied} holds on every node (within 60 s): what partition 0's log carries
     * (ACLs, topics) is applied on each node in its own time. A node that does not answer has not.
     */
    private void awaitEveryNode(String what, IntPredicate applied) {
        cluster.awaitCondition(Duration.ofSeconds(60), "every node applied " + what,
                () -> cluster.nodeIds().stream().allMatch(id -> {
                    try {
                        return applied.test(id);
                    } catch (RuntimeException e) {
                        return false;
                    }
                }), cluster::describeStatuses);
    }

    ProcessCluster cluster() {
        return cluster;
    }

    CohortClient admin() {
        return admin;
    }

    String bootstrap() {
        return bootstrap;
    }

    @Override
    public String system() {
        return system;
    }

    @Override
    public Collection<Integer> nodeIds() {
        return cluster.nodeIds();
    }

    @Override
    public List<Long> nodePids() {
        return cluster.runningNodeIds().stream().map(cluster::pid).toList();
    }

    CohortClient newClient(String clientId) {
        return clientBuilder().clientId(clientId).build();
    }

    /** A client builder for this cluster, with the run's client certificate under {@code --tls}. */
    private CohortClient.Builder clientBuilder() {
        CohortClient.Builder builder = CohortClient.builder().bootstrap(bootstrap);
        return tls == null ? builder : builder.tls(tls.ca(), tls.clientCert(), tls.clientKey());
    }

    @Override
    public Committer committer(String groupId) {
        return new CohortCommitter(newClient("bench-" + groupId), groupId,
                options.protocols().equals(List.of(CONSUMER)), options.registryTopics() > 0);
    }

    @Override
    public long fetchCommitted(String groupId) {
        OffsetAndMetadata committed = admin.fetchOffsets(groupId, List.of(CohortCommitter.TP)).get(CohortCommitter.TP);
        return committed == null ? -1 : committed.offset();
    }

    @Override
    public int coordinatorOf(String groupId) {
        return admin.findCoordinator(groupId).nodeId();
    }

    @Override
    public void kill(int nodeId) {
        cluster.kill(nodeId);
    }

    @Override
    public void restartAndCatchUp(int nodeId) {
        cluster.start(nodeId);
        cluster.awaitCaughtUp(nodeId, Duration.ofSeconds(options.catchUpTimeoutS()));
    }

    @Override
    public void startAll() {
        cluster.startAll();
    }

    @Override
    public void awaitAllCaughtUp() {
        for (int nodeId : cluster.nodeIds()) {
            cluster.awaitCaughtUp(nodeId, Duration.ofSeconds(options.catchUpTimeoutS()));
        }
    }

    /**
     * Leaders move back to their preferred nodes (>= 5 s after an election), so that the next kill
     * meets the same placement as the first.
     */
    @Override
    public boolean settleAfterRestart() {
        try {
            cluster.awaitPreferredLeaders(Duration.ofSeconds(60));
            return true;
        } catch (AssertionError e) {
            Machine.log("cohort: leaders not back on their preferred nodes within 60 s; going on");
            return false;
        }
    }

    @Override
    public void prepareTopic(String topic, int partitions) {
        // Classic members are given the partition count; consumer-protocol groups are assigned by the
        // coordinator from the topic registry (partition 0's replicated state).
        throwUnlessCreated(admin.createTopics(List.of(io.cohort.api.v1.CreateTopicsRequest.NewTopic.newBuilder()
                .setName(topic).setPartitionCount(partitions).build()), false).getResults(0));
        // Every node's replica of the registry applies it before members ask.
        awaitTopicOnEveryNode(topic);
    }

    @Override
    public Member member(String groupId, String topic, int partitions, int index, GenerationTracker tracker,
            String protocol) {
        CohortClient client = newClient("bench-member-" + index);
        if (protocol.equals(CONSUMER)) {
            return consumerMember(client, groupId, topic, index, tracker);
        }
        AtomicReference<GroupMember> self = new AtomicReference<>();
        GroupMember member = GroupMember.builder(client, groupId)
                .subscribe(List.of(topic))
                .topicMetadata(Map.of(topic, partitions))
                .assignors(List.of(new RangeAssignor()))
                // Kafka's consumer defaults, so both systems' members behave alike (Cohort's own
                // default heartbeat is a third of the session, 15 s).
                .sessionTimeout(Duration.ofSeconds(45))
                .heartbeatInterval(Duration.ofSeconds(3))
                .rebalanceTimeout(Duration.ofMinutes(5))
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> added) {
                        GroupMember m = self.get();
                        tracker.assigned(index, m.generationId(), !m.assignment().isEmpty());
                    }

                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        tracker.revoked(index);
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        tracker.revoked(index);
                    }
                })
                .build();
        self.set(member);
        return pollLoop(member, client, () -> { });
    }

    /**
     * A KIP-848 member: server assignor "uniform", the coordinator's heartbeat interval (default 5 s,
     * as Kafka's) and session; it reports its member epoch and partitions from its listener and after
     * every poll.
     */
    private Member consumerMember(CohortClient client, String groupId, String topic, int index, GenerationTracker tracker) {
        AtomicReference<GroupMember> self = new AtomicReference<>();
        java.util.function.Consumer<String> report = source -> {
            GroupMember m = self.get();
            tracker.owns(index, m.generationId(), partitionNumbers(m.assignment(), Set.of()), source);
        };
        GroupMember member = GroupMember.builder(client, groupId)
                .subscribe(List.of(topic))
                .groupProtocol(io.cohort.client.GroupProtocol.CONSUMER)
                .serverAssignor("uniform")
                .rebalanceTimeout(Duration.ofMinutes(5))
                .listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> added) {
                        report.accept("listener");
                    }

                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        GroupMember m = self.get();
                        tracker.owns(index, m.generationId(), partitionNumbers(m.assignment(), partitions), "listener");
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        tracker.owns(index, -1, Set.of(), "listener");
                    }
                })
                .build();
        self.set(member);
        return pollLoop(member, client, () -> report.accept("poll"));
    }

    private static Set<Integer> partitionNumbers(Collection<TopicPartition> owned, Collection<TopicPartition> minus) {
        Set<Integer> numbers = new java.util.HashSet<>();
        for (TopicPartition tp : owned) {
            if (!minus.contains(tp)) {
                numbers.add(tp.partition());
            }
        }
        return numbers;
    }

    /** The member's poll loop; {@code afterPoll} runs after every poll. */
    private Member pollLoop(GroupMember member, CohortClient client, Runnable afterPoll) {
        long pollMs = options.memberPollMs();
        return stop -> {
            try {
                while (!stop.get()) {
                    long t0 = System.nanoTime();
                    member.poll(Duration.ofMillis(pollMs));
                    afterPoll.run();
                    // GroupMember.poll returns at once when nothing is to be done (no records to wait
                    // for, unlike KafkaConsumer.poll): pace the loop like a consumer polling every pollMs.
                    // A KafkaConsumer blocked in poll wakes when its heartbeat thread learns of a
                    // rebalance and rejoins at once; awaitRebalanceNeeded does the same here, where a
                    // sleep would add up to pollMs to every rebalance.
                    long left = pollMs - (System.nanoTime() - t0) / 1_000_000;
                    if (left > 0 && !stop.get()) {
                        member.awaitRebalanceNeeded(Duration.ofMillis(left));
                    }
                }
            } catch (io.cohort.client.InterruptException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    member.close(Duration.ofSeconds(5));
                } catch (RuntimeException e) {
                    // Leaving is not measured.
                }
                client.close();
            }
        };
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("nodes", cluster.size());
        d.put("partitions", cluster.partitions());
        d.put("node_jvm_args", String.join(" ", jvmArgs));
        if (system.equals(VARIANT) && options.variantServerJar() != null) {
            d.put("server_jar", options.variantServerJar().toString());
        } else if (!system.equals(VARIANT)
                && !options.serverJar().endsWith(java.nio.file.Path.of("coordinator-server/target/cohort-server.jar"))) {
            // --server-jar: git_rev names the tree the bench ran from, not the nodes' build.
            d.put("server_jar", options.serverJar().toString());
        }
        if (options.cpuSplit() != null) {
            options.cpuSplit().describeInto(d);
        }
        if (!settings.isEmpty()) {
            d.put("settings", new LinkedHashMap<>(settings));
        }
        if (cluster.raftTls()) {
            // raft.tls.* are the harness's own per-node files, not in settings.
            d.put("raft_tls", "mutual, peer CA");
        }
        if (hasAuthorizer(options, secured)) {
            d.put("acls", "ALLOW " + BenchTls.CLIENT_PRINCIPAL + " READ GROUP PREFIXED " + GROUP_PREFIX);
        }
        return d;
    }

    /** Whether a cluster runs the authorizer: only a secured one, and only if --secure-parts has it. */
    private static boolean hasAuthorizer(BenchOptions options, boolean secured) {
        return secured && options.securedWith("authorizer");
    }

    @Override
    public void keepFiles() {
        keepFiles = true;
    }

    /** Every node's data directory (Raft logs and snapshots). */
    Path dataDir(int nodeId) {
        return cluster.dataDir(nodeId);
    }

    @Override
    public void close() {
        admin.close();
        cluster.close();
        if (!options.keep() && !keepFiles) {
            try {
                cluster.deleteFiles();
            } catch (RuntimeException e) {
                Machine.log("could not delete " + cluster.runDir() + ": " + e.getMessage());
            }
        } else {
            Machine.log("cohort: files kept in " + cluster.runDir());
        }
    }
}
