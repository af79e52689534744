package io.cohort.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void testWritesNestedValuesInInsertionOrder() {
        String json = Json.write(Json.obj().put("b", 1).put("a", List.of(true, "x"))
                .put("objects", List.of(Json.obj().put("k", java.util.Arrays.asList(1, null))))
                .put("n", null).put("o", Json.obj()).put("l", List.of()).put("big", 9_007_199_254_740_993L));
        assertThat(json).isEqualTo("""
                {
                  "b": 1,
                  "a": [true, "x"],
                  "objects": [
                    {
                      "k": [1, null]
                    }
                  ],
                  "n": null,
                  "o": {},
                  "l": [],
                  "big": 9007199254740993
                }
                """);
    }

    @Test
    void testEscapesStrings() {
        assertThat(Json.write("q\" b\\ n\n t\t c\u0001 u\u2028 é"))
                .isEqualTo("\"q\\\" b\\\\ n\\n t\\t c\\u0001 u\\u2028 é\"\n");
    }

    @Test
    void testRejectsWhatIsNotJson() {
        assertThatThrownBy(() -> Json.obj().put("d", 1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Json.write(List.of(new Object()))).isInstanceOf(IllegalArgumentException.class);
    }
}
