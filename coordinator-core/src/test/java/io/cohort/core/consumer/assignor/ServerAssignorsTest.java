package io.cohort.core.consumer.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerAssignorsTest {

    @Test
    void testDefaultsAreUniformThenRangeAndTheFirstIsTheDefault() {
        List<ServerAssignor> defaults = ServerAssignors.defaults();
        assertThat(defaults).extracting(ServerAssignor::name).containsExactly("uniform", "range");
        assertThat(defaults.get(0)).isInstanceOf(UniformAssignor.class);
        assertThat(defaults.get(1)).isInstanceOf(RangeAssignor.class);
    }

    @Test
    void testByNameFindsEachAssignor() {
        List<ServerAssignor> defaults = ServerAssignors.defaults();
        assertThat(ServerAssignors.byName(defaults, "uniform")).isSameAs(defaults.get(0));
        assertThat(ServerAssignors.byName(defaults, "range")).isSameAs(defaults.get(1));
    }

    @Test
    void testByNameOfAnUnknownOrNullNameIsNull() {
        assertThat(ServerAssignors.byName(ServerAssignors.defaults(), "cooperative-sticky")).isNull();
        assertThat(ServerAssignors.byName(ServerAssignors.defaults(), "Uniform")).isNull();
        assertThat(ServerAssignors.byName(ServerAssignors.defaults(), null)).isNull();
        assertThat(ServerAssignors.byName(List.of(new RangeAssignor()), "uniform")).isNull();
    }
}
