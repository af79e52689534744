package io.cohort.cluster;

import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Owns a test's {@link ProcessCluster}: kills its nodes after the test, deletes the run directory
 * if the test passed (unless {@value #KEEP_PROPERTY} is set), and keeps it (node stdout/stderr,
 * logs, data, the test's history) if it failed, printing where it is.
 *
 * <pre>{@code
 * @RegisterExtension final ClusterRunExtension run = new ClusterRunExtension();
 * ... ProcessCluster cluster = run.start(ProcessCluster.builder().nodes(3));
 * }</pre>
 *
 * <p>The run directory is named after the test class and method.
 */
final class ClusterRunExtension implements BeforeEachCallback, AfterEachCallback {
    /** {@code -Dcohort.cluster.keep=true} keeps the run directory of passing tests too. */
    static final String KEEP_PROPERTY = "cohort.cluster.keep";

    private ProcessCluster cluster;
    private String testName = "cluster";

    /** Starts the cluster, naming its run directory after the running test. */
    ProcessCluster start(ProcessClusterBuilder builder) {
        if (cluster != null) {
            throw new IllegalStateException("this test already started a cluster in " + cluster.runDir());
        }
        cluster = builder.name(testName).start();
        return cluster;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        testName = context.getRequiredTestClass().getSimpleName() + "-" + context.getRequiredTestMethod().getName();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (cluster == null) {
            return;
        }
        ProcessCluster finished = cluster;
        cluster = null;
        finished.close();
        Optional<Throwable> failure = context.getExecutionException();
        if (failure.isPresent()) {
            System.err.println("[cluster-tests] " + context.getDisplayName() + " FAILED; node logs kept:\n"
                    + finished.describeFiles());
        } else if (Boolean.getBoolean(KEEP_PROPERTY)) {
            System.out.println("[cluster-tests] " + context.getDisplayName() + " passed; files kept in "
                    + finished.runDir());
        } else {
            finished.deleteFiles();
        }
    }
}
