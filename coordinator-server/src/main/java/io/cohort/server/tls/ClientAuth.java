package io.cohort.server.tls;

import java.util.Locale;

/** Whether the client port asks for client certificates ({@code tls.client.auth}), as Kafka's ssl.client.auth. */
public enum ClientAuth {
    /** No client certificate is asked for. */
    NONE,
    /** A client certificate is asked for; a client without one is let in, one with an untrusted one is refused. */
    OPTIONAL,
    /** A client without a certificate signed by the client CA ({@code tls.ca}) is refused in the handshake. */
    REQUIRED;

    /** The setting's value: none, optional, required. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses none|optional|required (any case); null if it is none of them. */
    public static ClientAuth parse(String text) {
        for (ClientAuth auth : values()) {
            if (auth.value().equalsIgnoreCase(text.trim())) {
                return auth;
            }
        }
        return null;
    }
}
