package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableTest {
    @Test
    void testAlignsColumnsWithoutTrailingBlanks() {
        String text = new Table("A", "LONG-HEADER", "C").row("wide-cell", 1, "x").row("b", null, "").render();
        assertThat(text).isEqualTo("""
                A          LONG-HEADER  C
                wide-cell  1            x
                b          -
                """);
    }

    @Test
    void testEscapesControlCharacters() {
        assertThat(Table.escape("a\nb\tc\u0000d")).isEqualTo("a\\nb\\tc\\x00d");
        assertThat(Table.escape("plain")).isEqualTo("plain");
    }

    @Test
    void testRejectsRowsOfTheWrongWidth() {
        assertThatThrownBy(() -> new Table("A", "B").row("1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testAssignmentRanges() {
        assertThat(Render.ranges(List.of(0, 1, 2, 5))).isEqualTo("0-2,5");
        assertThat(Render.ranges(List.of(0, 1, 3, 4, 5, 6, 9, 10))).isEqualTo("0,1,3-6,9,10");
        assertThat(Render.ranges(List.of(7))).isEqualTo("7");
        assertThat(Render.ranges(List.of())).isEqualTo("");
    }
}
