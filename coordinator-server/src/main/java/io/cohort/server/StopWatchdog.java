package io.cohort.server;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.Map;

/**
 * Bounds a stop that must end: after {@code limitMs} it prints why, and every thread's stack, to
 * stderr and halts the JVM with an exit code the supervisor acts on. An orderly stop is bounded step
 * by step (hand-offs, the gRPC drain), but the Raft server's own stop waits without a limit for its
 * threads (the apply thread among them), and a node asked to stop must stop: the stack dump says
 * which thread held it. Halting skips the other shutdown hooks; nothing of the node's durable state
 * depends on them (the log is fsynced as it is written, a snapshot is renamed into place complete).
 */
final class StopWatchdog {
    private StopWatchdog() {
    }

    /** Starts the watchdog (a daemon thread); {@code limitMs} 0 or less: none. */
    static void start(long limitMs, int exitCode, String what, PrintStream err) {
        if (limitMs <= 0) {
            return;
        }
        Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(limitMs);
            } catch (InterruptedException e) {
                return;
            }
            err.println("cohort-server: " + what + " took over " + limitMs + " ms; halting with exit code " + exitCode
                    + ". The threads at that moment:");
            printThreads(err);
            err.flush();
            Runtime.getRuntime().halt(exitCode);
        }, "cohort-stop-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Every live thread's name, state and stack, as a thread dump shows them. */
    private static void printThreads(PrintStream err) {
        Map<Thread, StackTraceElement[]> stacks = Thread.getAllStackTraces();
        stacks.entrySet().stream().sorted(Comparator.comparing(entry -> entry.getKey().getName()))
                .forEach(entry -> {
                    Thread thread = entry.getKey();
                    err.println("\"" + thread.getName() + "\"" + (thread.isDaemon() ? " daemon" : "") + " "
                            + thread.getState());
                    for (StackTraceElement frame : entry.getValue()) {
                        err.println("\tat " + frame);
                    }
                    err.println();
                });
    }
}
