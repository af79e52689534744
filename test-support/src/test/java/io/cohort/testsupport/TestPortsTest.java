package io.cohort.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPortsTest {

    /** The helper every test cluster used before: the kernel forgets the port when the socket closes. */
    private static int oldFreePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theOldOpenAndCloseHelperHandsOutTheSamePortTwice() {
        // The kernel's ephemeral range holds at most 64512 ports, so a repeat must come before that many
        // calls; in practice it comes after a few hundred (a birthday collision).
        Set<Integer> seen = new HashSet<>();
        int calls = 0;
        boolean repeated = false;
        while (!repeated && calls <= 65536) {
            repeated = !seen.add(oldFreePort());
            calls++;
        }
        System.out.println("open/close ServerSocket(0) repeated a port after " + calls + " calls");
        assertThat(repeated).as("a port handed out twice").isTrue();
    }

    @Test
    void handsOutEachPortAtMostOncePerJvmEvenFromManyThreads() throws Exception {
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        List<Integer> all = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 250; i++) {
                        int port = TestPorts.next();
                        seen.add(port);
                        all.add(port);
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        int[] range = TestPorts.defaultRange();
        assertThat(all).hasSize(1000);
        assertThat(seen).hasSize(1000);
        assertThat(all).allSatisfy(port -> assertThat(port).isBetween(range[0], range[1] - 1));
    }

    @Test
    void anotherJvmNeverGetsAPortThisJvmHolds() throws Exception {
        Set<Integer> mine = new HashSet<>();
        for (int port : TestPorts.next(150)) {
            mine.add(port);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process other = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), TestPorts.class.getName(), "300")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            Set<Integer> theirs = new HashSet<>();
            BufferedReader lines = new BufferedReader(new InputStreamReader(other.getInputStream(),
                    StandardCharsets.UTF_8));
            for (int i = 0; i < 300; i++) {
                theirs.add(Integer.parseInt(lines.readLine().trim()));
            }
            // While the other JVM still holds its blocks, this one keeps allocating.
            for (int port : TestPorts.next(150)) {
                mine.add(port);
            }
            assertThat(theirs).hasSize(300);
            assertThat(mine).hasSize(300);
            assertThat(theirs).doesNotContainAnyElementsOf(mine);
        } finally {
            other.getOutputStream().close();
            if (!other.waitFor(30, TimeUnit.SECONDS)) {
                other.destroyForcibly();
            }
        }
    }

    @Test
    void skipsAPortSomeoneListensOnAndFailsClearlyWhenTheRangeIsUsedUp(@TempDir Path lockDir) throws IOException {
        int[] range = TestPorts.defaultRange();
        // One block of our own, with its own lock directory so the shared allocator is not involved.
        int low = range[1] - TestPorts.BLOCK_SIZE;
        TestPorts ports = new TestPorts(new int[] {low, range[1]}, lockDir);
        int busy = -1;
        ServerSocket listener = null;
        for (int candidate = low; candidate < range[1] && listener == null; candidate++) {
            try {
                ServerSocket socket = new ServerSocket();
                socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), candidate));
                listener = socket;
                busy = candidate;
            } catch (IOException e) {
                // taken already; try the next one
            }
        }
        assertThat(listener).isNotNull();
        try (ServerSocket held = listener) {
            Set<Integer> handedOut = new HashSet<>();
            assertThatThrownBy(() -> {
                while (true) {
                    handedOut.add(ports.nextPort());
                }
            }).isInstanceOf(IllegalStateException.class).hasMessageContaining("no test ports left");
            assertThat(handedOut).doesNotContain(busy).hasSizeLessThan(TestPorts.BLOCK_SIZE)
                    .allSatisfy(port -> assertThat(port).isBetween(low, range[1] - 1));
        }
    }
}
