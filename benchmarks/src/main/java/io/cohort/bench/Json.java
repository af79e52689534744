package io.cohort.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** A minimal JSON writer for result lines: maps, lists, strings, numbers, booleans and null. */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    /** Rounds {@code value} to {@code decimals} places (ms figures to 3: microseconds). */
    static double round(double value, int decimals) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return value;
        }
        return BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).doubleValue();
    }

    private static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            string(out, s);
        } else if (value instanceof Double d) {
            number(out, d);
        } else if (value instanceof Float f) {
            number(out, f.doubleValue());
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                string(out, String.valueOf(e.getKey()));
                out.append(':');
                write(out, e.getValue());
                if (it.hasNext()) {
                    out.append(',');
                }
            }
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            out.append('[');
            Iterator<?> it = list.iterator();
            while (it.hasNext()) {
                write(out, it.next());
                if (it.hasNext()) {
                    out.append(',');
                }
            }
            out.append(']');
        } else if (value instanceof long[] longs) {
            out.append('[');
            for (int i = 0; i < longs.length; i++) {
                out.append(i == 0 ? "" : ",").append(longs[i]);
            }
            out.append(']');
        } else if (value instanceof double[] doubles) {
            out.append('[');
            for (int i = 0; i < doubles.length; i++) {
                out.append(i == 0 ? "" : ",");
                number(out, doubles[i]);
            }
            out.append(']');
        } else {
            string(out, value.toString());
        }
    }

    private static void number(StringBuilder out, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            out.append((long) d);
        } else {
            out.append(BigDecimal.valueOf(d).stripTrailingZeros().toPlainString());
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
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
