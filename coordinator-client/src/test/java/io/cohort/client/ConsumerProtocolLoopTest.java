package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cohort.api.v1.ClusterAdminGrpc;
import io.cohort.api.v1.ClusterStatusRequest;
import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ConsumerGroupHeartbeatRequest;
import io.cohort.api.v1.ConsumerGroupHeartbeatResponse;
import io.cohort.api.v1.ConsumerTopicPartitions;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.FindCoordinatorRequest;
import io.cohort.api.v1.FindCoordinatorResponse;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.ListTopicsRequest;
import io.cohort.api.v1.ListTopicsResponse;
import io.cohort.api.v1.NodeStatus;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.TopicDescription;
import io.cohort.testsupport.TestPorts;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
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
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fifty consumer-protocol {@link GroupMember}s in one JVM, polled by ONE application thread, over
 * real gRPC against a small scripted coordinator that follows KIP-848's revoke-before-assign rule
 * (a partition goes to its new owner only once its old owner's heartbeat no longer reports it).
 * Not a test of the server (the real one is tested end to end by the cluster tests): of the
 * client's loop with its real threads, routing, topic naming and listener calls. Checks that no
 * partition is ever held by two members' listeners at once, that every partition ends up owned,
 * and that the shared heartbeat executor needs far fewer threads than members.
 */
class ConsumerProtocolLoopTest {
    private static final int PARTITIONS = 64;
    private static final UUID TOPIC_ID = new UUID(0x5eed, 0xcafe);

    private Server server;
    private CohortClient client;
    private final ScriptedCoordinator coordinator = new ScriptedCoordinator();
    private final List<GroupMember> members = new ArrayList<>();
    /** Who the listeners say owns each partition now. */
    private final Map<TopicPartition, String> owners = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        int port = TestPorts.next();
        server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
                .addService(new Admin(port)).addService(coordinator).build().start();
        client = CohortClient.builder().bootstrap("127.0.0.1:" + port).clientId("loop-test").build();
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (GroupMember member : members) {
            member.close(Duration.ofSeconds(5));
        }
        client.close();
        server.shutdownNow().awaitTermination();
    }

    private GroupMember member(String name) {
        GroupMember member = GroupMember.builder(client, "loop").groupProtocol(GroupProtocol.CONSUMER)
                .subscribe(List.of("events")).serverAssignor("uniform").listener(new RebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        for (TopicPartition tp : partitions) {
                            String before = owners.putIfAbsent(tp, name);
                            if (before != null) {
                                violations.add(tp + " assigned to " + name + " while " + before + " holds it");
                            }
                        }
                    }

                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        partitions.forEach(tp -> owners.remove(tp, name));
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        partitions.forEach(tp -> owners.remove(tp, name));
                    }
                }).build();
        members.add(member);
        return member;
    }

    /** Polls every member once, from this one thread. */
    private void pollAll() {
        for (GroupMember member : members) {
            member.poll(Duration.ZERO);
        }
    }

    @Test
    void testFiftyMembersJoinOneByOneWithoutEverSharingAPartition() {
        for (int i = 0; i < 50; i++) {
            member("m" + i);
            pollAll();
        }
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() -> {
            pollAll();
            assertThat(violations).isEmpty();
            return owners.size() == PARTITIONS && coordinator.settled(members.size());
        });
        assertThat(violations).isEmpty();
        Map<String, Integer> counts = new TreeMap<>();
        members.forEach(m -> counts.put(m.memberId(), m.assignment().size()));
        assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(1, 2));
        assertThat(members.stream().mapToInt(m -> m.assignment().size()).sum()).isEqualTo(PARTITIONS);
        long heartbeatThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("cohort-consumer-heartbeat")).count();
        assertThat(heartbeatThreads).as("heartbeat threads for 50 members").isLessThanOrEqualTo(
                ConsumerHeartbeatExecutor.CALL_THREADS + 1);

        // One member leaves: its partitions go to the others, still never two owners at once.
        GroupMember leaving = members.remove(0);
        leaving.close(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
            pollAll();
            assertThat(violations).isEmpty();
            return owners.size() == PARTITIONS && coordinator.settled(members.size());
        });
        assertThat(violations).isEmpty();
        assertThat(coordinator.leaves).containsExactly(leaving.memberId() + "@-1");
    }

    /** One node, one offsets partition, led by itself; the topic registry holds "events". */
    private static final class Admin extends ClusterAdminGrpc.ClusterAdminImplBase {
        private final int port;

        Admin(int port) {
            this.port = port;
        }

        @Override
        public void clusterStatus(ClusterStatusRequest request, StreamObserver<ClusterStatusResponse> observer) {
            observer.onNext(ClusterStatusResponse.newBuilder().setNodeId(1).setPartitionCount(1)
                    .addNodes(NodeStatus.newBuilder().setNodeId(1).setHost("127.0.0.1").setClientPort(port)
                            .setIsSelf(true))
                    .addPartitions(PartitionStatus.newBuilder().setPartitionIndex(0).setLeaderNodeId(1)
                            .setLeaderReady(true))
                    .build());
            observer.onCompleted();
        }

        @Override
        public void listTopics(ListTopicsRequest request, StreamObserver<ListTopicsResponse> observer) {
            observer.onNext(ListTopicsResponse.newBuilder().addTopics(TopicDescription.newBuilder().setName("events")
                    .setTopicId(TopicIdPartition.bytesOf(TOPIC_ID)).setPartitionCount(PARTITIONS)).build());
            observer.onCompleted();
        }
    }

    /**
     * Round-robin targets over the members sorted by id, moved by KIP-848's rule: a partition the
     * coordinator gave a member stays held by it until the coordinator has taken it out of the
     * member's assignment AND a heartbeat of the member reports it no longer owned; only then may
     * another member be given it.
     */
    private final class ScriptedCoordinator extends GroupCoordinatorGrpc.GroupCoordinatorImplBase {
        /** What each member holds: given to it and not yet reported released. */
        private final Map<String, Set<Integer>> held = new HashMap<>();
        private final Map<String, Set<Integer>> reportedOwned = new HashMap<>();
        private final Map<String, Set<Integer>> lastSent = new HashMap<>();
        private final Map<String, Integer> epochs = new HashMap<>();
        final List<String> leaves = new CopyOnWriteArrayList<>();
        private int groupEpoch;

        @Override
        public void findCoordinator(FindCoordinatorRequest request, StreamObserver<FindCoordinatorResponse> observer) {
            observer.onNext(FindCoordinatorResponse.newBuilder().addCoordinators(FindCoordinatorResponse.Coordinator
                    .newBuilder().setKey(request.getGroupIds(0)).setNodeId(1).setHost("127.0.0.1")
                    .setPort(server.getPort())).build());
            observer.onCompleted();
        }

        @Override
        public void consumerGroupHeartbeat(ConsumerGroupHeartbeatRequest request,
                StreamObserver<ConsumerGroupHeartbeatResponse> observer) {
            observer.onNext(answer(request));
            observer.onCompleted();
        }

        private synchronized ConsumerGroupHeartbeatResponse answer(ConsumerGroupHeartbeatRequest request) {
            String member = request.getMemberId();
            ConsumerGroupHeartbeatResponse.Builder response = ConsumerGroupHeartbeatResponse.newBuilder()
                    .setMemberId(member).setHeartbeatIntervalMs(200);
            if (request.getMemberEpoch() < 0) {
                leaves.add(member + "@" + request.getMemberEpoch());
                held.remove(member);
                reportedOwned.remove(member);
                lastSent.remove(member);
                epochs.remove(member);
                groupEpoch++;
                return response.setMemberEpoch(request.getMemberEpoch()).build();
            }
            if (request.getMemberEpoch() == 0) {
                if (!request.hasTopicPartitions() || request.getTopicPartitions().getTopicsCount() != 0
                        || request.getRebalanceTimeoutMs() <= 0 || !request.hasSubscribedTopicNames()) {
                    return response.setErrorCode(ErrorCode.INVALID_REQUEST).build();
                }
                groupEpoch++;
                epochs.put(member, groupEpoch);
                lastSent.remove(member);
                held.put(member, new TreeSet<>());
            } else if (!epochs.containsKey(member)) {
                return response.setErrorCode(ErrorCode.UNKNOWN_MEMBER_ID).build();
            }
            Set<Integer> holding = held.get(member);
            if (request.hasTopicPartitions()) {
                Set<Integer> owned = new HashSet<>();
                for (ConsumerTopicPartitions topic : request.getTopicPartitions().getTopicsList()) {
                    owned.addAll(topic.getPartitionsList());
                }
                reportedOwned.put(member, owned);
                Set<Integer> sent = lastSent.getOrDefault(member, Set.of());
                holding.removeIf(p -> !sent.contains(p) && !owned.contains(p));
            }
            Set<Integer> target = targetOf(member);
            Set<Integer> assignment = new TreeSet<>();
            for (int p : target) {
                boolean heldElsewhere = held.entrySet().stream()
                        .anyMatch(e -> !e.getKey().equals(member) && e.getValue().contains(p));
                if (holding.contains(p) || !heldElsewhere) {
                    assignment.add(p);
                }
            }
            holding.addAll(assignment);
            if (!assignment.equals(lastSent.get(member))) {
                lastSent.put(member, assignment);
                epochs.put(member, groupEpoch);
                response.setAssignment(ConsumerGroupHeartbeatResponse.Assignment.newBuilder().addTopicPartitions(
                        ConsumerTopicPartitions.newBuilder().setTopicId(TopicIdPartition.bytesOf(TOPIC_ID))
                                .addAllPartitions(assignment)));
            }
            return response.setMemberEpoch(epochs.get(member)).build();
        }

        private Set<Integer> targetOf(String member) {
            List<String> sorted = new ArrayList<>(new TreeSet<>(epochs.keySet()));
            int index = sorted.indexOf(member);
            Set<Integer> target = new TreeSet<>();
            for (int p = 0; p < PARTITIONS; p++) {
                if (p % sorted.size() == index) {
                    target.add(p);
                }
            }
            return target;
        }

        /** Every one of {@code count} members reports owning exactly its target. */
        synchronized boolean settled(int count) {
            if (epochs.size() != count) {
                return false;
            }
            for (String member : epochs.keySet()) {
                if (!targetOf(member).equals(reportedOwned.getOrDefault(member, Set.of()))) {
                    return false;
                }
            }
            return true;
        }
    }
}
