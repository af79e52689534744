package io.cohort.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Node JVMs launched as scripts/cluster.sh launches them (under umask 077) keep their data private:
 * after a run with a SIGKILL and a restart, every directory in every node's data dir is 700 and
 * every file 600, those Ratis created while the node ran included.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DataDirPrivacyIT {
    private static final Duration SETTLE_BOUND = Duration.ofSeconds(60);

    @RegisterExtension
    final ClusterRunExtension run = new ClusterRunExtension();

    @Test
    void everyDataDirectoryIs700AndEveryFile600() throws Exception {
        ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3).partitions(2));
        cluster.awaitStableLeaders(SETTLE_BOUND);
        cluster.kill(1);
        cluster.start(1);
        cluster.awaitCaughtUp(1, SETTLE_BOUND);

        List<String> notPrivate = new ArrayList<>();
        int files = 0;
        for (int nodeId : cluster.nodeIds()) {
            try (Stream<Path> paths = Files.walk(cluster.dataDir(nodeId))) {
                for (Path path : paths.toList()) {
                    String mode;
                    try {
                        mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
                    } catch (NoSuchFileException e) {
                        continue; // renamed or deleted by the running node meanwhile (a new raft-meta)
                    }
                    boolean directory = Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
                    files += directory ? 0 : 1;
                    if (!mode.equals(directory ? "rwx------" : "rw-------")) {
                        notPrivate.add(mode + " " + path);
                    }
                }
            }
        }
        assertThat(files).as("files in the data dirs").isGreaterThan(3);
        assertThat(notPrivate).isEmpty();
    }
}
