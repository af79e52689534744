package io.cohort.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;

/**
 * Keeps the leader-path warm-up's throwaway cluster ({@link LeaderPathWarmup}) off the node's
 * stderr: Ratis warns about the warm-up's own leadership moves and stops ("Lost leadership",
 * "Connection refused", "GrpcLogAppender is interrupted") at every start of every node, lines that
 * are about nothing real and that an operator watching the console or a monitor alerting on WARN
 * would take for the cluster's. They stay in the node's log file, after the warm-up's INFO line that
 * says so. A line is the warm-up's when its message or thread names one of the warm-up's Raft peers
 * ({@link LeaderPathWarmup#NODE_IDS}: ids no operator's node is given) or its Raft group. ERROR lines
 * are kept whatever they name: a failure that bad is worth a look even from the warm-up.
 *
 * <p>Installed on the STDERR appender of {@code cohort-server-logback.xml}.
 */
public final class WarmupLogFilter extends Filter<ILoggingEvent> {
    /** How Ratis names the warm-up's peers ("n" + node id) and group in its messages and threads. */
    static final List<String> MARKERS = LeaderPathWarmup.logMarkers();

    @Override
    public FilterReply decide(ILoggingEvent event) {
        if (event.getLevel().isGreaterOrEqual(Level.ERROR)) {
            return FilterReply.NEUTRAL;
        }
        String message = event.getFormattedMessage();
        String thread = event.getThreadName();
        for (String marker : MARKERS) {
            if ((message != null && message.contains(marker)) || (thread != null && thread.contains(marker))) {
                return FilterReply.DENY;
            }
        }
        return FilterReply.NEUTRAL;
    }
}
