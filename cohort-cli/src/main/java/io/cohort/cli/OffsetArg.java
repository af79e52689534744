package io.cohort.cli;

import io.cohort.client.TopicPartition;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** One {@code TOPIC:PARTITION=OFFSET} argument of {@code offsets set}. */
record OffsetArg(TopicPartition partition, long offset) {
    static final String FORM = "TOPIC:PARTITION=OFFSET";

    /** Parses {@code orders:0=42}; throws IllegalArgumentException saying the expected form. */
    static OffsetArg parse(String text) {
        int eq = text.lastIndexOf('=');
        int colon = eq < 0 ? -1 : text.lastIndexOf(':', eq);
        if (eq < 0 || colon <= 0) {
            throw new IllegalArgumentException(expected(text));
        }
        int partition;
        long offset;
        try {
            partition = Integer.parseInt(text.substring(colon + 1, eq));
            offset = Long.parseLong(text.substring(eq + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(expected(text));
        }
        if (partition < 0 || offset < 0) {
            throw new IllegalArgumentException(expected(text) + ": the partition and the offset must be >= 0");
        }
        return new OffsetArg(new TopicPartition(text.substring(0, colon), partition), offset);
    }

    private static String expected(String text) {
        return "expected " + FORM + " with a numeric partition and offset (e.g. orders:0=42), got '" + text + "'";
    }

    /** picocli's hook: a malformed argument is a usage error (exit code 2). */
    static final class Converter implements ITypeConverter<OffsetArg> {
        @Override
        public OffsetArg convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
