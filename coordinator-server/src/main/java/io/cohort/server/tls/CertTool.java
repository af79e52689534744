package io.cohort.server.tls;

import io.cohort.raft.tls.CertificateAuthority;
import io.cohort.raft.tls.CertificateAuthority.Issued;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates a throwaway PKI for a test or laptop cluster, with nothing but Java (no openssl):
 * {@code java -cp cohort-server.jar io.cohort.server.tls.CertTool generate --dir data/certs --nodes 3}.
 *
 * <p>Files (PEM; keys PKCS#8, readable by the owner only; the directory 700):
 * <ul>
 *   <li>{@code ca.pem}, {@code ca-key.pem}: the client-port CA. It signs the nodes' client-port
 *       certificates (clients trust it: {@code --cacert ca.pem}) and the client certificates
 *       (nodes trust it: {@code tls.ca}).</li>
 *   <li>{@code node-<i>.pem}, {@code node-<i>-key.pem}: node i's client-port certificate
 *       ({@code tls.cert}, {@code tls.key}), CN=node-i, with the hosts as subject alternative names.</li>
 *   <li>{@code <name>.pem}, {@code <name>-key.pem} for each {@code --client NAME} (default
 *       {@code client}): a client certificate, CN=NAME ({@code --cert}, {@code --key}).</li>
 *   <li>{@code peer-ca.pem}, {@code peer-ca-key.pem}: the Raft-port CA, separate from the client CA,
 *       so a client certificate can never pass as a Raft peer ({@code raft.tls.ca}).</li>
 *   <li>{@code peer-node-<i>.pem}, {@code peer-node-<i>-key.pem}: node i's Raft-port certificate
 *       (server and client use), CN=peer-node-i ({@code raft.tls.cert}, {@code raft.tls.key}).</li>
 * </ul>
 * An existing {@code ca.pem} is kept (and nothing is written) unless {@code --force}.
 */
public final class CertTool {
    static final String USAGE = String.join("\n",
            "usage: java -cp cohort-server.jar io.cohort.server.tls.CertTool generate [options]",
            "  --dir DIR          where to write the files (default: data/certs)",
            "  --nodes N          how many node certificates (node-1..node-N, peer-node-1..N; default 3)",
            "  --hosts H1,H2,...  the names the nodes are reached by, put in their certificates",
            "                     (default: 127.0.0.1,localhost,::1)",
            "  --client NAME      a client certificate NAME.pem with CN=NAME; repeatable (default: client)",
            "  --days D           validity of every certificate (default 365)",
            "  --force            overwrite an existing set");

    /** What to generate. */
    record Options(Path dir, int nodes, List<String> hosts, List<String> clients, int days, boolean force) {
    }

    private CertTool() {
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        System.exit(code);
    }

    /** Runs the tool; returns the exit code (0 done or kept, 1 failed, 2 usage error). */
    static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println("certtool: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        if (options == null) {
            out.println(USAGE);
            return 0;
        }
        try {
            if (Files.exists(options.dir().resolve("ca.pem")) && !options.force()) {
                out.println("certificates already in " + options.dir() + " (kept; --force to replace them)");
                return 0;
            }
            generate(options);
            out.println("wrote a CA, " + options.nodes() + " node certificates, " + options.clients().size()
                    + " client certificate(s) and a separate peer CA with " + options.nodes()
                    + " peer certificates to " + options.dir());
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("certtool: cannot write certificates to " + options.dir() + ": " + e.getMessage());
            return 1;
        }
    }

    /** Writes the full set described in the class comment. */
    public static void generate(Options options) throws IOException {
        Path dir = options.dir();
        Files.createDirectories(dir);
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // Not POSIX: nothing more to do.
        }
        Duration validity = Duration.ofDays(options.days());
        CertificateAuthority clientCa = CertificateAuthority.create("Cohort client CA", validity);
        CertificateAuthority peerCa = CertificateAuthority.create("Cohort peer CA", validity);
        clientCa.root().write(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"));
        peerCa.root().write(dir.resolve("peer-ca.pem"), dir.resolve("peer-ca-key.pem"));
        for (int i = 1; i <= options.nodes(); i++) {
            Issued node = clientCa.issue("CN=node-" + i + ",O=Cohort", options.hosts(), validity);
            node.write(dir.resolve("node-" + i + ".pem"), dir.resolve("node-" + i + "-key.pem"));
            Issued peer = peerCa.issue("CN=peer-node-" + i + ",O=Cohort", options.hosts(), validity);
            peer.write(dir.resolve("peer-node-" + i + ".pem"), dir.resolve("peer-node-" + i + "-key.pem"));
        }
        for (String client : options.clients()) {
            Issued issued = clientCa.issue("CN=" + client + ",O=Cohort", List.of(), validity);
            issued.write(dir.resolve(client + ".pem"), dir.resolve(client + "-key.pem"));
        }
    }

    /** The options, or null for --help. */
    static Options parse(String[] args) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            return null;
        }
        if (!args[0].equals("generate")) {
            throw new IllegalArgumentException("unknown command '" + args[0] + "' (expected generate)");
        }
        Path dir = Path.of("data/certs");
        int nodes = 3;
        int days = 365;
        boolean force = false;
        List<String> hosts = List.of("127.0.0.1", "localhost", "::1");
        List<String> clients = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--dir" -> dir = Path.of(value(args, ++i, arg));
                case "--nodes" -> nodes = positive(value(args, ++i, arg), arg);
                case "--days" -> days = positive(value(args, ++i, arg), arg);
                case "--hosts" -> hosts = List.of(value(args, ++i, arg).split(","));
                case "--client" -> {
                    String name = value(args, ++i, arg);
                    if (!name.matches("[A-Za-z0-9._-]{1,64}") || name.startsWith("node-") || name.startsWith("peer-")
                            || name.startsWith("ca")) {
                        throw new IllegalArgumentException("--client '" + name + "': expected letters, digits . _ -, "
                                + "not starting with node-, peer- or ca");
                    }
                    clients.add(name);
                }
                case "--force" -> force = true;
                default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
            }
        }
        return new Options(dir, nodes, hosts, clients.isEmpty() ? List.of("client") : List.copyOf(clients), days,
                force);
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }

    private static int positive(String text, String option) {
        try {
            int value = Integer.parseInt(text);
            if (value >= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // Falls through to the error below.
        }
        throw new IllegalArgumentException(option + " expects a positive integer, got '" + text + "'");
    }
}
