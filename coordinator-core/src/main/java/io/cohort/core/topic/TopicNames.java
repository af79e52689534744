package io.cohort.core.topic;

/**
 * Kafka's topic name rules ({@code org.apache.kafka.common.internals.Topic.validate}): 1 to 249
 * characters of ASCII letters, digits, '.', '_' and '-', and neither "." nor "..". Kafka also refuses
 * a name that differs from an existing topic's only by '.' against '_', since both map to the same
 * metric name; {@link #collisionKey} gives the form they are compared in.
 */
public final class TopicNames {
    /** Kafka's limit: a partition's log directory is the name plus "-" and the partition number. */
    public static final int MAX_LENGTH = 249;

    private TopicNames() {
    }

    /** Why {@code name} is not a legal topic name, or null if it is. */
    public static String invalidReason(String name) {
        if (name == null || name.isEmpty()) {
            return "Topic name is illegal, it can't be empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "Topic name cannot be \".\" or \"..\"";
        }
        if (name.length() > MAX_LENGTH) {
            return "Topic name is illegal, it can't be longer than " + MAX_LENGTH + " characters, topic name: "
                    + name.substring(0, 32) + "... (" + name.length() + " characters)";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!legal) {
                return "Topic name \"" + name + "\" is illegal, it contains a character other than ASCII alphanumerics,"
                        + " '.', '_' and '-'";
            }
        }
        return null;
    }

    /** The name with '.' read as '_': two topics with the same key would collide in metric names. */
    public static String collisionKey(String name) {
        return name.replace('.', '_');
    }
}
