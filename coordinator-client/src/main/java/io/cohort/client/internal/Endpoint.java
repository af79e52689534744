package io.cohort.client.internal;

/** A node's client address. */
public record Endpoint(String host, int port) {
    /** Parses {@code host:port}; {@code [v6]:port} for IPv6 literals. */
    public static Endpoint parse(String text) {
        String trimmed = text.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(trimmed.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected HOST:PORT with a numeric port, got '" + text + "'");
        }
        if (port <= 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range in '" + text + "'");
        }
        return new Endpoint(host, port);
    }

    @Override
    public String toString() {
        return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
}
