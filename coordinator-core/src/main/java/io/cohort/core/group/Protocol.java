package io.cohort.core.group;

import io.cohort.core.Bytes;
import java.util.Objects;

/** One protocol a member supports (for example "range"), with its opaque metadata. */
public record Protocol(String name, Bytes metadata) {
    public Protocol {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(metadata, "metadata");
    }
}
