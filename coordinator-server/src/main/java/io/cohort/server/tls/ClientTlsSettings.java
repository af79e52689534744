package io.cohort.server.tls;

import static io.cohort.server.ServerConfig.METRICS_TLS_ENABLED;
import static io.cohort.server.ServerConfig.TLS_CA;
import static io.cohort.server.ServerConfig.TLS_CERT;
import static io.cohort.server.ServerConfig.TLS_CLIENT_AUTH;
import static io.cohort.server.ServerConfig.TLS_ENABLED;
import static io.cohort.server.ServerConfig.TLS_KEY;
import static io.cohort.server.ServerConfig.TLS_RELOAD_CHECK_INTERVAL_MS;

import io.cohort.server.ConfigException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads and checks the {@code tls.*} settings (and {@code metrics.tls.enabled}) for
 * {@link io.cohort.server.ServerConfig}: with {@code tls.enabled=true} the certificate and key
 * files must exist, and a client CA is needed unless {@code tls.client.auth=none}. The files'
 * contents are checked when the node starts ({@link ServerTls#load}).
 */
public final class ClientTlsSettings {
    private ClientTlsSettings() {
    }

    /**
     * @param values the raw value of a key, or null if unset
     * @param source where a key's value came from, for error messages
     */
    public static ClientTlsConfig parse(Function<String, String> values, Function<String, String> source) {
        Reader reader = new Reader(values, source);
        boolean enabled = reader.bool(TLS_ENABLED, false);
        boolean metricsTls = reader.bool(METRICS_TLS_ENABLED, false);
        long intervalMs = reader.positiveLong(TLS_RELOAD_CHECK_INTERVAL_MS, 1_000);
        String authText = values.apply(TLS_CLIENT_AUTH);
        ClientAuth auth = authText == null ? ClientAuth.NONE : ClientAuth.parse(authText);
        if (auth == null) {
            throw reader.invalid(TLS_CLIENT_AUTH, "expected none, optional or required");
        }
        if (!enabled) {
            if (metricsTls) {
                throw new ConfigException(METRICS_TLS_ENABLED + "=true (from " + source.apply(METRICS_TLS_ENABLED)
                        + ") serves /metrics with the node's certificate, which needs " + TLS_ENABLED + "=true and "
                        + TLS_CERT + "/" + TLS_KEY);
            }
            return new ClientTlsConfig(false, null, null, null, ClientAuth.NONE, Duration.ofMillis(intervalMs), false);
        }
        Path cert = reader.requiredFile(TLS_CERT, "the node's certificate chain (PEM)");
        Path key = reader.requiredFile(TLS_KEY, "the node's private key (PEM)");
        Path ca = values.apply(TLS_CA) == null ? null : reader.requiredFile(TLS_CA, "the client CA bundle (PEM)");
        if (auth != ClientAuth.NONE && ca == null) {
            throw new ConfigException(TLS_CLIENT_AUTH + "=" + auth.value() + " (from " + source.apply(TLS_CLIENT_AUTH)
                    + ") needs " + TLS_CA + ", the CA bundle client certificates are checked against");
        }
        return new ClientTlsConfig(true, cert, key, ca, auth, Duration.ofMillis(intervalMs), metricsTls);
    }

    /** Adds the settings to a node's startup description. */
    public static void describe(ClientTlsConfig tls, Map<String, String> out) {
        out.put(TLS_ENABLED, Boolean.toString(tls.enabled()));
        if (tls.enabled()) {
            out.put(TLS_CERT, tls.certFile().toString());
            out.put(TLS_KEY, tls.keyFile().toString());
            out.put(TLS_CA, tls.clientCaFile() == null ? "" : tls.clientCaFile().toString());
            out.put(TLS_CLIENT_AUTH, tls.clientAuth().value());
            out.put(TLS_RELOAD_CHECK_INTERVAL_MS, Long.toString(tls.reloadCheckInterval().toMillis()));
        }
        out.put(METRICS_TLS_ENABLED, Boolean.toString(tls.metricsTls()));
    }

    private record Reader(Function<String, String> values, Function<String, String> source) {
        ConfigException invalid(String key, String why) {
            return new ConfigException("invalid " + key + " '" + values.apply(key) + "' (from " + source.apply(key)
                    + "): " + why);
        }

        boolean bool(String key, boolean defaultValue) {
            String text = values.apply(key);
            if (text == null) {
                return defaultValue;
            }
            return switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw invalid(key, "expected true or false");
            };
        }

        long positiveLong(String key, long defaultValue) {
            String text = values.apply(key);
            if (text == null) {
                return defaultValue;
            }
            try {
                long value = Long.parseLong(text.trim().replace("_", ""));
                if (value >= 1) {
                    return value;
                }
            } catch (NumberFormatException e) {
                throw invalid(key, "not an integer");
            }
            throw invalid(key, "expected 1 or more");
        }

        Path requiredFile(String key, String what) {
            String text = values.apply(key);
            if (text == null || text.isBlank()) {
                throw new ConfigException(TLS_ENABLED + "=true (from " + source.apply(TLS_ENABLED) + ") needs " + key
                        + ", " + what);
            }
            Path file;
            try {
                file = Path.of(text.trim());
            } catch (InvalidPathException e) {
                throw invalid(key, e.getMessage());
            }
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw invalid(key, "no readable file there");
            }
            return file;
        }
    }
}
