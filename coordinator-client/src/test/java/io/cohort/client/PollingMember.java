package io.cohort.client;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a {@link GroupMember}'s poll loop on its own thread, as an application would. */
final class PollingMember implements AutoCloseable {
    final String name;
    final GroupMember member;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;
    private volatile boolean paused;

    PollingMember(String name, GroupMember member) {
        this.name = name;
        this.member = member;
        this.thread = new Thread(this::loop, "poll-" + name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        try {
            while (running) {
                if (paused) {
                    Thread.sleep(20);
                    continue;
                }
                member.poll(Duration.ofMillis(100));
                Thread.sleep(20);
            }
            member.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            failure.set(t);
        }
    }

    /** Stops calling poll (the heartbeat thread goes on), as an application busy with a batch. */
    void pause() {
        paused = true;
    }

    void resume() {
        paused = false;
    }

    Set<TopicPartition> assignment() {
        return member.assignment();
    }

    Throwable failure() {
        return failure.get();
    }

    /** Stops polling and closes the member on its own thread (revoke, commit, LeaveGroup). */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(60_000);
    }
}
