package io.cohort.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer (the CLI's only JSON need is to print): objects keep insertion order, so
 * a document's keys come out in the order the renderer put them. Values are {@code null},
 * {@link String}, {@link Boolean}, integral {@link Number}s, {@link Obj}, and collections of values.
 * Output is pretty-printed with two-space indentation (arrays of scalars on one line) and ends
 * with a newline.
 */
final class Json {
    private Json() {
    }

    /** A JSON object under construction. */
    static final class Obj {
        private final Map<String, Object> fields = new LinkedHashMap<>();

        Obj put(String key, Object value) {
            fields.put(key, check(value));
            return this;
        }
    }

    static Obj obj() {
        return new Obj();
    }

    /** An array holding {@code values}, in order. */
    static List<Object> array(Collection<?> values) {
        List<Object> list = new ArrayList<>(values.size());
        for (Object value : values) {
            list.add(check(value));
        }
        return list;
    }

    /** The document {@code value}, pretty-printed, with a final newline. */
    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.append('\n').toString();
    }

    private static Object check(Object value) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Obj
                || value instanceof Collection<?> || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            return value;
        }
        throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName());
    }

    private static void write(StringBuilder out, Object value, int depth) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            string(out, s);
        } else if (value instanceof Obj obj) {
            if (obj.fields.isEmpty()) {
                out.append("{}");
                return;
            }
            out.append('{');
            String separator = "\n";
            for (Map.Entry<String, Object> field : obj.fields.entrySet()) {
                out.append(separator);
                indent(out, depth + 1);
                string(out, field.getKey());
                out.append(": ");
                write(out, field.getValue(), depth + 1);
                separator = ",\n";
            }
            out.append('\n');
            indent(out, depth);
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            if (list.isEmpty()) {
                out.append("[]");
                return;
            }
            if (list.stream().noneMatch(e -> e instanceof Obj || e instanceof Collection<?>)) {
                // Scalars stay on one line: [0, 1, 2].
                out.append('[');
                String separator = "";
                for (Object element : list) {
                    out.append(separator);
                    write(out, check(element), depth + 1);
                    separator = ", ";
                }
                out.append(']');
                return;
            }
            out.append('[');
            String separator = "\n";
            for (Object element : list) {
                out.append(separator);
                indent(out, depth + 1);
                write(out, check(element), depth + 1);
                separator = ",\n";
            }
            out.append('\n');
            indent(out, depth);
            out.append(']');
        } else {
            out.append(value);
        }
    }

    private static void indent(StringBuilder out, int depth) {
        out.append("  ".repeat(depth));
    }

    /** Appends {@code s} as a JSON string (RFC 8259: quote, backslash and control characters escaped). */
    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
