package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cohort.client.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetArgTest {
    @Test
    void testParses() {
        assertThat(OffsetArg.parse("orders:3=42")).isEqualTo(new OffsetArg(new TopicPartition("orders", 3), 42));
        assertThat(OffsetArg.parse("a:b:0=0")).isEqualTo(new OffsetArg(new TopicPartition("a:b", 0), 0));
    }

    @Test
    void testRejectsMalformedArgumentsSayingTheExpectedForm() {
        for (String bad : new String[] {"orders:x=5", "orders:0=", "orders=5", ":0=5", "orders:0", "orders:0=-1",
                "orders:-1=3", "orders:0=5x", ""}) {
            assertThatThrownBy(() -> OffsetArg.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expected TOPIC:PARTITION=OFFSET").hasMessageContaining("'" + bad + "'");
        }
    }
}
