package io.cohort.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.regex.Pattern;

/**
 * Keeps the leader-path warm-up's throwaway cluster ({@link LeaderPathWarmup}) off the node's
 * stderr: Ratis warns about the warm-up's own leadership moves and stops ("Lost leadership",
 * "Connection refused", "GrpcLogAppender is interrupted") at every start of every node, lines that
 * are about nothing real and that an operator watching the console or a monitor alerting on WARN
 * would take for the cluster's. They stay in the node's log file, after the warm-up's INFO line that
 * says so. A line is the warm-up's when its message or thread names one of the warm-up's Raft peers
 * as a whole word ({@link LeaderPathWarmup#NODE_IDS}, "n90001" and "n90002": ids far from an
 * operator's) or its Raft group. ERROR lines are kept whatever they name: a failure that bad is
 * worth a look even from the warm-up. The names are written out here, not derived, so that loading
 * the filter (while logback configures itself) loads none of the node's classes;
 * {@code WarmupLogFilterTest} derives them from {@link LeaderPathWarmup#NODE_IDS} and
 * {@link LeaderPathWarmup#CLUSTER_ID}.
 *
 * <p>Installed on the STDERR appender of {@code cohort-server-logback.xml}.
 */
public final class WarmupLogFilter extends Filter<ILoggingEvent> {
    /** The warm-up's peers as Ratis names them ("n" + node id), and its Raft group (from its cluster id). */
    static final String PEER_1 = "n90001";
    static final String PEER_2 = "n90002";
    static final String GROUP = "group-38B121F4C617";
    /** Any of them, not inside a longer name ("n900011" is another node). */
    private static final Pattern MARKER = Pattern.compile(
            "(?<![0-9A-Za-z])(" + PEER_1 + "|" + PEER_2 + "|" + GROUP + ")(?![0-9A-Za-z])");

    @Override
    public FilterReply decide(ILoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(Level.ERROR)) {
            return FilterReply.NEUTRAL;
        }
        String message = event.getFormattedMessage();
        String thread = event.getThreadName();
        boolean warmup = (message != null && MARKER.matcher(message).find())
                || (thread != null && MARKER.matcher(thread).find());
        return warmup ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
