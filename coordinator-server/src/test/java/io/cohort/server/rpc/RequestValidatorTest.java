package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.SyncGroupRequest;
import io.cohort.server.rpc.RequestValidator.MalformedRequestException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The limits at their edges; the service tests check how a malformed request is answered. */
class RequestValidatorTest {

    private static JoinGroupRequest.Builder join() {
        return JoinGroupRequest.newBuilder().setGroupId("g").setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(-1)
                .setProtocolType("consumer");
    }

    @Test
    void testEveryMintedMemberIdIsAccepted() {
        String longestClientId = "c".repeat(RequestLimits.MAX_CLIENT_ID_LENGTH);
        String minted = longestClientId + "-" + UUID.randomUUID();
        assertThatCode(() -> RequestValidator.throwIfMalformed(join().setClientId(longestClientId).setMemberId(minted)
                .build())).doesNotThrowAnyException();
        assertThatThrownBy(() -> RequestValidator.throwIfMalformed(join().setMemberId(minted + "x").build()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("member_id");
        assertThatThrownBy(() -> RequestValidator.throwIfMalformed(join().setClientId(longestClientId + "c").build()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("client_id");
    }

    @Test
    void testProtocolMetadataUpToTheLimitIsAccepted() {
        int half = RequestLimits.MAX_PROTOCOL_METADATA_BYTES / 2;
        JoinGroupRequest atLimit = join()
                .addProtocols(protocol("range", half))
                .addProtocols(protocol("sticky", RequestLimits.MAX_PROTOCOL_METADATA_BYTES - half))
                .build();
        assertThatCode(() -> RequestValidator.throwIfMalformed(atLimit)).doesNotThrowAnyException();
        JoinGroupRequest overLimit = atLimit.toBuilder().addProtocols(protocol("rr", 1)).build();
        assertThatThrownBy(() -> RequestValidator.throwIfMalformed(overLimit))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("metadata");
    }

    @Test
    void testAssignmentUpToTheLimitIsAccepted() {
        SyncGroupRequest.Builder sync = SyncGroupRequest.newBuilder().setGroupId("g").setMemberId("m");
        assertThatCode(() -> RequestValidator.throwIfMalformed(sync.clone().addAssignments(assignment("m",
                RequestLimits.MAX_ASSIGNMENT_BYTES)).build())).doesNotThrowAnyException();
        assertThatThrownBy(() -> RequestValidator.throwIfMalformed(sync.clone().addAssignments(assignment("m",
                RequestLimits.MAX_ASSIGNMENT_BYTES + 1)).build()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("assignment of member 'm'");
    }

    @Test
    void testRebalanceTimeoutMinusOneIsTheOnlyNegativeAccepted() {
        assertThatCode(() -> RequestValidator.throwIfMalformed(join().setRebalanceTimeoutMs(-1).build()))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> RequestValidator.throwIfMalformed(join().setRebalanceTimeoutMs(-2).build()))
                .isInstanceOf(MalformedRequestException.class).hasMessageContaining("rebalance_timeout_ms");
    }

    @Test
    void testReasonsAreTruncatedNotRejected() {
        String reason = "r".repeat(RequestLimits.MAX_REASON_LENGTH + 10);
        assertThatCode(() -> RequestValidator.throwIfMalformed(join().setReason(reason).build()))
                .doesNotThrowAnyException();
        org.assertj.core.api.Assertions.assertThat(ApiMapper.toCommand(join().setReason(reason).build(), "", "s")
                .reason()).hasSize(RequestLimits.MAX_REASON_LENGTH);
    }

    private static JoinGroupRequest.Protocol protocol(String name, int bytes) {
        return JoinGroupRequest.Protocol.newBuilder().setName(name).setMetadata(ByteString.copyFrom(new byte[bytes]))
                .build();
    }

    private static SyncGroupRequest.Assignment assignment(String memberId, int bytes) {
        return SyncGroupRequest.Assignment.newBuilder().setMemberId(memberId)
                .setAssignment(ByteString.copyFrom(new byte[bytes])).build();
    }
}
