package io.cohort.server.auth;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kafka's {@code ssl.principal.mapping.rules}: a comma-separated list of {@code RULE:pattern/replacement/}
 * (optionally followed by {@code L} or {@code U} to lower- or upper-case the result) and
 * {@code DEFAULT}. The first rule whose pattern matches the whole subject DN wins; DEFAULT maps the
 * DN to itself. A DN no rule matches keeps the full DN, as Kafka's default principal builder does.
 * The result is the user name; the principal is {@code User:<name>}.
 */
public final class PrincipalMappingRules {
    public static final PrincipalMappingRules DEFAULT = parse("DEFAULT");

    private static final Pattern RULE = Pattern.compile("RULE:((?:\\\\/|[^/])*)/((?:\\\\/|[^/])*)/([LU]?)");

    private final List<Rule> rules;
    private final String text;

    private PrincipalMappingRules(List<Rule> rules, String text) {
        this.rules = List.copyOf(rules);
        this.text = text;
    }

    private record Rule(Pattern pattern, String replacement, char caseChange) {
        /** The mapped name, or null if this rule does not apply; a null pattern is DEFAULT. */
        String apply(String dn) {
            if (pattern == null) {
                return dn;
            }
            Matcher matcher = pattern.matcher(dn);
            if (!matcher.matches()) {
                return null;
            }
            String mapped = matcher.replaceAll(replacement);
            return switch (caseChange) {
                case 'L' -> mapped.toLowerCase(Locale.ROOT);
                case 'U' -> mapped.toUpperCase(Locale.ROOT);
                default -> mapped;
            };
        }
    }

    /** Parses the rules; {@link IllegalArgumentException} naming the bad part. */
    public static PrincipalMappingRules parse(String text) {
        String trimmed = text == null ? "" : text.trim();
        if (trimmed.isEmpty()) {
            trimmed = "DEFAULT";
        }
        List<Rule> rules = new ArrayList<>();
        int position = 0;
        while (position < trimmed.length()) {
            String rest = trimmed.substring(position);
            if (rest.startsWith("DEFAULT")) {
                rules.add(new Rule(null, null, ' '));
                position += "DEFAULT".length();
            } else {
                Matcher matcher = RULE.matcher(rest);
                if (!matcher.lookingAt()) {
                    throw new IllegalArgumentException("expected RULE:pattern/replacement/[LU] or DEFAULT at '" + rest
                            + "'");
                }
                String pattern = matcher.group(1).replace("\\/", "/");
                String replacement = matcher.group(2).replace("\\/", "/");
                char caseChange = matcher.group(3).isEmpty() ? ' ' : matcher.group(3).charAt(0);
                try {
                    rules.add(new Rule(Pattern.compile(pattern), replacement, caseChange));
                } catch (java.util.regex.PatternSyntaxException e) {
                    throw new IllegalArgumentException("bad pattern in '" + matcher.group() + "': " + e.getDescription());
                }
                position += matcher.end();
            }
            while (position < trimmed.length() && Character.isWhitespace(trimmed.charAt(position))) {
                position++;
            }
            if (position < trimmed.length()) {
                if (trimmed.charAt(position) != ',') {
                    throw new IllegalArgumentException("expected ',' between rules at '" + trimmed.substring(position)
                            + "'");
                }
                position++;
                while (position < trimmed.length() && Character.isWhitespace(trimmed.charAt(position))) {
                    position++;
                }
            }
        }
        return new PrincipalMappingRules(rules, trimmed);
    }

    /** The user name for a certificate subject DN (RFC 2253 form, as {@code X500Principal.getName()}). */
    public String userName(String subjectDn) {
        for (Rule rule : rules) {
            String mapped = rule.apply(subjectDn);
            if (mapped != null) {
                return mapped;
            }
        }
        return subjectDn;
    }

    @Override
    public String toString() {
        return text;
    }
}
