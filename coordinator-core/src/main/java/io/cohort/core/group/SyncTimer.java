package io.cohort.core.group;

/**
 * The replicated description of a group's pending-sync timer (KAFKA-12890): members of
 * {@code generationId} that have not sent SyncGroup by {@code deadlineMs} are removed.
 */
public record SyncTimer(long deadlineMs, int generationId) {
}
