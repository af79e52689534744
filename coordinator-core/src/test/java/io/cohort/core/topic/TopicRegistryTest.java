package io.cohort.core.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TopicRegistryTest {
    static final TopicMetadata ORDERS = new TopicMetadata(new UUID(1, 1), "orders", 2, List.of());
    static final TopicMetadata AUDIT = new TopicMetadata(new UUID(2, 2), "audit", 1, List.of());

    @Test
    void testRegistryIsSortedByNameAndLooksUpByNameAndId() {
        TopicRegistry registry = TopicRegistry.EMPTY.with(ORDERS).with(AUDIT);
        assertThat(registry.byName().keySet()).containsExactly("audit", "orders");
        assertThat(registry.get("orders")).isEqualTo(ORDERS);
        assertThat(registry.get(new UUID(2, 2))).isEqualTo(AUDIT);
        assertThat(TopicRegistry.EMPTY.size()).isZero();
    }

    @Test
    void testWithoutRemovesBothLookups() {
        TopicRegistry registry = TopicRegistry.EMPTY.with(ORDERS).without("orders");
        assertThat(registry.get("orders")).isNull();
        assertThat(registry.get(ORDERS.topicId())).isNull();
        assertThat(registry.without("missing")).isSameAs(registry);
    }

    @Test
    void testReplacingTopicKeepsOneIdEntry() {
        TopicMetadata grown = new TopicMetadata(ORDERS.topicId(), "orders", 5, List.of());
        TopicRegistry registry = TopicRegistry.EMPTY.with(ORDERS).with(grown);
        assertThat(registry.get(ORDERS.topicId())).isEqualTo(grown);
        assertThat(registry.size()).isEqualTo(1);
    }

    @Test
    void testSecondNameUnderOneIdThrows() {
        TopicMetadata clash = new TopicMetadata(ORDERS.topicId(), "other", 1, List.of());
        assertThatThrownBy(() -> TopicRegistry.EMPTY.with(ORDERS).with(clash)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testRegistryIsImmutable() {
        TopicRegistry registry = TopicRegistry.EMPTY.with(ORDERS);
        assertThatThrownBy(() -> registry.byName().remove("orders")).isInstanceOf(UnsupportedOperationException.class);
        registry.with(AUDIT);
        assertThat(registry.size()).isEqualTo(1);
    }

    @Test
    void testKafkaTopicNameRules() {
        assertThat(TopicNames.invalidReason("orders.v1_eu-2")).isNull();
        assertThat(TopicNames.invalidReason("x".repeat(249))).isNull();
        assertThat(TopicNames.invalidReason("x".repeat(250))).contains("249");
        assertThat(TopicNames.invalidReason("")).isNotNull();
        assertThat(TopicNames.invalidReason(".")).isNotNull();
        assertThat(TopicNames.invalidReason("..")).isNotNull();
        assertThat(TopicNames.invalidReason("...")).isNull();
        assertThat(TopicNames.invalidReason("a*b")).isNotNull();
        assertThat(TopicNames.collisionKey("a.b")).isEqualTo(TopicNames.collisionKey("a_b"));
    }
}
