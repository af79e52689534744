package io.cohort.raft.log;

/**
 * A log entry whose {@code format_version} is newer than this build writes: a newer Cohort build
 * proposed it. Unlike bytes that do not decode at all (which every replica skips alike), a newer
 * entry is meaningful to the replicas that can read it, so a replica that cannot must stop applying
 * rather than skip it and diverge from them. The remedy is to upgrade the node.
 */
public final class NewerLogFormatException extends LogFormatException {
    private static final long serialVersionUID = 1L;

    private final int formatVersion;

    public NewerLogFormatException(int formatVersion, String message) {
        super(message);
        this.formatVersion = formatVersion;
    }

    /** The entry's format version, above every version this build reads. */
    public int formatVersion() {
        return formatVersion;
    }
}
