package io.cohort.raft;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * The last membership this node applied, in {@code <dataDir>/membership.properties}: what the
 * node needs before its Raft server has loaded partition 0's configuration (the Raft port guard
 * must accept the members added since the cluster was created), and whether it was removed from
 * the cluster. Only a cache: partition 0's configuration is the truth and overwrites it. Rewritten
 * atomically (temp file, then rename), so a crash leaves the old or the new one.
 */
final class MembershipCache {
    static final String FILE_NAME = "membership.properties";

    record Cached(Membership membership, boolean removed) {
    }

    private MembershipCache() {
    }

    static Optional<Cached> read(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
            return Optional.of(new Cached(new Membership(parse(p.getProperty("voters", "")),
                    parse(p.getProperty("listeners", "")), Long.parseLong(p.getProperty("conf.index", "-1"))),
                    Boolean.parseBoolean(p.getProperty("removed", "false"))));
        } catch (IOException | IllegalArgumentException e) {
            // A cache: the Raft configuration will be read again once the server is up.
            return Optional.empty();
        }
    }

    static void write(Path dataDir, Membership membership, boolean removed) {
        Path temp = dataDir.resolve(FILE_NAME + ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
                out.write("# written by the node: partition 0's Raft configuration as last applied; do not edit\n");
                out.write("voters=" + Membership.specs(membership.voters()) + "\n");
                out.write("listeners=" + Membership.specs(membership.listeners()) + "\n");
                out.write("conf.index=" + membership.confIndex() + "\n");
                out.write("removed=" + removed + "\n");
            }
            Files.move(temp, dataDir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<NodeAddress> parse(String specs) {
        return Arrays.stream(specs.split(",")).filter(s -> !s.isBlank()).map(NodeAddress::parse).toList();
    }
}
