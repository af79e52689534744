package io.cohort.client.assignor;

import io.cohort.client.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Kafka's {@code CooperativeStickyAssignor} ("cooperative-sticky"): the {@link StickyAssignor}'s
 * assignment, adjusted for incremental cooperative rebalancing (KIP-429).
 *
 * <p>Under the cooperative protocol members keep consuming their partitions while the group
 * rebalances, so a partition must never be handed to a new member while another member may still
 * consume it. A partition that the sticky assignment moves away from a member claiming it is
 * therefore left out of this round: the claiming member sees it missing from its assignment, revokes
 * it and rejoins, and the follow-up rebalance, in which nobody claims it any more, hands it to its new
 * member. Partitions nobody claims are assigned at once.
 *
 * <p>Precisely, a partition the sticky assignment gives to member {@code B} is withheld when another
 * member lists it in {@link Subscription#ownedPartitions()} and {@code B} does not list it with a
 * strictly newer {@link Subscription#generationId()}. This looks at every claim, including the ones
 * the sticky assignment disregards (a stale generation, a tie, an unsubscribed topic): such a member
 * may still be consuming the partition, and waiting one more rebalance is cheaper than two members
 * processing the same partition. When {@code B} is the newest claimant it keeps the partition; the
 * stale claimants find it missing and revoke it.
 *
 * <p>Supports both protocols, cooperative preferred, as Kafka's. Under eager rebalancing members have
 * revoked everything before they rejoin; they should then report no owned partitions, or the
 * adjustment still withholds moved partitions for one more rebalance.
 */
public final class CooperativeStickyAssignor implements ConsumerPartitionAssignor {
    /** The protocol name, as Kafka's. */
    public static final String NAME = "cooperative-sticky";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    @Override
    public Map<String, Assignment> assign(Map<String, Integer> partitionsPerTopic,
            Map<String, Subscription> subscriptions) {
        SortedMap<String, List<TopicPartition>> sticky =
                StickyAssignor.stickyAssignment(partitionsPerTopic, subscriptions);

        // The newest generation any member claims each partition with, and whether several members
        // claim it with that generation. Lookups only: no iteration order can leak into the result.
        Map<TopicPartition, Integer> newestClaim = new HashMap<>();
        Map<TopicPartition, String> newestClaimant = new HashMap<>();
        Map<TopicPartition, Boolean> newestIsShared = new HashMap<>();
        subscriptions.forEach((member, subscription) -> {
            int generation = subscription.generationId();
            for (TopicPartition tp : subscription.ownedPartitions()) {
                Integer newest = newestClaim.get(tp);
                if (newest == null || generation > newest) {
                    newestClaim.put(tp, generation);
                    newestClaimant.put(tp, member);
                    newestIsShared.put(tp, false);
                } else if (generation == newest && !newestClaimant.get(tp).equals(member)) {
                    newestIsShared.put(tp, true);
                }
            }
        });

        sticky.replaceAll((member, partitions) -> {
            List<TopicPartition> now = new ArrayList<>(partitions.size());
            for (TopicPartition tp : partitions) {
                // Free to hand out now: nobody claims it, or this member alone holds the newest claim.
                boolean unclaimed = !newestClaim.containsKey(tp);
                boolean soleNewestClaimant = member.equals(newestClaimant.get(tp)) && !newestIsShared.get(tp);
                if (unclaimed || soleNewestClaimant) {
                    now.add(tp);
                }
            }
            return now;
        });
        return AssignorSupport.toAssignments(sticky);
    }
}
