package io.cohort.client.assignor;

import com.google.protobuf.ByteString;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Computes the partition assignment of a group of protocol type "consumer"; runs in the group
 * leader's client (Kafka's {@code ConsumerPartitionAssignor}). Its {@link #name()} is the protocol
 * name the member offers in JoinGroup, so every member of a group must offer an assignor of that
 * name for the coordinator to select it.
 *
 * <p>Implementations must be deterministic (same input, same output) and must assign each
 * partition of every subscribed topic with known metadata to at most one member subscribed to it:
 * exactly one for eager assignors; a cooperative assignor leaves a partition that changes owner
 * unassigned until its previous owner has revoked it, so every partition is assigned once the
 * group settles (after the follow-up rebalance). A negative partition count counts as 0.
 */
public interface ConsumerPartitionAssignor {
    /** The protocol name, e.g. {@code "range"}. */
    String name();

    /** The rebalance protocols this assignor supports, preferred first. */
    default List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER);
    }

    /** Data this member adds to its subscription for this assignor; empty by default. */
    default ByteString subscriptionUserData(Set<String> topics) {
        return ByteString.EMPTY;
    }

    /**
     * Assigns partitions.
     *
     * @param partitionsPerTopic the partition count of every subscribed topic whose metadata the
     *     leader knows; topics missing here are not assigned (as Kafka skips unknown topics)
     * @param subscriptions every member's subscription, by member id
     * @return an assignment for every member id of {@code subscriptions} (possibly empty)
     */
    Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic, Map<String, Subscription> subscriptions);

    /** Called on every member when it receives its assignment for {@code generationId}. */
    default void onAssignment(Assignment assignment, int generationId) {
    }
}
