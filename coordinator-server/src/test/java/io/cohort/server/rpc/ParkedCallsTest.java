package io.cohort.server.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.cohort.core.ErrorCode;
import io.cohort.core.GroupConfig;
import io.cohort.core.response.Response;
import io.cohort.core.shard.ParkKey;
import io.cohort.core.shard.Result;
import io.cohort.server.metrics.RpcMetrics;
import io.cohort.server.rpc.ParkedCalls.ParkedCall;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ParkedCalls on its own, with fake gRPC observers and synchronous delivery. */
class ParkedCallsTest {
    private static final int PARTITION = 3;
    private static final ParkKey KEY = ParkKey.join("g", "m1");

    private final ParkedCalls parked = new ParkedCalls(Runnable::run);

    /** Records what a gRPC call would have sent. */
    static final class RecordingObserver<T> implements StreamObserver<T> {
        final List<T> values = new ArrayList<>();
        Throwable error;
        boolean completed;

        @Override
        public void onNext(T value) {
            values.add(value);
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {
            completed = true;
        }
    }

    private static ParkedCall<JoinGroupResponse> joinCall(RecordingObserver<JoinGroupResponse> observer) {
        return new ParkedCall<>(RpcCall.start("JoinGroup", observer, RpcMetrics.NONE),
                response -> ApiMapper.toProto((io.cohort.core.response.JoinGroupResponse) response,
                        JoinGroupRequest.getDefaultInstance(), GroupConfig.defaults()),
                (code, message) -> ApiMapper.joinGroupError(code, message, null, "m1"));
    }

    private static Result parkedResult(ParkKey key) {
        return new Result(List.of(), new Result.Reply.Parked(key), List.of(), List.of());
    }

    private static Result completing(ParkKey key, int generation) {
        return new Result(List.of(), new Result.Reply.None(), List.of(new Result.Completion(key, joined(generation))),
                List.of());
    }

    private static Response joined(int generation) {
        return new io.cohort.core.response.JoinGroupResponse(ErrorCode.NONE, generation, "consumer", "range", "m1",
                false, "m1", List.of());
    }

    @Test
    void testParkedCallIsAnsweredByALaterCompletion() {
        RecordingObserver<JoinGroupResponse> observer = new RecordingObserver<>();
        Result own = parkedResult(KEY);
        ParkedCalls.Ticket ticket = parked.expect(PARTITION);
        parked.park(ticket, KEY, own, joinCall(observer));
        parked.onApplied(PARTITION, List.of(own));
        assertThat(parked.size(PARTITION)).isEqualTo(1);
        assertThat(observer.values).isEmpty();

        parked.onApplied(PARTITION, List.of(completing(ParkKey.join("g", "other"), 1)));
        assertThat(observer.values).isEmpty();

        parked.onApplied(PARTITION, List.of(completing(KEY, 1)));
        assertThat(observer.values).singleElement().satisfies(response -> {
            assertThat(response.getErrorCode()).isEqualTo(io.cohort.api.v1.ErrorCode.NONE);
            assertThat(response.getGenerationId()).isEqualTo(1);
        });
        assertThat(observer.completed).isTrue();
        assertThat(parked.size()).isZero();
    }

    @Test
    void testEveryCallParkedUnderOneKeyGetsTheAnswer() {
        RecordingObserver<JoinGroupResponse> first = new RecordingObserver<>();
        RecordingObserver<JoinGroupResponse> resent = new RecordingObserver<>();
        parked.park(parked.expect(PARTITION), KEY, parkedResult(KEY), joinCall(first));
        parked.park(parked.expect(PARTITION), KEY, parkedResult(KEY), joinCall(resent));
        assertThat(parked.size(PARTITION)).isEqualTo(2);

        parked.onApplied(PARTITION, List.of(completing(KEY, 4)));

        assertThat(first.values).singleElement().extracting(JoinGroupResponse::getGenerationId).isEqualTo(4);
        assertThat(resent.values).singleElement().extracting(JoinGroupResponse::getGenerationId).isEqualTo(4);
        assertThat(parked.size()).isZero();
    }

    @Test
    void testStepDownFailsParkedCallsWithNotCoordinator() {
        RecordingObserver<JoinGroupResponse> onThisPartition = new RecordingObserver<>();
        RecordingObserver<JoinGroupResponse> onAnother = new RecordingObserver<>();
        parked.park(parked.expect(PARTITION), KEY, parkedResult(KEY), joinCall(onThisPartition));
        parked.park(parked.expect(PARTITION + 1), KEY, parkedResult(KEY), joinCall(onAnother));

        parked.onStepDown(PARTITION);

        assertThat(onThisPartition.values).singleElement().satisfies(response -> {
            assertThat(response.getErrorCode()).isEqualTo(io.cohort.api.v1.ErrorCode.NOT_COORDINATOR);
            assertThat(response.getGenerationId()).isEqualTo(-1);
            assertThat(response.getErrorMessage()).contains("find the coordinator again");
        });
        assertThat(onAnother.values).isEmpty();
        assertThat(parked.size(PARTITION)).isZero();
        assertThat(parked.size(PARTITION + 1)).isEqualTo(1);
        // A completion arriving after the step-down has nobody left to answer.
        parked.onApplied(PARTITION, List.of(completing(KEY, 1)));
        assertThat(onThisPartition.values).hasSize(1);
    }

    @Test
    void testSubmissionThatBeganBeforeAStepDownIsNotParked() {
        RecordingObserver<JoinGroupResponse> observer = new RecordingObserver<>();
        ParkedCalls.Ticket ticket = parked.expect(PARTITION);
        parked.onStepDown(PARTITION);

        parked.park(ticket, KEY, parkedResult(KEY), joinCall(observer));

        assertThat(observer.values).singleElement().extracting(JoinGroupResponse::getErrorCode)
                .isEqualTo(io.cohort.api.v1.ErrorCode.NOT_COORDINATOR);
        assertThat(parked.size()).isZero();
    }

    /**
     * The continuation that parks may run late, after the entry (and later ones) were applied: the
     * ticket's record of applied results still finds the answer addressed to the call.
     */
    @Test
    void testLateParkFindsTheAnswerAppliedAfterItsOwnResult() {
        RecordingObserver<JoinGroupResponse> observer = new RecordingObserver<>();
        Result own = parkedResult(KEY);
        ParkedCalls.Ticket ticket = parked.expect(PARTITION);
        parked.onApplied(PARTITION, List.of(completing(KEY, 1)));   // before ours: for an older call
        parked.onApplied(PARTITION, List.of(own, completing(KEY, 2)));
        parked.onApplied(PARTITION, List.of(completing(KEY, 3)));

        parked.park(ticket, KEY, own, joinCall(observer));

        assertThat(observer.values).singleElement().extracting(JoinGroupResponse::getGenerationId).isEqualTo(2);
        assertThat(parked.size()).isZero();
    }

    @Test
    void testLateParkWithoutAnAnswerYetStaysParked() {
        RecordingObserver<JoinGroupResponse> observer = new RecordingObserver<>();
        Result own = parkedResult(KEY);
        ParkedCalls.Ticket ticket = parked.expect(PARTITION);
        parked.onApplied(PARTITION, List.of(completing(KEY, 1)));   // before ours: ignored
        parked.onApplied(PARTITION, List.of(own));

        parked.park(ticket, KEY, own, joinCall(observer));

        assertThat(observer.values).isEmpty();
        assertThat(parked.size(PARTITION)).isEqualTo(1);
        parked.onApplied(PARTITION, List.of(completing(KEY, 2)));
        assertThat(observer.values).singleElement().extracting(JoinGroupResponse::getGenerationId).isEqualTo(2);
    }

    @Test
    void testCancelledCallIsDropped() {
        RecordingObserver<JoinGroupResponse> observer = new RecordingObserver<>();
        ParkedCall<JoinGroupResponse> call = joinCall(observer);
        parked.park(parked.expect(PARTITION), KEY, parkedResult(KEY), call);
        assertThat(parked.size(PARTITION)).isEqualTo(1);

        call.call().onCancelled();

        assertThat(parked.size()).isZero();
        parked.onApplied(PARTITION, List.of(completing(KEY, 1)));
        assertThat(observer.values).isEmpty();
    }

    @Test
    void testCallCancelledBeforeItsCommandWasAppliedIsNotParked() {
        RecordingObserver<JoinGroupResponse> observer = new RecordingObserver<>();
        ParkedCall<JoinGroupResponse> call = joinCall(observer);
        ParkedCalls.Ticket ticket = parked.expect(PARTITION);
        call.call().onCancelled();

        parked.park(ticket, KEY, parkedResult(KEY), call);

        assertThat(parked.size()).isZero();
        assertThat(observer.values).isEmpty();
    }

    @Test
    void testCloseFailsParkedCallsAndRefusesNewOnes() {
        RecordingObserver<JoinGroupResponse> before = new RecordingObserver<>();
        RecordingObserver<JoinGroupResponse> after = new RecordingObserver<>();
        parked.park(parked.expect(PARTITION), KEY, parkedResult(KEY), joinCall(before));
        ParkedCalls.Ticket ticket = parked.expect(PARTITION);

        parked.close();
        parked.park(ticket, KEY, parkedResult(KEY), joinCall(after));

        assertThat(before.values).singleElement().extracting(JoinGroupResponse::getErrorCode)
                .isEqualTo(io.cohort.api.v1.ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(after.values).singleElement().extracting(JoinGroupResponse::getErrorCode)
                .isEqualTo(io.cohort.api.v1.ErrorCode.COORDINATOR_NOT_AVAILABLE);
        assertThat(parked.size()).isZero();
    }
}
