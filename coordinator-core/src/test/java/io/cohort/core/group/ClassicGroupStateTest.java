package io.cohort.core.group;

import static io.cohort.core.group.ClassicGroupState.COMPLETING_REBALANCE;
import static io.cohort.core.group.ClassicGroupState.DEAD;
import static io.cohort.core.group.ClassicGroupState.EMPTY;
import static io.cohort.core.group.ClassicGroupState.PREPARING_REBALANCE;
import static io.cohort.core.group.ClassicGroupState.STABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The classic group state machine (reference 2.1) and its enforcement on every transition. */
class ClassicGroupStateTest {

    @Test
    @DisplayName("valid previous states, as Kafka's ClassicGroupState")
    void testValidPreviousStates() {
        assertThat(EMPTY.validPreviousStates()).isEqualTo(EnumSet.of(PREPARING_REBALANCE));
        assertThat(PREPARING_REBALANCE.validPreviousStates()).isEqualTo(EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY));
        assertThat(COMPLETING_REBALANCE.validPreviousStates()).isEqualTo(EnumSet.of(PREPARING_REBALANCE));
        assertThat(STABLE.validPreviousStates()).isEqualTo(EnumSet.of(COMPLETING_REBALANCE));
        assertThat(DEAD.validPreviousStates()).isEqualTo(EnumSet.allOf(ClassicGroupState.class));
    }

    @Test
    @DisplayName("a legal cycle of transitions records the previous state and the transition time")
    void testLegalTransitions() {
        ClassicGroupEditor group = ClassicGroup.newEmpty("group", 0L).edit();
        long nowMs = 100L;
        for (ClassicGroupState target : List.of(PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE,
                PREPARING_REBALANCE, COMPLETING_REBALANCE, PREPARING_REBALANCE, EMPTY, DEAD, DEAD)) {
            ClassicGroupState before = group.state();
            group.transitionTo(target, nowMs);
            assertThat(group.state()).isEqualTo(target);
            assertThat(group.previousState()).isEqualTo(before);
            assertThat(group.build().stateTimestampMs()).isEqualTo(nowMs);
            nowMs += 100;
        }
    }

    @Test
    @DisplayName("an illegal transition throws IllegalStateException and leaves the state unchanged")
    void testIllegalTransitionThrows() {
        ClassicGroupEditor group = ClassicGroup.newEmpty("group", 5L).edit();
        for (ClassicGroupState target : List.of(EMPTY, COMPLETING_REBALANCE, STABLE)) {
            assertThatThrownBy(() -> group.transitionTo(target, 10L))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("group").hasMessageContaining(target.toString());
        }
        assertThat(group.build()).isEqualTo(ClassicGroup.newEmpty("group", 5L));

        group.transitionTo(PREPARING_REBALANCE, 10L);
        assertThatThrownBy(() -> group.transitionTo(STABLE, 20L)).isInstanceOf(IllegalStateException.class);
        group.transitionTo(DEAD, 30L);
        for (ClassicGroupState target : List.of(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE)) {
            assertThatThrownBy(() -> group.transitionTo(target, 40L)).isInstanceOf(IllegalStateException.class);
        }
        assertThat(group.state()).isEqualTo(DEAD);
    }

    @Test
    @DisplayName("display names are Kafka's; fromDisplayName is case-insensitive; toString is the display name")
    void testDisplayNames() {
        assertThat(EMPTY.displayName()).isEqualTo("Empty");
        assertThat(PREPARING_REBALANCE.displayName()).isEqualTo("PreparingRebalance");
        assertThat(COMPLETING_REBALANCE.displayName()).isEqualTo("CompletingRebalance");
        assertThat(STABLE.displayName()).isEqualTo("Stable");
        assertThat(DEAD.displayName()).isEqualTo("Dead");
        for (ClassicGroupState state : ClassicGroupState.values()) {
            assertThat(state).hasToString(state.displayName());
            assertThat(ClassicGroupState.fromDisplayName(state.displayName())).isEqualTo(state);
            assertThat(ClassicGroupState.fromDisplayName(state.displayName().toUpperCase())).isEqualTo(state);
            assertThat(ClassicGroupState.fromDisplayName(state.displayName().toLowerCase())).isEqualTo(state);
        }
        assertThat(ClassicGroupState.fromDisplayName("Rebalancing")).isNull();
        assertThat(ClassicGroupState.fromDisplayName("PREPARING_REBALANCE")).isNull();
    }
}
