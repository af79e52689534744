package io.cohort.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.spi.FilterReply;
import org.junit.jupiter.api.Test;

/**
 * Ratis's lines about the leader-path warm-up's throwaway cluster are kept off stderr; the real
 * cluster's are not. The lines below are the shapes Ratis 3.3 wrote at a node's start (2026-12-07),
 * with the warm-up's peers and group as they are named now.
 */
class WarmupLogFilterTest {
    private final LoggerContext context = new LoggerContext();
    private final WarmupLogFilter filter = new WarmupLogFilter();

    private FilterReply decide(Level level, String thread, String message) {
        LoggingEvent event = new LoggingEvent("test", context.getLogger("org.apache.ratis.grpc.server.GrpcLogAppender"),
                level, message, null, null);
        event.setThreadName(thread);
        return filter.decide(event);
    }

    @Test
    void theWarmupsRatisLinesAreDroppedBelowError() {
        String peer = WarmupLogFilter.PEER_1;
        String other = WarmupLogFilter.PEER_2;
        String group = WarmupLogFilter.GROUP;
        assertThat(decide(Level.WARN, "grpc-default-executor-1", peer + "@" + group + "-LeaderStateImpl: Lost"
                + " leadership on term: 3. Election timeout: 400ms.")).isEqualTo(FilterReply.DENY);
        assertThat(decide(Level.WARN, "grpc-default-executor-3", other + ": APPEND_ENTRIES onError, lastRequest:"
                + " null: CANCELLED: client cancelled")).isEqualTo(FilterReply.DENY);
        assertThat(decide(Level.WARN, peer + "@" + group + "->" + other + "-GrpcLogAppender-LogAppenderDaemon",
                "is interrupted: java.lang.InterruptedException")).isEqualTo(FilterReply.DENY);
        assertThat(decide(Level.ERROR, "grpc-default-executor-1", peer + "@" + group + ": failed"))
                .as("an error is kept").isEqualTo(FilterReply.NEUTRAL);
    }

    @Test
    void theRealClustersLinesAreKept() {
        assertThat(decide(Level.WARN, "grpc-default-executor-2", "n1@group-7675BF3A716D: Failed to recognize n2"
                + " as leader for APPEND_ENTRIES since peerTerm = 3 < currentTerm = 4")).isEqualTo(FilterReply.NEUTRAL);
        assertThat(decide(Level.WARN, "n9@group-0ABD445E8F1B->n3-GrpcLogAppender-LogAppenderDaemon",
                "n9@group-0ABD445E8F1B->n3-GrpcLogAppender is interrupted")).isEqualTo(FilterReply.NEUTRAL);
        // A real node whose id starts like a warm-up peer's.
        assertThat(decide(Level.WARN, "grpc-default-executor-1", "n900011@group-0ABD445E8F1B: Failed to recognize"
                + " n900012 as leader")).isEqualTo(FilterReply.NEUTRAL);
    }

    /** The names written out in the filter are the warm-up's peers as Ratis prints them, and its Raft group. */
    @Test
    void theMarkersAreTheWarmupsOwnPeersAndGroup() {
        java.util.List<String> peers = LeaderPathWarmup.NODE_IDS.stream()
                .map(id -> new io.cohort.raft.NodeAddress(id, "127.0.0.1", 1, 1).peerId()).toList();
        String group = new io.cohort.raft.ClusterSpec(LeaderPathWarmup.CLUSTER_ID, 1,
                java.util.List.of(new io.cohort.raft.NodeAddress(LeaderPathWarmup.NODE_IDS.get(0), "127.0.0.1", 1, 1)),
                io.cohort.core.GroupConfig.defaults()).raftGroupId(0).toString();
        assertThat(java.util.List.of(WarmupLogFilter.PEER_1, WarmupLogFilter.PEER_2)).isEqualTo(peers);
        assertThat(WarmupLogFilter.GROUP).isEqualTo(group);
    }
}
