package io.cohort.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Error names and numbers are Kafka's and frozen: "the names can be changed but the error code
 * cannot" (Kafka Errors.java). The retriable flags are Kafka's RetriableException classification.
 */
class ErrorCodeTest {
    /** name, numeric code, retriable: every ErrorCode, frozen. */
    private static final Object[][] TABLE = {
        {"UNKNOWN_SERVER_ERROR", -1, false},
        {"NONE", 0, false},
        {"UNKNOWN_TOPIC_OR_PARTITION", 3, true},
        {"NOT_LEADER_OR_FOLLOWER", 6, true},
        {"REQUEST_TIMED_OUT", 7, true},
        {"MESSAGE_TOO_LARGE", 10, false},
        {"OFFSET_METADATA_TOO_LARGE", 12, false},
        {"NETWORK_EXCEPTION", 13, true},
        {"COORDINATOR_LOAD_IN_PROGRESS", 14, true},
        {"COORDINATOR_NOT_AVAILABLE", 15, true},
        {"NOT_COORDINATOR", 16, true},
        {"INVALID_TOPIC_EXCEPTION", 17, false},
        {"RECORD_LIST_TOO_LARGE", 18, false},
        {"NOT_ENOUGH_REPLICAS", 19, true},
        {"ILLEGAL_GENERATION", 22, false},
        {"INCONSISTENT_GROUP_PROTOCOL", 23, false},
        {"INVALID_GROUP_ID", 24, false},
        {"UNKNOWN_MEMBER_ID", 25, false},
        {"INVALID_SESSION_TIMEOUT", 26, false},
        {"REBALANCE_IN_PROGRESS", 27, false},
        {"INVALID_COMMIT_OFFSET_SIZE", 28, false},
        {"TOPIC_AUTHORIZATION_FAILED", 29, false},
        {"GROUP_AUTHORIZATION_FAILED", 30, false},
        {"CLUSTER_AUTHORIZATION_FAILED", 31, false},
        {"UNSUPPORTED_VERSION", 35, false},
        {"TOPIC_ALREADY_EXISTS", 36, false},
        {"INVALID_PARTITIONS", 37, false},
        {"INVALID_REQUEST", 42, false},
        {"KAFKA_STORAGE_ERROR", 56, true},
        {"NON_EMPTY_GROUP", 68, false},
        {"GROUP_ID_NOT_FOUND", 69, false},
        {"MEMBER_ID_REQUIRED", 79, false},
        {"GROUP_MAX_SIZE_REACHED", 81, false},
        {"FENCED_INSTANCE_ID", 82, false},
        {"GROUP_SUBSCRIBED_TO_TOPIC", 86, false},
        {"UNSTABLE_OFFSET_COMMIT", 88, true},
        {"FENCED_MEMBER_EPOCH", 110, false},
        {"UNRELEASED_INSTANCE_ID", 111, false},
        {"UNSUPPORTED_ASSIGNOR", 112, false},
        {"STALE_MEMBER_EPOCH", 113, false},
        {"INVALID_REGULAR_EXPRESSION", 128, false},
    };

    @Test
    @DisplayName("every error's name and number are frozen (a table of all of them)")
    void testNamesAndCodesFrozen() {
        Map<String, Integer> expected = new LinkedHashMap<>();
        for (Object[] row : TABLE) {
            expected.put((String) row[0], (Integer) row[1]);
        }
        Map<String, Integer> actual = new LinkedHashMap<>();
        for (ErrorCode error : ErrorCode.values()) {
            actual.put(error.name(), error.code());
        }
        // Exactly these errors: none added, removed, renamed or renumbered.
        assertThat(actual).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    @DisplayName("the retriable flags follow Kafka")
    void testRetriableFlags() {
        for (Object[] row : TABLE) {
            assertThat(ErrorCode.valueOf((String) row[0]).retriable()).as("%s retriable", row[0]).isEqualTo(row[2]);
        }
    }

    @Test
    @DisplayName("codes are unique and forCode(code()) round-trips for every error")
    void testForCodeRoundTrip() {
        Set<Integer> codes = Arrays.stream(ErrorCode.values()).map(ErrorCode::code).collect(Collectors.toSet());
        assertThat(codes).hasSize(ErrorCode.values().length);
        for (ErrorCode error : ErrorCode.values()) {
            assertThat(ErrorCode.forCode(error.code())).isSameAs(error);
        }
    }

    @Test
    @DisplayName("an unknown code maps to UNKNOWN_SERVER_ERROR")
    void testUnknownCode() {
        for (int code : new int[] {1, 2, 20, 87, 114, 9_999, -2, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertThat(ErrorCode.forCode(code)).as("code %s", code).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
        }
    }
}
