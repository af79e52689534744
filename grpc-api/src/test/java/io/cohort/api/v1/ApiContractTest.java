package io.cohort.api.v1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Freezes the parts of the public contract that other code depends on byte for byte. */
class ApiContractTest {

    /** Kafka's names and numbers; they must never change. */
    private static final Map<String, Integer> KAFKA_ERROR_CODES = kafkaErrorCodes();

    private static Map<String, Integer> kafkaErrorCodes() {
        Map<String, Integer> codes = new LinkedHashMap<>();
        codes.put("NONE", 0);
        codes.put("UNKNOWN_SERVER_ERROR", -1);
        codes.put("UNKNOWN_TOPIC_OR_PARTITION", 3);
        codes.put("NOT_LEADER_OR_FOLLOWER", 6);
        codes.put("REQUEST_TIMED_OUT", 7);
        codes.put("MESSAGE_TOO_LARGE", 10);
        codes.put("OFFSET_METADATA_TOO_LARGE", 12);
        codes.put("NETWORK_EXCEPTION", 13);
        codes.put("COORDINATOR_LOAD_IN_PROGRESS", 14);
        codes.put("COORDINATOR_NOT_AVAILABLE", 15);
        codes.put("NOT_COORDINATOR", 16);
        codes.put("INVALID_TOPIC_EXCEPTION", 17);
        codes.put("RECORD_LIST_TOO_LARGE", 18);
        codes.put("NOT_ENOUGH_REPLICAS", 19);
        codes.put("ILLEGAL_GENERATION", 22);
        codes.put("INCONSISTENT_GROUP_PROTOCOL", 23);
        codes.put("INVALID_GROUP_ID", 24);
        codes.put("UNKNOWN_MEMBER_ID", 25);
        codes.put("INVALID_SESSION_TIMEOUT", 26);
        codes.put("REBALANCE_IN_PROGRESS", 27);
        codes.put("INVALID_COMMIT_OFFSET_SIZE", 28);
        codes.put("TOPIC_AUTHORIZATION_FAILED", 29);
        codes.put("GROUP_AUTHORIZATION_FAILED", 30);
        codes.put("CLUSTER_AUTHORIZATION_FAILED", 31);
        codes.put("UNSUPPORTED_VERSION", 35);
        codes.put("TOPIC_ALREADY_EXISTS", 36);
        codes.put("INVALID_PARTITIONS", 37);
        codes.put("INVALID_REQUEST", 42);
        codes.put("KAFKA_STORAGE_ERROR", 56);
        codes.put("NON_EMPTY_GROUP", 68);
        codes.put("GROUP_ID_NOT_FOUND", 69);
        codes.put("MEMBER_ID_REQUIRED", 79);
        codes.put("GROUP_MAX_SIZE_REACHED", 81);
        codes.put("FENCED_INSTANCE_ID", 82);
        codes.put("GROUP_SUBSCRIBED_TO_TOPIC", 86);
        codes.put("UNSTABLE_OFFSET_COMMIT", 88);
        codes.put("FENCED_MEMBER_EPOCH", 110);
        codes.put("UNRELEASED_INSTANCE_ID", 111);
        codes.put("UNSUPPORTED_ASSIGNOR", 112);
        codes.put("STALE_MEMBER_EPOCH", 113);
        codes.put("INVALID_REGULAR_EXPRESSION", 128);
        return codes;
    }

    @Test
    void testErrorCodesHaveKafkaNamesAndNumbers() {
        Map<String, Integer> actual = new LinkedHashMap<>();
        for (EnumValueDescriptor value : ErrorCode.getDescriptor().getValues()) {
            actual.put(value.getName(), value.getNumber());
        }
        assertEquals(KAFKA_ERROR_CODES, actual);
    }

    @Test
    void testConsumerSubscriptionTopicsIsFieldOneRepeatedString() {
        FieldDescriptor topics = ConsumerSubscription.getDescriptor().findFieldByNumber(1);
        assertEquals("topics", topics.getName());
        assertTrue(topics.isRepeated());
        assertEquals(FieldDescriptor.Type.STRING, topics.getType());
    }

    @Test
    void testConsumerSubscriptionGoldenBytes() {
        // The core's hand-written reader relies on these bytes: tag 0x0a (field 1, length-
        // delimited), then the length, then the UTF-8 topic name, once per topic.
        byte[] bytes = ConsumerSubscription.newBuilder()
            .addTopics("a")
            .addTopics("bc")
            .build()
            .toByteArray();
        assertArrayEquals(new byte[] {0x0a, 0x01, 'a', 0x0a, 0x02, 'b', 'c'}, bytes);
    }

    @Test
    void testReadConsistencyDefaultsToLinearizable() {
        assertEquals(0, ReadConsistency.READ_CONSISTENCY_LINEARIZABLE.getNumber());
        assertEquals(ReadConsistency.READ_CONSISTENCY_LINEARIZABLE,
            OffsetFetchRequest.getDefaultInstance().getConsistency());
        assertEquals(ReadConsistency.READ_CONSISTENCY_LINEARIZABLE,
            DescribeGroupsRequest.getDefaultInstance().getConsistency());
    }

    @Test
    void testEnumsOtherThanErrorCodePrefixTheirValues() {
        List<FileDescriptor> files = List.of(
            CommonProto.getDescriptor(),
            ErrorCodeProto.getDescriptor(),
            ConsumerProtocolProto.getDescriptor(),
            GroupCoordinatorProto.getDescriptor(),
            ClusterAdminProto.getDescriptor(),
            GroupConfigProto.getDescriptor(),
            MembershipProto.getDescriptor(),
            SnapshotProto.getDescriptor());
        for (FileDescriptor file : files) {
            for (EnumDescriptor type : file.getEnumTypes()) {
                if (type.getName().equals("ErrorCode")) {
                    continue;
                }
                String prefix = type.getName().replaceAll("([a-z])([A-Z])", "$1_$2")
                    .toUpperCase(Locale.ROOT) + "_";
                for (EnumValueDescriptor value : type.getValues()) {
                    assertTrue(value.getName().startsWith(prefix), value.getFullName());
                }
            }
        }
    }

    @Test
    void testGroupCoordinatorMethods() {
        assertEquals(
            Set.of("FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup",
                "OffsetCommit", "OffsetFetch", "DescribeGroups", "ListGroups", "DeleteGroups",
                "OffsetDelete", "ConsumerGroupHeartbeat", "ConsumerGroupDescribe"),
            methodNames(GroupCoordinatorGrpc.getServiceDescriptor()));
    }

    @Test
    void testClusterAdminMethods() {
        assertEquals(Set.of("ClusterStatus", "TransferLeadership", "CreateAcls", "DeleteAcls", "DescribeAcls",
                "DescribeGroupConfig", "AlterGroupConfig", "AddNode", "RemoveNode", "HostReplica", "MovePartition",
                "DescribeMembership", "JoinInfo",
                "SaveSnapshot", "CreateTopics", "AlterTopics", "DeleteTopics", "ListTopics"),
            methodNames(ClusterAdminGrpc.getServiceDescriptor()));
    }

    private static Set<String> methodNames(ServiceDescriptor service) {
        return service.getMethods().stream()
            .map(MethodDescriptor::getBareMethodName)
            .collect(Collectors.toCollection(TreeSet::new));
    }
}
