package io.cohort.cluster.chaos;

import io.cohort.api.v1.ClusterStatusResponse;
import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.PartitionStatus;
import io.cohort.api.v1.SaveSnapshotChunk;
import io.cohort.api.v1.SaveSnapshotInfo;
import io.cohort.api.v1.SaveSnapshotRequest;
import io.cohort.client.BackupSources;
import io.cohort.client.CohortClient;
import io.cohort.client.TopicPartition;
import io.cohort.core.record.CoordinatorRecord;
import io.cohort.raft.log.SnapshotCodec;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Backups during the faults: every partition's image taken with ClusterAdmin SaveSnapshot (what
 * {@code cohort snapshot save} calls, a follower first), decoded, and read as one linearizable
 * fetch of every key. The workload records each backup as a fetch of every key, invoked when the
 * backup starts and completed when its last image is in: checker (a) then holds every image to what
 * {@code SaveSnapshot} promises, every commit acknowledged before the call in it and nothing that
 * was never written, through kills, pauses, cuts and membership changes.
 */
final class ChaosBackups {
    /** Asked of one replica; the call's own deadline is longer. */
    private static final int SAVE_TIMEOUT_MS = 20_000;
    private static final long CALL_DEADLINE_MS = 40_000;

    private ChaosBackups() {
    }

    /**
     * The committed offset of every key in the images of every partition, keyed as the workload keys
     * them; a key without an offset in its partition's image is absent. Throws if some partition
     * had no replica that answered with an image.
     */
    static Map<String, Long> offsets(CohortClient client) {
        ClusterStatusResponse status = client.clusterStatus(false);
        Map<String, Long> offsets = new HashMap<>();
        for (PartitionStatus partition : status.getPartitionsList()) {
            offsets.putAll(partitionOffsets(client, status, partition));
        }
        return offsets;
    }

    private static Map<String, Long> partitionOffsets(CohortClient client, ClusterStatusResponse status,
                                                      PartitionStatus partition) {
        String failures = "";
        for (int nodeId : BackupSources.candidates(status, partition.getPartitionIndex())) {
            try {
                Iterator<SaveSnapshotChunk> chunks = client.adminStub(nodeId)
                        .withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS)
                        .saveSnapshot(SaveSnapshotRequest.newBuilder().setPartitionIndex(partition.getPartitionIndex())
                                .setTimeoutMs(SAVE_TIMEOUT_MS).build());
                SaveSnapshotInfo info = chunks.next().getInfo();
                if (info.getErrorCode() != ErrorCode.NONE) {
                    failures += " node " + nodeId + ": " + info.getErrorCode() + " " + info.getErrorMessage() + ";";
                    while (chunks.hasNext()) {
                        chunks.next();
                    }
                    continue;
                }
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                while (chunks.hasNext()) {
                    chunks.next().getData().writeTo(bytes);
                }
                return decode(bytes.toByteArray());
            } catch (StatusRuntimeException e) {
                failures += " node " + nodeId + ": " + e.getStatus().getCode() + ";";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("partition " + partition.getPartitionIndex() + ": no image from" + failures);
    }

    private static Map<String, Long> decode(byte[] image) throws IOException {
        Map<String, Long> offsets = new HashMap<>();
        for (CoordinatorRecord record : SnapshotCodec.read(new ByteArrayInputStream(image)).records()) {
            if (record instanceof CoordinatorRecord.OffsetValue offset) {
                offsets.put(ChaosWorkload.key(offset.groupId(), new TopicPartition(offset.topic(), offset.partition())),
                        offset.value().offset());
            }
        }
        return offsets;
    }
}
