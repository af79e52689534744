package io.cohort.cli;

/** How a command prints its result on stdout ({@code --output}). */
enum OutputFormat {
    /** Aligned columns under a header row, for people. */
    TABLE,
    /** One JSON document with snake_case keys, for scripts. */
    JSON
}
