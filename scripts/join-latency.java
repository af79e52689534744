// How long a new member's first JoinGroup takes to be answered MEMBER_ID_REQUIRED, on a running cluster.
//
//   java -cp benchmarks/target/cohort-bench.jar:$(cat benchmarks/target/bench.classpath) \
//       scripts/join-latency.java [ADDRESSES [SAMPLES [GAP_MS]]]
//   e.g. ... scripts/join-latency.java 127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103 300 50
//
// Sends SAMPLES first joins (member id "", each to a new group, so no group grows), one at a time,
// GAP_MS apart (an idle cluster between them, as members arriving now and then), each to the node
// that leads the group's partition (found from the NOT_COORDINATOR answer's leader hint), and prints
// the client-side latency's p50, p90 and p99. The leader answers these without waiting for their
// entry (docs/ARCHITECTURE.md, "What is soft state"), so this is one gRPC round trip plus the
// leader's preview of the join; before that change it also waited for a Raft round. The first
// tenth of the samples warms up and is not counted. Plaintext client ports only. A diagnostic, not
// part of the build; it needs the bench's class path (`mvn -B -q -Pbench install -DskipTests` first).

import io.cohort.api.v1.ErrorCode;
import io.cohort.api.v1.GroupCoordinatorGrpc;
import io.cohort.api.v1.JoinGroupRequest;
import io.cohort.api.v1.JoinGroupResponse;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

public class JoinLatency {
    public static void main(String[] args) throws InterruptedException {
        List<String> addresses = Arrays.asList((args.length > 0 ? args[0]
                : "127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103").split(","));
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        long gapMs = args.length > 2 ? Long.parseLong(args[2]) : 50;
        Map<String, GroupCoordinatorGrpc.GroupCoordinatorBlockingStub> stubs = new HashMap<>();
        List<ManagedChannel> channels = new ArrayList<>();
        for (String address : addresses) {
            ManagedChannel channel = ManagedChannelBuilder.forTarget(address).usePlaintext().build();
            channels.add(channel);
            stubs.put(address, GroupCoordinatorGrpc.newBlockingStub(channel));
        }
        String run = Long.toString(System.currentTimeMillis(), 36);
        int warmup = samples / 10;
        long[] latencyNanos = new long[samples - warmup];
        String target = addresses.get(0);
        for (int i = 0; i < samples; i++) {
            JoinGroupRequest join = JoinGroupRequest.newBuilder().setGroupId("join-latency-" + run + "-" + i)
                    .setMemberId("").setSessionTimeoutMs(45_000).setRebalanceTimeoutMs(60_000)
                    .setProtocolType("consumer").setClientId("join-latency")
                    .addProtocols(JoinGroupRequest.Protocol.newBuilder().setName("range")).build();
            while (true) {
                long start = System.nanoTime();
                JoinGroupResponse answer = stubs.get(target).withDeadlineAfter(30, TimeUnit.SECONDS).joinGroup(join);
                long took = System.nanoTime() - start;
                if (answer.getErrorCode() == ErrorCode.MEMBER_ID_REQUIRED) {
                    if (i >= warmup) {
                        latencyNanos[i - warmup] = took;
                    }
                    break;
                }
                if (answer.getErrorCode() != ErrorCode.NOT_COORDINATOR || !answer.hasLeaderHint()) {
                    throw new IllegalStateException("group " + join.getGroupId() + ": " + answer);
                }
                target = answer.getLeaderHint().getHost() + ":" + answer.getLeaderHint().getPort();
                if (!stubs.containsKey(target)) {
                    throw new IllegalStateException("leader " + target + " is not among " + addresses);
                }
            }
            Thread.sleep(gapMs);
        }
        Arrays.sort(latencyNanos);
        System.out.printf("%d first joins (after %d warm-up), %d ms apart, via %s: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms%n",
                latencyNanos.length, warmup, gapMs, target, pct(latencyNanos, 0.50), pct(latencyNanos, 0.90),
                pct(latencyNanos, 0.99));
        channels.forEach(ManagedChannel::shutdownNow);
    }

    private static double pct(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))] / 1e6;
    }
}
