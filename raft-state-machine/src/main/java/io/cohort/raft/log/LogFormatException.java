package io.cohort.raft.log;

/**
 * Persisted bytes that this build cannot read: an unknown {@code format_version}, bytes that are not
 * a valid message, a command or record type it does not know, or a value that breaks the format's
 * rules (an unset enum, a duplicate member). A replica that meets one must stop rather than guess,
 * so this is unchecked and never turned into a protocol error.
 */
public class LogFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LogFormatException(String message) {
        super(message);
    }

    public LogFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
