package io.cohort.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.cohort.core.group.ClassicGroupState;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void oneMemberReachesStable() {
        GroupShardTestContext context = new GroupShardTestContext();
        String memberId = context.stableGroupWithOneMember("g");
        assertThat(context.group("g").state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(context.group("g").generationId()).isEqualTo(1);
        assertThat(context.group("g").leaderId()).isEqualTo(memberId);
    }
}
