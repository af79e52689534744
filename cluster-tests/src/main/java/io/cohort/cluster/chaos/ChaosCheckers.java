package io.cohort.cluster.chaos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checkers of a chaos history. Each returns its violations as readable lines; an empty list
 * means the property held.
 */
public final class ChaosCheckers {
    private ChaosCheckers() {
    }

    /** A completed client operation on one key: invocation and completion paired. */
    record Call(String process, String function, String key, long value, String outcome, long invokeNanos,
            long completeNanos, int generation, String detail) {
        boolean ok() {
            return outcome.equals(Op.OK);
        }
    }

    /** Pairs each invocation with the next completion of the same process and key. */
    static List<Call> calls(List<Op> ops, String function) {
        Map<String, Deque<Op>> pending = new HashMap<>();
        List<Call> calls = new ArrayList<>();
        for (Op op : ops) {
            if (!op.function().equals(function)) {
                continue;
            }
            String id = op.process() + "|" + op.key();
            if (op.type().equals(Op.INVOKE)) {
                pending.computeIfAbsent(id, k -> new ArrayDeque<>()).add(op);
            } else if (!op.type().equals(Op.EVENT)) {
                Op invoke = pending.getOrDefault(id, new ArrayDeque<>()).poll();
                if (invoke != null) {
                    // A fetch's value is what it returned; a commit's is what it sent.
                    calls.add(new Call(op.process(), function, op.key(),
                            function.equals("fetch") ? op.value() : invoke.value(), op.type(),
                            invoke.timeNanos(), op.timeNanos(), invoke.generation(), op.detail()));
                }
            }
        }
        // Invocations never completed (the run ended during them) count as unknown outcomes.
        pending.values().forEach(queue -> queue.forEach(invoke -> calls.add(new Call(invoke.process(), function,
                invoke.key(), invoke.value(), Op.INFO, invoke.timeNanos(), Long.MAX_VALUE, invoke.generation(),
                "never completed"))));
        return calls;
    }

    /**
     * (a) Every key's commits and fetches are linearizable against a register whose writes take
     * effect in the order they were sent. Each key's values increase with every write sent (one
     * writer at a time: a committer, or the member owning the partition), so the register only moves
     * forward, and a history is linearizable iff every successful fetch returned a value that
     * (1) was written by a commit invoked before the fetch completed, or is the initial -1;
     * (2) is not older than a commit acknowledged before the fetch was invoked; and
     * (3) is not older than what a fetch that completed before this one was invoked returned.
     * Failed commits (refused by the coordinator) must never be read. {@code finalValues} is a read
     * after everything stopped: the last acknowledged commit of each key or a later unknown one.
     */
    public static List<String> linearizable(List<Op> ops, Map<String, Long> finalValues, long endNanos) {
        List<String> violations = new ArrayList<>();
        Map<String, List<Call>> writes = byKey(calls(ops, "commit"));
        Map<String, List<Call>> reads = byKey(calls(ops, "fetch"));
        for (Map.Entry<String, Long> last : finalValues.entrySet()) {
            reads.computeIfAbsent(last.getKey(), k -> new ArrayList<>()).add(new Call("final", "fetch", last.getKey(),
                    last.getValue(), Op.OK, endNanos, endNanos, -1, ""));
        }
        for (Map.Entry<String, List<Call>> entry : reads.entrySet()) {
            String key = entry.getKey();
            List<Call> keyWrites = writes.getOrDefault(key, List.of());
            Map<Long, Call> writeByValue = new HashMap<>();
            for (Call w : keyWrites) {
                writeByValue.put(w.value(), w);
            }
            List<Call> okReads = entry.getValue().stream().filter(Call::ok)
                    .sorted((a, b) -> Long.compare(a.invokeNanos(), b.invokeNanos())).toList();
            // Acknowledged writes by completion time, for "latest acknowledged before t".
            List<Call> acked = keyWrites.stream().filter(Call::ok)
                    .sorted((a, b) -> Long.compare(a.completeNanos(), b.completeNanos())).toList();
            List<Call> byCompletion = new ArrayList<>(okReads);
            byCompletion.sort((a, b) -> Long.compare(a.completeNanos(), b.completeNanos()));
            int ackIndex = 0;
            long maxAcked = -1;
            int readIndex = 0;
            long maxReadCompleted = -1;
            String maxReadBy = "";
            for (Call read : okReads) {
                while (ackIndex < acked.size() && acked.get(ackIndex).completeNanos() < read.invokeNanos()) {
                    maxAcked = Math.max(maxAcked, acked.get(ackIndex).value());
                    ackIndex++;
                }
                while (readIndex < byCompletion.size() && byCompletion.get(readIndex).completeNanos() < read.invokeNanos()) {
                    if (byCompletion.get(readIndex).value() > maxReadCompleted) {
                        maxReadCompleted = byCompletion.get(readIndex).value();
                        maxReadBy = byCompletion.get(readIndex).process();
                    }
                    readIndex++;
                }
                long v = read.value();
                String who = read.process().equals("final") ? "the final fetch" : read.process();
                if (v != -1) {
                    Call write = writeByValue.get(v);
                    if (write == null) {
                        violations.add(key + ": " + who + " read " + v + ", which no commit wrote");
                        continue;
                    }
                    if (write.outcome().equals(Op.FAIL)) {
                        violations.add(key + ": " + who + " read " + v + " from a commit the coordinator refused ("
                                + write.detail() + ")");
                    }
                    if (write.invokeNanos() > read.completeNanos()) {
                        violations.add(key + ": " + who + " read " + v + " before the commit of it was sent");
                    }
                }
                if (v < maxAcked) {
                    violations.add(key + ": " + who + " read " + v + " after " + maxAcked + " was acknowledged"
                            + (read.process().equals("final") ? " (an acknowledged commit was lost)" : " (stale read)"));
                }
                if (v < maxReadCompleted) {
                    violations.add(key + ": " + who + " read " + v + " after " + maxReadBy + " had read "
                            + maxReadCompleted + " (the register went back)");
                }
            }
        }
        return violations;
    }

    /** Keys whose final fetched value is below their last acknowledged commit. */
    public static int lostAcknowledged(List<Op> ops, Map<String, Long> finalValues) {
        Map<String, Long> maxAcked = new HashMap<>();
        for (Call call : calls(ops, "commit")) {
            if (call.ok()) {
                maxAcked.merge(call.key(), call.value(), Math::max);
            }
        }
        int lost = 0;
        for (Map.Entry<String, Long> acked : maxAcked.entrySet()) {
            if (finalValues.getOrDefault(acked.getKey(), -1L) < acked.getValue()) {
                lost++;
            }
        }
        return lost;
    }

    private static final Pattern PARTITION_LIST = Pattern.compile("\\[([^\\]]*)\\] of \\[([^\\]]*)\\]");

    /**
     * (b) No partition owned by two members in one generation, and no member's generation going
     * back. From the listeners' events: "assigned" adds partitions, "revoked" and "lost" remove them.
     * Overlaps across generations (a fenced member that has not noticed yet) are legal in Kafka's
     * protocol, since the fenced member's commits are refused; they are counted, not flagged.
     */
    public static List<String> ownership(List<Op> ops, Map<String, Integer> crossGenerationOverlaps) {
        return ownership(ops, crossGenerationOverlaps, Set.of());
    }

    /**
     * (b) as above, with the groups in {@code consumerProtocolGroups} held to the consumer protocol's
     * stricter rule: the coordinator assigns a partition only once its previous owner has revoked it
     * (revoke before assign), so no partition may be owned by two members at once, whatever their
     * member epochs (a member epoch is per member: two members of a group need not share one). The
     * one allowed overlap is a member fenced by the coordinator that has not noticed yet: the
     * partition must then be the next thing that member reports for it, as "lost" (its commits are
     * refused meanwhile); it is counted in {@code crossGenerationOverlaps}. Member epochs must not go
     * back, as generations.
     */
    public static List<String> ownership(List<Op> ops, Map<String, Integer> crossGenerationOverlaps,
            Set<String> consumerProtocolGroups) {
        List<String> violations = new ArrayList<>();
        Map<String, String> nextRelease = consumerProtocolGroups.isEmpty() ? Map.of() : nextReleases(ops);
        Map<String, String[]> owner = new HashMap<>(); // group/tp -> {member, generation}
        Map<String, Map<String, String>> byGeneration = new HashMap<>(); // group#gen -> tp -> member
        Map<String, Integer> lastGeneration = new HashMap<>();
        Map<String, Integer> ownerSince = new HashMap<>(); // group/tp -> index of the op that assigned it
        for (int index = 0; index < ops.size(); index++) {
            Op op = ops.get(index);
            if (!op.type().equals(Op.EVENT)) {
                continue;
            }
            String f = op.function();
            if (!f.equals("assigned") && !f.equals("revoked") && !f.equals("lost")) {
                continue;
            }
            boolean consumerProtocol = consumerProtocolGroups.contains(op.key());
            String member = op.process();
            int generation = op.generation();
            if (f.equals("assigned")) {
                Integer previous = lastGeneration.put(member, generation);
                if (previous != null && generation < previous) {
                    violations.add(member + " went from generation " + previous + " back to " + generation);
                }
                Matcher lists = PARTITION_LIST.matcher(op.detail());
                if (!lists.find()) {
                    continue;
                }
                for (String tp : split(lists.group(1))) {
                    String key = op.key() + "/" + tp;
                    String[] current = owner.get(key);
                    if (current != null && !current[0].equals(member) && consumerProtocol) {
                        String released = nextRelease.get(ownerSince.get(key) + "|" + key);
                        if ("lost".equals(released)) {
                            crossGenerationOverlaps.merge(key, 1, Integer::sum);
                        } else {
                            violations.add(key + " assigned to " + member + " (epoch " + generation + ") while "
                                    + current[0] + " (epoch " + current[1] + ") owns it and "
                                    + (released == null ? "never gives it up" : "later revokes it: not fenced"));
                        }
                    } else if (current != null && !current[0].equals(member)) {
                        if (current[1].equals(Integer.toString(generation))) {
                            violations.add(key + " assigned to " + member + " while " + current[0]
                                    + " owns it in the same generation " + generation);
                        } else {
                            crossGenerationOverlaps.merge(key, 1, Integer::sum);
                        }
                    }
                    owner.put(key, new String[] {member, Integer.toString(generation)});
                    ownerSince.put(key, index);
                }
                if (consumerProtocol) {
                    continue; // member epochs are per member: the at-once rule above is the check
                }
                Map<String, String> generationOwners = byGeneration.computeIfAbsent(op.key() + "#" + generation,
                        k -> new HashMap<>());
                for (String tp : split(lists.group(2))) {
                    String other = generationOwners.putIfAbsent(tp, member);
                    if (other != null && !other.equals(member)) {
                        violations.add(op.key() + "/" + tp + " assigned to both " + other + " and " + member
                                + " in generation " + generation);
                    }
                }
            } else {
                String inner = op.detail().replaceAll("^\\[|\\]$", "");
                for (String tp : split(inner)) {
                    String key = op.key() + "/" + tp;
                    String[] current = owner.get(key);
                    if (current != null && current[0].equals(member)) {
                        owner.remove(key);
                    }
                }
            }
        }
        return violations;
    }

    /**
     * For every "assigned" event (by index in {@code ops}) and each partition it added, how that
     * member next gave the partition up: "revoked", "lost", or absent if never. Keyed by
     * {@code <index of the assignment>|group/tp}.
     */
    private static Map<String, String> nextReleases(List<Op> ops) {
        Map<String, String> result = new HashMap<>();
        Map<String, List<Integer>> open = new HashMap<>(); // member|group/tp -> assignment indexes
        for (int index = 0; index < ops.size(); index++) {
            Op op = ops.get(index);
            if (!op.type().equals(Op.EVENT)) {
                continue;
            }
            String f = op.function();
            if (f.equals("assigned")) {
                Matcher lists = PARTITION_LIST.matcher(op.detail());
                if (lists.find()) {
                    for (String tp : split(lists.group(1))) {
                        open.computeIfAbsent(op.process() + "|" + op.key() + "/" + tp, k -> new ArrayList<>())
                                .add(index);
                    }
                }
            } else if (f.equals("revoked") || f.equals("lost")) {
                for (String tp : split(op.detail().replaceAll("^\\[|\\]$", ""))) {
                    List<Integer> assignments = open.remove(op.process() + "|" + op.key() + "/" + tp);
                    if (assignments != null) {
                        assignments.forEach(a -> result.putIfAbsent(a + "|" + op.key() + "/" + tp, f));
                    }
                }
            }
        }
        return result;
    }

    private static List<String> split(String list) {
        List<String> parts = new ArrayList<>();
        for (String part : list.split(",")) {
            if (!part.isBlank()) {
                parts.add(part.trim());
            }
        }
        return parts;
    }

    /**
     * (d) A member that stayed silent past its session must be fenced: every fence probe's commit,
     * sent once the coordinator no longer lists the silent member, is refused with
     * UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION. A probe never expired within 60 s is a violation too. A probe whose commit could not reach
     * a coordinator is inconclusive (counted in {@code summary}), not a violation.
     */
    public static List<String> fencing(List<Op> ops, Map<String, Integer> summary) {
        List<String> violations = new ArrayList<>();
        int fenced = 0;
        for (Call call : calls(ops, "fence-commit")) {
            if (call.outcome().equals(Op.FAIL) && (call.detail().equals("UNKNOWN_MEMBER_ID")
                    || call.detail().equals("ILLEGAL_GENERATION"))) {
                fenced++;
            }
            summary.merge(call.outcome(), 1, Integer::sum);
            if (call.ok()) {
                violations.add(call.key() + ": a member the coordinator had expired committed with generation "
                        + call.generation());
            } else if (call.outcome().equals(Op.FAIL) && !call.detail().equals("UNKNOWN_MEMBER_ID")
                    && !call.detail().equals("ILLEGAL_GENERATION")) {
                summary.merge("other:" + call.detail(), 1, Integer::sum);
            }
        }
        for (Op op : ops) {
            if (op.function().equals("probe-not-expired")) {
                violations.add(op.detail());
            }
        }
        if (fenced == 0) {
            violations.add("no fence probe completed: the property was not tested");
        }
        return violations;
    }

    /**
     * One kill's failover: a label for the report, whether it was a whole-cluster restart, whether
     * the gap is the longest wait (a node that stopped by itself) rather than kill to next
     * acknowledgement, and the gap (ms, -1: none).
     */
    public record Failover(String label, boolean wholeCluster, boolean longestWait, long gapMs) {
    }

    /**
     * Failover time: for each SIGKILL of nodes that led partitions, the time from the kill until a
     * commit to a group of one of those partitions was acknowledged again, in ms. Acknowledgements
     * that arrived before the killed processes were seen gone do not count: they came from a node
     * still alive (the last of several killed one after another, or a commit already in flight).
     * A node that stopped by itself ({@link Nemesis.Kill#stoppedItself()}) served on for a while
     * after the fault began, and its successors answered before its process was gone: for it the
     * figure is the longest wait between two acknowledgements to those groups (the fault's start
     * counting as one) up to the first acknowledgement after the process was seen gone.
     */
    public static List<Failover> failoverTimes(List<Op> ops, List<Nemesis.Kill> kills,
            java.util.function.ToIntFunction<String> partitionOfGroup) {
        List<Call> acks = calls(ops, "commit").stream().filter(Call::ok)
                .sorted((a, b) -> Long.compare(a.completeNanos(), b.completeNanos())).toList();
        long[] ackNanos = acks.stream().mapToLong(Call::completeNanos).toArray();
        List<Failover> failovers = new ArrayList<>();
        int index = 0;
        for (Nemesis.Kill kill : kills) {
            if (kill.ledPartitions().isEmpty()) {
                continue;
            }
            long gap = -1;
            long previous = kill.timeNanos();
            long longestWait = 0;
            // Only acknowledgements after the kill count: start at the first of them, not at the run's start.
            for (Call ack : acks.subList(firstAfter(ackNanos, kill.timeNanos()), acks.size())) {
                String group = ack.key().substring(0, ack.key().indexOf('/'));
                if (!kill.ledPartitions().contains(partitionOfGroup.applyAsInt(group))) {
                    continue;
                }
                longestWait = Math.max(longestWait, ack.completeNanos() - previous);
                previous = ack.completeNanos();
                if (ack.completeNanos() > kill.deadNanos()) {
                    gap = (kill.stoppedItself() ? longestWait : ack.completeNanos() - kill.timeNanos()) / 1_000_000;
                    break;
                }
            }
            failovers.add(new Failover("kill " + (++index) + " of " + (kill.wholeCluster() ? "every node"
                    : "node " + kill.node()) + " (" + kill.fault() + ", led " + kill.ledPartitions() + ")",
                    kill.wholeCluster(), kill.stoppedItself(), gap));
        }
        return failovers;
    }

    /**
     * The gaps that describe a failover after a kill: neither a full restart (every group's outage
     * by design) nor a node that stopped by itself (its figure is a longest wait, not kill to next
     * acknowledgement); each of those is reported on its own line. -1 (no commit followed) is kept.
     */
    public static List<Long> killGaps(List<Failover> failovers) {
        return failovers.stream().filter(f -> !f.wholeCluster() && !f.longestWait()).map(Failover::gapMs).toList();
    }

    /** Index of the first element of the ascending {@code sorted} greater than {@code bound}. */
    private static int firstAfter(long[] sorted, long bound) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (sorted[middle] <= bound) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    private static Map<String, List<Call>> byKey(List<Call> calls) {
        Map<String, List<Call>> byKey = new TreeMap<>();
        for (Call call : calls) {
            byKey.computeIfAbsent(call.key(), k -> new ArrayList<>()).add(call);
        }
        return byKey;
    }
}
