package io.cohort.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BootstrapTest {
    @Test
    void testDefaultIsEveryLocalNodeUnlessCohortBootstrapIsSet() {
        assertThat(Bootstrap.defaultEndpoints(Map.of())).isEqualTo("127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103");
        assertThat(Bootstrap.defaultEndpoints(Map.of(Bootstrap.ENV, " "))).isEqualTo(Bootstrap.LOCAL_NODES);
        assertThat(Bootstrap.defaultEndpoints(Map.of(Bootstrap.ENV, " db1:7101,db2:7101 ")))
                .isEqualTo("db1:7101,db2:7101");
    }
}
