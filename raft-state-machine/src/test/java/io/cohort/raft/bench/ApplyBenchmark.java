package io.cohort.raft.bench;

import io.cohort.core.Bytes;
import io.cohort.core.GroupConfig;
import io.cohort.core.command.Command;
import io.cohort.core.group.ClassicGroupState;
import io.cohort.core.group.Protocol;
import io.cohort.core.shard.GroupCoordinatorShard;
import io.cohort.raft.log.LogCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What one partition's apply thread can do, without Raft: decode a committed log entry and apply its
 * OffsetCommit commands to a shard (a consumer of a Stable group committing one partition each), with
 * one command per entry or a group commit of 16 or 64. The apply benchmarks count commands, not
 * entries ({@link OperationsPerInvocation}), so their ops/s compare directly. The codec benchmarks
 * count entries. Run with scripts/jmh.sh; never part of mvn verify.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class ApplyBenchmark {
    private static final String GROUP_ID = "bench-group";
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 64;
    /** Distinct pre-encoded entries cycled through, so every entry is not the same cached bytes. */
    private static final int ENTRIES = 1024;

    /** A shard with one Stable group of one member, and pre-encoded entries of its commits. */
    @State(Scope.Thread)
    public static class ApplyState {
        GroupCoordinatorShard shard;
        String memberId;
        long nowMs = 1_700_000_000_000L;
        byte[][] single;
        byte[][] batch16;
        byte[][] batch64;
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            shard = new GroupCoordinatorShard(GroupConfig.defaults());
            memberId = stableGroupWithOneMember();
            single = entries(1);
            batch16 = entries(16);
            batch64 = entries(64);
        }

        private String stableGroupWithOneMember() {
            shard.apply(new Command.JoinGroup(GROUP_ID, "", null, "consumer",
                    List.of(new Protocol("range", Bytes.EMPTY)), 10_000, 60_000, "bench-client", "/127.0.0.1", null,
                    (short) 3, "m1"), nowMs);
            String id = "bench-client-m1";
            for (int i = 0; i < 10 && shard.group(GROUP_ID).state() == ClassicGroupState.PREPARING_REBALANCE; i++) {
                long deadlineMs = shard.group(GROUP_ID).joinTimer().deadlineMs();
                nowMs = Math.max(nowMs, deadlineMs);
                shard.apply(new Command.FireJoinTimer(GROUP_ID, deadlineMs), nowMs);
            }
            int generation = shard.group(GROUP_ID).generationId();
            shard.apply(new Command.SyncGroup(GROUP_ID, generation, id, null, null, null,
                    List.of(new Command.MemberAssignment(id, Bytes.copyOf(new byte[] {1})))), nowMs);
            if (shard.group(GROUP_ID).state() != ClassicGroupState.STABLE) {
                throw new IllegalStateException("benchmark group is not Stable: " + shard.group(GROUP_ID));
            }
            return id;
        }

        private byte[][] entries(int commandsPerEntry) {
            int generation = shard.group(GROUP_ID).generationId();
            byte[][] entries = new byte[ENTRIES][];
            long offset = 0;
            for (int e = 0; e < ENTRIES; e++) {
                List<Command> commands = new ArrayList<>(commandsPerEntry);
                for (int c = 0; c < commandsPerEntry; c++) {
                    offset++;
                    commands.add(commit(generation, memberId, (int) (offset % PARTITIONS), offset));
                }
                entries[e] = LogCodec.encodeEntry(nowMs + e, commands);
            }
            return entries;
        }

        byte[] nextOf(byte[][] entries) {
            byte[] entry = entries[next];
            next = (next + 1) % ENTRIES;
            return entry;
        }
    }

    /** Pre-built entries and commands for the codec alone. */
    @State(Scope.Thread)
    public static class CodecState {
        List<Command> oneCommit;
        List<Command> sixtyFourCommits;
        byte[] oneCommitEntry;
        byte[] sixtyFourCommitsEntry;

        @Setup(Level.Trial)
        public void setUp() {
            oneCommit = List.of(commit(3, "bench-client-m1", 0, 1_000L));
            List<Command> commits = new ArrayList<>();
            for (int p = 0; p < 64; p++) {
                commits.add(commit(3, "bench-client-m1", p, 1_000L + p));
            }
            sixtyFourCommits = List.copyOf(commits);
            oneCommitEntry = LogCodec.encodeEntry(1_700_000_000_000L, oneCommit);
            sixtyFourCommitsEntry = LogCodec.encodeEntry(1_700_000_000_000L, sixtyFourCommits);
        }
    }

    static Command.OffsetCommit commit(int generation, String memberId, int partition, long offset) {
        return new Command.OffsetCommit(GROUP_ID, generation, memberId, null, -1L, List.of(new Command.TopicCommit(
                TOPIC, List.of(new Command.PartitionCommit(partition, offset, 7, "")))),
                Command.OFFSET_COMMIT_LATEST_VERSION);
    }

    private static void decodeAndApply(GroupCoordinatorShard shard, byte[] entryBytes, Blackhole blackhole) {
        LogCodec.DecodedEntry entry = LogCodec.decodeEntry(entryBytes);
        for (Command command : entry.commands()) {
            blackhole.consume(shard.apply(command, entry.leaderTimeMs()));
        }
    }

    // ----- (a) apply throughput, in commands per second ---------------------------------------------

    @Benchmark
    public void applyCommitsSinglePerEntry(ApplyState state, Blackhole blackhole) {
        decodeAndApply(state.shard, state.nextOf(state.single), blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(16)
    public void applyCommitsBatch16PerEntry(ApplyState state, Blackhole blackhole) {
        decodeAndApply(state.shard, state.nextOf(state.batch16), blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public void applyCommitsBatch64PerEntry(ApplyState state, Blackhole blackhole) {
        decodeAndApply(state.shard, state.nextOf(state.batch64), blackhole);
    }

    // ----- (b) codec alone, in entries per second ---------------------------------------------------

    @Benchmark
    public byte[] encodeEntry1Commit(CodecState state) {
        return LogCodec.encodeEntry(1_700_000_000_000L, state.oneCommit);
    }

    @Benchmark
    public byte[] encodeEntry64Commits(CodecState state) {
        return LogCodec.encodeEntry(1_700_000_000_000L, state.sixtyFourCommits);
    }

    @Benchmark
    public LogCodec.DecodedEntry decodeEntry1Commit(CodecState state) {
        return LogCodec.decodeEntry(state.oneCommitEntry);
    }

    @Benchmark
    public LogCodec.DecodedEntry decodeEntry64Commits(CodecState state) {
        return LogCodec.decodeEntry(state.sixtyFourCommitsEntry);
    }
}
