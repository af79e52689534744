package io.cohort.client;

import io.cohort.api.v1.TopicDescription;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic names of topic ids, for a consumer-protocol member: heartbeats speak ids, the
 * application sees names. Learned with ListTopics and cached; asked again when an assignment
 * names an id the cache does not know (a topic created since), at most once per
 * {@code minRefreshIntervalNanos}. Thread-safe.
 */
final class TopicNames {
    private static final Logger LOG = LoggerFactory.getLogger(TopicNames.class);

    private final Supplier<List<TopicDescription>> listTopics;
    private final long minRefreshIntervalNanos;
    private final Map<UUID, String> nameById = new ConcurrentHashMap<>();
    private volatile long lastRefreshNanos;
    private volatile boolean refreshed;

    TopicNames(Supplier<List<TopicDescription>> listTopics, long minRefreshIntervalNanos) {
        this.listTopics = listTopics;
        this.minRefreshIntervalNanos = minRefreshIntervalNanos;
    }

    /** The name of {@code topicId}, or null if not known (yet). */
    String name(UUID topicId) {
        return nameById.get(topicId);
    }

    /** Asks the cluster again if one of {@code ids} has no known name and the last refresh is old enough. */
    void refreshIfUnknown(Collection<UUID> ids) {
        if (nameById.keySet().containsAll(ids)) {
            return;
        }
        long now = System.nanoTime();
        if (refreshed && now - lastRefreshNanos < minRefreshIntervalNanos) {
            return;
        }
        lastRefreshNanos = now;
        refreshed = true;
        try {
            for (TopicDescription topic : listTopics.get()) {
                nameById.put(TopicIdPartition.uuidOf(topic.getTopicId()), topic.getName());
            }
        } catch (CohortException e) {
            // The assignment of the unnamed topics waits for the next attempt.
            LOG.info("listing topics to name topic ids failed: {}", e.getMessage());
        }
    }
}
