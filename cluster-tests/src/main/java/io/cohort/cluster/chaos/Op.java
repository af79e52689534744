package io.cohort.cluster.chaos;

/**
 * One event of a chaos history. Client operations come as pairs: an {@code invoke} and its
 * completion, {@code ok} (acknowledged), {@code fail} (definitely not applied: the coordinator
 * refused it) or {@code info} (unknown: it may or may not have been applied, e.g. a timeout).
 * Membership events ({@code assigned}, {@code revoked}, {@code lost}) and faults are single events.
 *
 * @param timeNanos when it happened, System.nanoTime()
 * @param process who did it: a committer, reader, member or the nemesis
 * @param type invoke, ok, fail, info, or event
 * @param function commit, fetch, assigned, revoked, lost, fence-commit, or a fault name
 * @param key the register: {@code group/topic:partition}; "" if none
 * @param value the offset written or read; -1 if none
 * @param generation the member's generation, or -1
 * @param detail free text (error codes, partitions, fault targets)
 */
public record Op(long timeNanos, String process, String type, String function, String key, long value,
        int generation, String detail) {
    public static final String INVOKE = "invoke";
    public static final String OK = "ok";
    public static final String FAIL = "fail";
    public static final String INFO = "info";
    public static final String EVENT = "event";

    String toJson(long startNanos) {
        return "{\"t_ms\":" + String.format("%.3f", (timeNanos - startNanos) / 1e6) + ",\"process\":\"" + process
                + "\",\"type\":\"" + type + "\",\"f\":\"" + function + "\",\"key\":\"" + escape(key) + "\",\"value\":"
                + value + ",\"generation\":" + generation + ",\"detail\":\"" + escape(detail) + "\"}";
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
