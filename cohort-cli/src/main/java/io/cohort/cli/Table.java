package io.cohort.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Aligned text columns under a header row, as kafka-consumer-groups.sh prints them: every column
 * left-aligned and as wide as its widest cell, two spaces between columns, no trailing blanks.
 * Control characters in cells are escaped so that one row stays one line.
 */
final class Table {
    private static final String GAP = "  ";

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    Table(List<String> headers) {
        this.headers = List.copyOf(headers);
    }

    Table(String... headers) {
        this(List.of(headers));
    }

    /** Adds a row; {@code null} cells print as "-". */
    Table row(List<?> cells) {
        if (cells.size() != headers.size()) {
            throw new IllegalArgumentException("a row of " + cells.size() + " cells in a table of " + headers.size()
                    + " columns");
        }
        List<String> row = new ArrayList<>(cells.size());
        for (Object cell : cells) {
            row.add(cell == null ? "-" : escape(cell.toString()));
        }
        rows.add(row);
        return this;
    }

    Table row(Object... cells) {
        return row(java.util.Arrays.asList(cells));
    }

    /** The header and the rows, each line ending with a newline. */
    String render() {
        int[] widths = new int[headers.size()];
        for (int c = 0; c < widths.length; c++) {
            widths[c] = headers.get(c).length();
            for (List<String> row : rows) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, widths);
        for (List<String> row : rows) {
            line(out, row, widths);
        }
        return out.toString();
    }

    private static void line(StringBuilder out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.size(); c++) {
            if (c > 0) {
                line.append(GAP);
            }
            line.append(cells.get(c));
            if (c < cells.size() - 1) {
                line.append(" ".repeat(widths[c] - cells.get(c).length()));
            }
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    /** Escapes the characters that would break a line or a column: control characters. */
    static String escape(String s) {
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                if (out == null) {
                    out = new StringBuilder(s.substring(0, i));
                }
                switch (c) {
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> out.append(String.format("\\x%02x", (int) c));
                }
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? s : out.toString();
    }
}
