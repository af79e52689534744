package io.cohort.core.response;

/**
 * A ListGroups entry; {@code protocolType} is "" for simple groups; the type is "classic", or
 * "consumer" for KIP-848 consumer groups (whose protocol type is "consumer").
 */
public record ListedGroup(String groupId, String protocolType, String state, String groupType) {
    public static final String CLASSIC_TYPE = "classic";
    public static final String CONSUMER_TYPE = "consumer";
}
