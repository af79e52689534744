package io.cohort.raft;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The Ratis settings Cohort chooses, each with its reason (docs/OPERATIONS.md has the measurements).
 * Immutable; made with {@link #builder()} (the defaults, then what the caller changes) or
 * {@link #toBuilder()} (this tuning, then what the caller changes):
 *
 * <pre>{@code RaftTuning.builder().electionTimeouts(300, 600).snapshotEveryEntries(500).build()}</pre>
 *
 * <p>A new setting is one field with its default and one setter in {@link Builder}, and one accessor
 * here: no constructor call elsewhere changes, and equality, hashing and {@link #toString()} follow
 * the builder's fields by themselves.
 */
public final class RaftTuning {
    private final Builder values;
    /** The values of every setting, in declaration order: what equality, hashing and toString use. */
    private final List<Object> settings;

    private RaftTuning(Builder values) {
        this.values = values;
        this.settings = values.settings();
    }

    /** The defaults; see docs/OPERATIONS.md ("Raft settings") for why each value. */
    public static RaftTuning defaults() {
        return builder().build();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this tuning's values. */
    public Builder toBuilder() {
        return values.copy();
    }

    /** Raft election timeout lower bound. */
    public int electionTimeoutMinMs() {
        return values.electionTimeoutMinMs;
    }

    /** Raft election timeout upper bound. */
    public int electionTimeoutMaxMs() {
        return values.electionTimeoutMaxMs;
    }

    /** Ratis server-to-server request timeout. */
    public int rpcRequestTimeoutMs() {
        return values.rpcRequestTimeoutMs;
    }

    /** How long a leader that stepped down waits before standing again. */
    public int leaderStepDownWaitMs() {
        return values.leaderStepDownWaitMs;
    }

    /** Take a snapshot after this many applied entries (auto trigger). */
    public long snapshotEveryEntries() {
        return values.snapshotEveryEntries;
    }

    /**
     * A replica also takes a snapshot once this many entries since its last one hold as many bytes
     * as that snapshot ({@link LogReplayBound}): bounds what a restart applies again.
     */
    public long snapshotMinEntries() {
        return values.snapshotMinEntries;
    }

    /** Snapshots kept on disk per partition. */
    public int snapshotRetentionFiles() {
        return values.snapshotRetentionFiles;
    }

    /** Raft log segment size. */
    public long segmentSizeMaxBytes() {
        return values.segmentSizeMaxBytes;
    }

    /** Bytes preallocated per new segment. */
    public long preallocatedBytes() {
        return values.preallocatedBytes;
    }

    /**
     * How far Ratis's op-size limit (the write buffer - 8 bytes: {@code raft.server.log.appender.
     * buffer.byte-limit}) lies above a power of two. Ratis's segment reader grows a scratch buffer by
     * doubling from 4 KiB, capped at that limit, and checks the zeros after the last entry of an open
     * segment in reads of the scratch's size from a mark of the same limit. A limit just under a power
     * of two (the old 1 MiB buffer - 8) lets one entry of more than half of it grow the scratch to the
     * limit, and that check then reads past its mark: after a crash the node cannot open its log
     * ("Failed to initRaftLog ... Resetting to invalid mark", {@code LargeEntryRestartTest}). A limit
     * a few bytes above a power of two keeps the scratch at most that power, one byte below the mark.
     */
    public static final long OP_LIMIT_ABOVE_POWER_OF_TWO = 8;

    /** The log writer's direct buffer per partition: a power of two + 16 bytes (see {@link #OP_LIMIT_ABOVE_POWER_OF_TWO}). */
    public long writeBufferBytes() {
        return values.writeBufferBytes;
    }

    /** Group commit: most commands in one log entry. */
    public int maxBatchCommands() {
        return values.maxBatchCommands;
    }

    /** Group commit: most encoded bytes in one log entry (soft). */
    public int maxBatchBytes() {
        return values.maxBatchBytes;
    }

    /** Group commit: entries outstanding per partition before queueing. */
    public int maxInFlightEntries() {
        return values.maxInFlightEntries;
    }

    /** How long a proposal may take before its outcome is unknown. */
    public long proposalTimeoutMs() {
        return values.proposalTimeoutMs;
    }

    /** Linearizable read (read index) timeout. */
    public long readTimeoutMs() {
        return values.readTimeoutMs;
    }

    /** Serve linearizable reads from the leader lease when valid. */
    public boolean leaderLeaseEnabled() {
        return values.leaderLeaseEnabled;
    }

    /**
     * A new leader keeps a partition at least this long before handing it to the partition's
     * preferred node.
     */
    public long leaderBalanceHoldMs() {
        return values.leaderBalanceHoldMs;
    }

    /**
     * The leader balancer hands partitions to their preferred nodes (Kafka's
     * {@code auto.leader.rebalance.enable}, default true). Off, leaders stay where elections put
     * them: a node back from a restart takes nothing back, so its return costs no pause, and
     * leadership is not spread again after failovers (nor at start with several partitions).
     */
    public boolean leaderRebalanceEnabled() {
        return values.leaderRebalanceEnabled;
    }

    /**
     * A follower that succeeds a leader whose process exited stands for election at once rather than
     * after its election timeout ({@link LeaderExitElection}; default true). The front end tells the
     * node of the exit (its connection to that node closed and reconnecting was refused).
     */
    public boolean electionOnLeaderExit() {
        return values.electionOnLeaderExit;
    }

    /**
     * How long a replica may stay behind the committed index without applying anything before its
     * node reports it as stalled, with a thread dump, and a leader hands its partition on
     * ({@link StalledApplyWatch}; default 30 s).
     */
    public long applyStallMs() {
        return values.applyStallMs;
    }

    /**
     * Whether a replica acknowledges a log entry (and a leader counts its own copy) only after
     * fsync (default true). False (Ratis's {@code raft.server.log.unsafe-flush.enabled}): once
     * the entry is written to the operating system, with the fsync started at once in the
     * background: an acknowledged commit then survives the crash or SIGKILL of any number of node
     * processes (the page cache is the kernel's), and is lost only if a majority of the replicas
     * that held it lose their machines (power, kernel crash) before their fsync finished. Kafka's
     * default durability: its brokers do not fsync before acks=all either. Takes the follower's
     * fsync off every commit's critical path.
     */
    public boolean fsyncBeforeAck() {
        return values.fsyncBeforeAck;
    }

    /**
     * Ratis writes a metadata entry (the commit index) to the log after every commit-index advance.
     * Off: it doubled the log writes of a lightly loaded partition, and Raft needs no persisted
     * commit index.
     */
    public boolean logMetadataEnabled() {
        return values.logMetadataEnabled;
    }

    /**
     * Ratis's least time between two AppendEntries sends to one follower
     * ({@code raft.server.log.appender.wait-time.min}); an entry ready sooner waits for it.
     */
    public int appenderWaitMinMs() {
        return values.appenderWaitMinMs;
    }

    /**
     * Group commit: how long a free slot may wait for the commands the next entry is expected to
     * carry ({@link Proposer}); 0: never wait.
     */
    public int batchLingerMaxMicros() {
        return values.batchLingerMaxMicros;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RaftTuning that && settings.equals(that.settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("RaftTuning[");
        List<Field> fields = Builder.settingFields();
        for (int i = 0; i < fields.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(fields.get(i).getName()).append('=').append(settings.get(i));
        }
        return out.append(']').toString();
    }

    /** The values of a tuning being made, starting from the defaults (or a tuning's); {@link #build()} validates. */
    public static final class Builder {
        private static final List<Field> SETTING_FIELDS = instanceFields();
        static final int ELECTION_TIMEOUT_MIN_MS_FLOOR = 200;
        static final int ELECTION_TIMEOUT_MAX_MS_FLOOR = 400;
        static final int ELECTION_TIMEOUT_MIN_MS_MANY = 300;
        static final int ELECTION_TIMEOUT_MS_PER_PARTITION = 20;

        private int electionTimeoutMinMs = ELECTION_TIMEOUT_MIN_MS_FLOOR;
        private int electionTimeoutMaxMs = ELECTION_TIMEOUT_MAX_MS_FLOOR;
        private int rpcRequestTimeoutMs = 3_000;
        private int leaderStepDownWaitMs = 1_000;
        private long snapshotEveryEntries = 10_000;
        private long snapshotMinEntries = 1_000;
        private int snapshotRetentionFiles = 2;
        private long segmentSizeMaxBytes = 32L << 20;
        private long preallocatedBytes = 1L << 20;
        private long writeBufferBytes = (1L << 20) + OP_LIMIT_ABOVE_POWER_OF_TWO + 8;
        private int maxBatchCommands = 256;
        private int maxBatchBytes = 512 << 10;
        private int maxInFlightEntries = 1;
        private long proposalTimeoutMs = 5_000;
        private long readTimeoutMs = 5_000;
        private boolean leaderLeaseEnabled = true;
        private long leaderBalanceHoldMs = 5_000;
        private boolean leaderRebalanceEnabled = true;
        private boolean electionOnLeaderExit = true;
        private long applyStallMs = 30_000;
        private boolean logMetadataEnabled = false;
        private boolean fsyncBeforeAck = true;
        private int appenderWaitMinMs = 1;
        // 5 ms, not 2: with 32 back-to-back committers on a loaded machine their returns spread over
        // more than 2 ms, and a 2 ms linger sent short entries (docs/BENCHMARKS.md, Tuning #28).
        private int batchLingerMaxMicros = 5_000;

        private Builder() {
        }

        /**
         * The default election timeouts for a node hosting {@code partitions} Raft groups (max is
         * twice min): {@value #ELECTION_TIMEOUT_MIN_MS_FLOOR} ms with one partition (the failover
         * tuning of docs/BENCHMARKS.md), else {@value #ELECTION_TIMEOUT_MIN_MS_MANY} ms or
         * {@value #ELECTION_TIMEOUT_MS_PER_PARTITION} ms per partition, whichever is more. Ratis sends
         * a heartbeat to each follower every min/2, so a node leading a third of P groups of 3 sends
         * 4,000 P / (3 min) heartbeats a second: with min growing with P that stays at about 67
         * whatever P, instead of 330 at P = 50 with 200 ms; and every group adds load that delays
         * heartbeats. Measured on a loaded machine (docs/OPERATIONS.md, "The cost of a partition"):
         * 150/300 ms churned from P = 3, 300/600 ms held up to P = 16, and at P = 50 200/400 ms never
         * settled (terms 38-52 per partition within 3 minutes without a client) while 1,000/2,000 ms
         * held idle and under load.
         */
        public Builder electionTimeoutsFor(int partitions) {
            int minMs = partitions <= 1 ? ELECTION_TIMEOUT_MIN_MS_FLOOR
                    : Math.max(ELECTION_TIMEOUT_MIN_MS_MANY, ELECTION_TIMEOUT_MS_PER_PARTITION * partitions);
            return electionTimeouts(minMs, 2 * minMs);
        }

        public Builder electionTimeouts(int minMs, int maxMs) {
            this.electionTimeoutMinMs = minMs;
            this.electionTimeoutMaxMs = maxMs;
            return this;
        }

        public Builder rpcRequestTimeoutMs(int timeoutMs) {
            this.rpcRequestTimeoutMs = timeoutMs;
            return this;
        }

        public Builder leaderStepDownWaitMs(int waitMs) {
            this.leaderStepDownWaitMs = waitMs;
            return this;
        }

        public Builder snapshotEveryEntries(long entries) {
            this.snapshotEveryEntries = entries;
            return this;
        }

        public Builder snapshotMinEntries(long entries) {
            this.snapshotMinEntries = entries;
            return this;
        }

        public Builder snapshotRetentionFiles(int files) {
            this.snapshotRetentionFiles = files;
            return this;
        }

        /** Smaller log segments (and preallocation), so that tests fill and purge closed segments quickly. */
        public Builder segmentSizeMaxBytes(long segmentBytes) {
            this.segmentSizeMaxBytes = segmentBytes;
            this.preallocatedBytes = Math.min(preallocatedBytes, segmentBytes);
            return this;
        }

        /** Bytes Ratis preallocates each time a log segment grows (at most the segment size). */
        public Builder preallocatedBytes(long bytes) {
            this.preallocatedBytes = bytes;
            return this;
        }

        public Builder writeBufferBytes(long bytes) {
            this.writeBufferBytes = bytes;
            return this;
        }

        /** Group commit: most commands per entry, and entries in flight per partition. */
        public Builder batching(int commands, int inFlight) {
            this.maxBatchCommands = commands;
            this.maxInFlightEntries = inFlight;
            return this;
        }

        public Builder maxBatchBytes(int bytes) {
            this.maxBatchBytes = bytes;
            return this;
        }

        public Builder proposalTimeoutMs(long timeoutMs) {
            this.proposalTimeoutMs = timeoutMs;
            return this;
        }

        public Builder readTimeoutMs(long timeoutMs) {
            this.readTimeoutMs = timeoutMs;
            return this;
        }

        public Builder leaderLeaseEnabled(boolean enabled) {
            this.leaderLeaseEnabled = enabled;
            return this;
        }

        public Builder leaderBalanceHoldMs(long holdMs) {
            this.leaderBalanceHoldMs = holdMs;
            return this;
        }

        public Builder leaderRebalanceEnabled(boolean enabled) {
            this.leaderRebalanceEnabled = enabled;
            return this;
        }

        public Builder electionOnLeaderExit(boolean enabled) {
            this.electionOnLeaderExit = enabled;
            return this;
        }

        public Builder applyStallMs(long stallMs) {
            this.applyStallMs = stallMs;
            return this;
        }

        public Builder logMetadataEnabled(boolean enabled) {
            this.logMetadataEnabled = enabled;
            return this;
        }

        public Builder fsyncBeforeAck(boolean fsync) {
            this.fsyncBeforeAck = fsync;
            return this;
        }

        public Builder appenderWaitMinMs(int waitMs) {
            this.appenderWaitMinMs = waitMs;
            return this;
        }

        public Builder batchLingerMaxMicros(int lingerMicros) {
            this.batchLingerMaxMicros = lingerMicros;
            return this;
        }

        /** The tuning; throws IllegalArgumentException for values that cannot work together. */
        public RaftTuning build() {
            if (electionTimeoutMinMs <= 0 || electionTimeoutMaxMs <= electionTimeoutMinMs) {
                throw new IllegalArgumentException("election timeout must be 0 < min < max, got "
                        + electionTimeoutMinMs + ".." + electionTimeoutMaxMs);
            }
            if (appenderWaitMinMs < 0 || batchLingerMaxMicros < 0) {
                throw new IllegalArgumentException("appender wait and batch linger must be >= 0, got "
                        + appenderWaitMinMs + " ms and " + batchLingerMaxMicros + " us");
            }
            if (snapshotEveryEntries < 1 || snapshotMinEntries < 1) {
                throw new IllegalArgumentException("snapshot entry counts must be >= 1, got every "
                        + snapshotEveryEntries + ", min " + snapshotMinEntries);
            }
            if (applyStallMs <= 0) {
                throw new IllegalArgumentException("the apply stall report must be > 0 ms, got " + applyStallMs);
            }
            if (maxBatchCommands < 1 || maxInFlightEntries < 1 || maxBatchBytes < 1) {
                throw new IllegalArgumentException("batch limits must be positive");
            }
            long opLimit = writeBufferBytes - 8;
            if (opLimit < 4096 + OP_LIMIT_ABOVE_POWER_OF_TWO
                    || Long.bitCount(opLimit - OP_LIMIT_ABOVE_POWER_OF_TWO) != 1) {
                throw new IllegalArgumentException("the log write buffer must be a power of two (at least 4 KiB) plus "
                        + (OP_LIMIT_ABOVE_POWER_OF_TWO + 8) + " bytes, got " + writeBufferBytes
                        + " (see RaftTuning.OP_LIMIT_ABOVE_POWER_OF_TWO)");
            }
            // A copy: the builder may go on being changed without changing what it built.
            return new RaftTuning(copy());
        }

        private Builder copy() {
            Builder copy = new Builder();
            try {
                for (Field field : settingFields()) {
                    field.set(copy, field.get(this));
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return copy;
        }

        private List<Object> settings() {
            List<Object> out = new ArrayList<>();
            try {
                for (Field field : settingFields()) {
                    out.add(field.get(this));
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return Collections.unmodifiableList(out);
        }

        /** Every setting is an instance field of this class: copying and comparing need no list of them. */
        private static List<Field> settingFields() {
            return SETTING_FIELDS;
        }

        private static List<Field> instanceFields() {
            List<Field> fields = new ArrayList<>();
            for (Field field : Builder.class.getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers())) {
                    fields.add(field);
                }
            }
            return List.copyOf(fields);
        }
    }
}
