package io.cohort.server;

import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The node's logging: slf4j with logback ({@code cohort-server-logback.xml} in this module, unless
 * {@code -Dlogback.configurationFile} names another) writing
 * {@code <log.dir>/node-<id>.log}, WARN and above also to stderr. The file name comes from system
 * properties, so they are set before the first logger is created; gRPC's java.util.logging is
 * routed into the same file.
 */
final class Logging {
    static final String LOG_DIR_PROPERTY = "cohort.log.dir";
    static final String NODE_ID_PROPERTY = "cohort.node.id";
    static final String LOGBACK_CONFIG_PROPERTY = "logback.configurationFile";
    static final String NODE_LOGBACK_CONFIG = "cohort-server-logback.xml";

    private Logging() {
    }

    static void configure(ServerConfig config) {
        System.setProperty(LOG_DIR_PROPERTY, config.logDir().toAbsolutePath().toString());
        System.setProperty(NODE_ID_PROPERTY, Integer.toString(config.nodeId()));
        if (System.getProperty(LOGBACK_CONFIG_PROPERTY) == null) {
            System.setProperty(LOGBACK_CONFIG_PROPERTY, NODE_LOGBACK_CONFIG);
        }
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }

    static void error(String message, Throwable error) {
        LoggerFactory.getLogger(CohortServerMain.class).error(message, error);
    }
}
