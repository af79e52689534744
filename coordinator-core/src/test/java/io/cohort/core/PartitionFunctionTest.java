package io.cohort.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The frozen partition function (reference section 4, shared/ARCHITECTURE.md, style rule 6). If this
 * test fails, every existing group would move to another partition: do not "fix" the vector.
 */
class PartitionFunctionTest {
    private static final int PARTITIONS = 50;

    @Test
    @DisplayName("frozen test vector at P = 50 (Kafka's Utils.abs(String.hashCode()) % P)")
    void testFrozenVector() {
        assertThat(PartitionFunction.partitionFor("", PARTITIONS)).isEqualTo(0);
        assertThat(PartitionFunction.partitionFor("group-id", PARTITIONS)).isEqualTo(13);
        assertThat(PartitionFunction.partitionFor("test-group", PARTITIONS)).isEqualTo(12);
        assertThat(PartitionFunction.partitionFor("my-group", PARTITIONS)).isEqualTo(12);
        assertThat(PartitionFunction.partitionFor("polygenelubricants", PARTITIONS)).isEqualTo(0);
        assertThat(PartitionFunction.partitionFor("connect-cluster", PARTITIONS)).isEqualTo(13);
        assertThat(PartitionFunction.partitionFor("console-consumer-12345", PARTITIONS)).isEqualTo(6);
    }

    @Test
    @DisplayName("the vector's hashes are Java's String.hashCode, including a negative one and MIN_VALUE")
    void testVectorHashes() {
        assertThat("".hashCode()).isEqualTo(0);
        assertThat("group-id".hashCode()).isEqualTo(506_313_513);
        assertThat("test-group".hashCode()).isEqualTo(627_841_412);
        assertThat("my-group".hashCode()).isEqualTo(-1_906_497_762);
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat("connect-cluster".hashCode()).isEqualTo(1_440_343_063);
        assertThat("console-consumer-12345".hashCode()).isEqualTo(158_455_506);
    }

    @Test
    @DisplayName("a negative hash uses abs, not floor-mod: \"my-group\" is 12, never 38")
    void testNegativeHashIsNotFloorMod() {
        assertThat(Math.floorMod("my-group".hashCode(), PARTITIONS)).isEqualTo(38);
        assertThat(PartitionFunction.partitionFor("my-group", PARTITIONS)).isEqualTo(12);
    }

    @Test
    @DisplayName("Integer.MIN_VALUE maps to partition 0 for every partition count (Math.abs would be negative)")
    void testMinValueHandling() {
        assertThat(Math.abs(Integer.MIN_VALUE) % PARTITIONS).isNegative();
        assertThat(PartitionFunction.kafkaAbs(Integer.MIN_VALUE)).isEqualTo(0);
        assertThat(PartitionFunction.kafkaAbs(Integer.MIN_VALUE + 1)).isEqualTo(Integer.MAX_VALUE);
        assertThat(PartitionFunction.kafkaAbs(-5)).isEqualTo(5);
        assertThat(PartitionFunction.kafkaAbs(0)).isEqualTo(0);
        assertThat(PartitionFunction.kafkaAbs(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
        for (int partitions : new int[] {1, 3, 7, 50, 1_000, Integer.MAX_VALUE}) {
            assertThat(PartitionFunction.partitionFor("polygenelubricants", partitions)).isEqualTo(0);
        }
    }

    @Test
    @DisplayName("the partition is always in [0, P)")
    void testPartitionInRange() {
        String[] ids = {"", "a", "group-id", "my-group", "polygenelubricants", "\uD83D\uDE00-emoji", "x".repeat(1000)};
        for (int partitions : new int[] {1, 2, 50, 97}) {
            for (String id : ids) {
                assertThat(PartitionFunction.partitionFor(id, partitions)).isBetween(0, partitions - 1);
            }
        }
        assertThat(PartitionFunction.partitionFor("group-id", 1)).isEqualTo(0);
    }

    @Test
    @DisplayName("a partition count of 0 or less is rejected")
    void testNonPositivePartitionsRejected() {
        assertThatThrownBy(() -> PartitionFunction.partitionFor("group-id", 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PartitionFunction.partitionFor("group-id", -1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PartitionFunction.partitionFor("group-id", Integer.MIN_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
