package io.cohort.server;

/**
 * A setting of the node is missing, malformed or inconsistent. The message is one line that names
 * the setting, where its value came from, and what is expected; the main prints it and exits.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
