// How long this machine takes to wake a parked thread, after the machine idled for a while.
//
//   java scripts/wake-latency.java [GAPS_MS [SAMPLES]]      e.g. java scripts/wake-latency.java 0,1,5,20,100 300
//
// One thread parks; the main thread waits GAP ms (Thread.sleep: both threads idle, as a node's
// threads are between commits), then unparks it and spins until the woken thread reports the time
// it took. GAP 0 stands for a busy machine: the main thread spins 50 us instead of sleeping. Prints
// the wake-up latency's p50, p90 and p99 per gap. A Raft round through Ratis is a dozen or more such
// wake-ups one after the other (docs/BENCHMARKS.md, "Light load"), so their tail is the round's.
// A diagnostic (Java 17, no dependencies), not part of the build.

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

public class WakeLatency {
    private static volatile long unparkedAtNanos;
    private static volatile long wakeNanos = -1;

    public static void main(String[] args) throws InterruptedException {
        int[] gapsMs = Arrays.stream((args.length > 0 ? args[0] : "0,1,5,20,100").split(","))
                .mapToInt(Integer::parseInt).toArray();
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        Thread sleeper = new Thread(() -> {
            while (true) {
                LockSupport.park();
                long sent = unparkedAtNanos;
                if (sent != 0) {
                    wakeNanos = System.nanoTime() - sent;
                    unparkedAtNanos = 0;
                }
            }
        }, "sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        Thread.sleep(100);
        for (int gapMs : gapsMs) {
            long[] latencies = new long[samples];
            for (int i = 0; i < samples; i++) {
                if (gapMs > 0) {
                    Thread.sleep(gapMs);
                } else {
                    long start = System.nanoTime();
                    while (System.nanoTime() - start < 50_000) {
                        Thread.onSpinWait();
                    }
                }
                wakeNanos = -1;
                unparkedAtNanos = System.nanoTime();
                LockSupport.unpark(sleeper);
                while (wakeNanos < 0) {
                    Thread.onSpinWait();
                }
                latencies[i] = wakeNanos;
            }
            Arrays.sort(latencies);
            System.out.printf("gap %4d ms: wake-up p50 %7.1f us  p90 %7.1f us  p99 %7.1f us%n", gapMs,
                    latencies[samples / 2] / 1e3, latencies[samples * 9 / 10] / 1e3, latencies[samples * 99 / 100] / 1e3);
        }
    }
}
