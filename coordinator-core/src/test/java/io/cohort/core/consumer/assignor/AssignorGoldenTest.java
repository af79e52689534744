package io.cohort.core.consumer.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Frozen outputs. An assignor runs on every replica while a committed heartbeat is applied, so its
 * output is part of the replicated state machine: two replicas running different assignor code
 * (a rolling upgrade) would compute different target assignments from the same log. Any change of
 * output is therefore a protocol change (it needs the log-format gate, like a record change), never
 * a refactoring. These digests of the outputs for seeded groups (java.util.Random's sequence is
 * fixed by its specification; the groups come from AssignorPropertiesTest's generator) fail on any
 * such change; update them only with that gate.
 */
class AssignorGoldenTest {

    @Test
    void testUniformOutputsAreFrozen() {
        assertThat(digest(new UniformAssignor())).isEqualTo(UNIFORM_DIGEST);
    }

    @Test
    void testRangeOutputsAreFrozen() {
        assertThat(digest(new RangeAssignor())).isEqualTo(RANGE_DIGEST);
    }

    private static final String UNIFORM_DIGEST =
            "1e971fbf8e690d2614242539657397a5174a0a15363c845aaf3d557f07487866";
    private static final String RANGE_DIGEST =
            "5dbfba662c6878038e1623ebc21a0c2e345c8ccf940fb48c188c131c72042903";

    /** SHA-256 over the outputs for 40 seeded groups: fresh and then from random current targets. */
    private static String digest(ServerAssignor assignor) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (int seed = 0; seed < 40; seed++) {
                Random random = new Random(7_000 + seed);
                AssignmentSpec spec = AssignorPropertiesTest.randomSpec(random, seed % 2 == 0, seed % 3 == 0);
                sha.update(assignor.assign(spec).toString().getBytes(StandardCharsets.UTF_8));
                AssignmentSpec moved = AssignorPropertiesTest.withRandomCurrentTargets(random, spec);
                sha.update(assignor.assign(moved).toString().getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
