package io.cohort.client.example;

import io.cohort.client.Bootstrap;
import io.cohort.client.CohortClient;
import io.cohort.client.CommitFailedException;
import io.cohort.client.GroupMember;
import io.cohort.client.OffsetAndMetadata;
import io.cohort.client.RebalanceListener;
import io.cohort.client.TopicPartition;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** docs/CLIENT.md's example: one consumer-group member that "processes" its partitions and commits. */
public final class ConsumerGroupExample {
    public static void main(String[] args) {
        String bootstrap = args.length > 0 ? args[0] : Bootstrap.defaultEndpoints();
        run(bootstrap, "example-app", Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 30));
    }

    /** Runs one member of {@code group} for {@code howLong}; returns the offsets it committed. */
    public static Map<TopicPartition, OffsetAndMetadata> run(String bootstrap, String group, Duration howLong) {
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        try (CohortClient client = CohortClient.builder().bootstrap(bootstrap).clientId("example").build();
             GroupMember member = GroupMember.builder(client, group)
                     .subscribe(List.of("orders"))
                     .topicMetadata(Map.of("orders", 12))       // Cohort keeps no topic metadata
                     .listener(new RebalanceListener() {
                         @Override
                         public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                             System.out.println("assigned " + partitions);
                         }
                     })
                     .build()) {
            long end = System.nanoTime() + howLong.toNanos();
            while (System.nanoTime() < end) {
                for (TopicPartition tp : member.poll(Duration.ofSeconds(1))) {
                    long next = positions.getOrDefault(tp, new OffsetAndMetadata(0)).offset() + 10;
                    positions.put(tp, new OffsetAndMetadata(next)); // "processed" 10 records
                }
                positions.keySet().retainAll(member.assignment());
                try {
                    member.commitSync(positions);                  // for the current generation
                } catch (CommitFailedException e) {
                    // A rebalance took the generation away; the next poll rejoins.
                }
            }
        }
        return positions;
    }
}
