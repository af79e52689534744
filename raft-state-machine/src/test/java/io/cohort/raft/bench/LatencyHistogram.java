package io.cohort.raft.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * A small mergeable latency histogram in microseconds (HdrHistogram is not on the class path):
 * 10 us buckets below 1 ms, 100 us below 10 ms, 1 ms below 100 ms, 10 ms below 1 s, 100 ms below
 * 10 s, 1 s above: a bucket is 1% to 10% of its values above 0.1 ms. A percentile is reported as
 * the upper bound of its bucket (capped at the maximum seen), so it never understates. Not
 * thread-safe.
 */
final class LatencyHistogram {
    private final TreeMap<Long, Long> counts = new TreeMap<>();
    private long count;
    private long maxUs;

    static long bucketOf(long us) {
        long width;
        if (us < 1_000) {
            width = 10;
        } else if (us < 10_000) {
            width = 100;
        } else if (us < 100_000) {
            width = 1_000;
        } else if (us < 1_000_000) {
            width = 10_000;
        } else if (us < 10_000_000) {
            width = 100_000;
        } else {
            width = 1_000_000;
        }
        return us - us % width;
    }

    static long widthOf(long bucket) {
        if (bucket < 1_000) {
            return 10;
        } else if (bucket < 10_000) {
            return 100;
        } else if (bucket < 100_000) {
            return 1_000;
        } else if (bucket < 1_000_000) {
            return 10_000;
        } else if (bucket < 10_000_000) {
            return 100_000;
        }
        return 1_000_000;
    }

    void record(long us) {
        add(bucketOf(Math.max(0, us)), 1);
        maxUs = Math.max(maxUs, us);
    }

    void add(long bucket, long n) {
        counts.merge(bucket, n, Long::sum);
        count += n;
    }

    void merge(LatencyHistogram other) {
        other.counts.forEach(this::add);
        maxUs = Math.max(maxUs, other.maxUs);
    }

    long count() {
        return count;
    }

    double maxMs() {
        return maxUs / 1000.0;
    }

    /** The upper bound of the bucket holding the {@code pct}-th percentile, in ms; 0 when empty. */
    double percentileMs(double pct) {
        if (count == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(pct / 100.0 * count);
        rank = Math.max(1, Math.min(count, rank));
        long seen = 0;
        for (Map.Entry<Long, Long> e : counts.entrySet()) {
            seen += e.getValue();
            if (seen >= rank) {
                long upper = e.getKey() + widthOf(e.getKey());
                return Math.min(upper, Math.max(maxUs, e.getKey())) / 1000.0;
            }
        }
        return maxUs / 1000.0;
    }

    /** {@code bucketUs:count,...} (or "-" when empty); {@link #decode} reads it back. */
    String encode() {
        if (counts.isEmpty()) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach((bucket, n) -> sb.append(sb.length() == 0 ? "" : ",").append(bucket).append(':').append(n));
        return sb.toString();
    }

    static LatencyHistogram decode(String text, double maxMs) {
        LatencyHistogram h = new LatencyHistogram();
        if (!text.equals("-")) {
            for (String pair : text.split(",")) {
                int colon = pair.indexOf(':');
                h.add(Long.parseLong(pair.substring(0, colon)), Long.parseLong(pair.substring(colon + 1)));
            }
        }
        h.maxUs = (long) (maxMs * 1000);
        return h;
    }
}
