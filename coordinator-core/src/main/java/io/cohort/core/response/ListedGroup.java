package io.cohort.core.response;

/** A ListGroups entry; {@code protocolType} is "" for simple groups; the type is always "classic". */
public record ListedGroup(String groupId, String protocolType, String state, String groupType) {
    public static final String CLASSIC_TYPE = "classic";
}
