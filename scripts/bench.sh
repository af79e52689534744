#!/usr/bin/env bash
# Benchmarks of docs/BENCHMARKS.md against a fresh local 3-node Cohort cluster (real node JVMs from
# coordinator-server/target/cohort-server.jar, -Xmx512m each; scale: -Xmx1g) and, with --vs-kafka,
# the same workload in the same run against a fresh 3-node Apache Kafka 4.4.0 KRaft cluster on
# loopback (one cluster at a time). How to read the results: docs/BENCHMARKS.md.
#
#   scripts/bench.sh commit|fetch|heartbeat|rebalance|failover|restart|scale|roll|all [--vs-kafka] [--quick] [options]
#
#   commit      C = 1, 8, 32 committers, own group each (generation -1), synchronous commits:
#               commits_per_s, p50_ms, p99_ms, p999_ms, failed_commits
#   fetch       C = 1, 8, 32 fetchers, own group each: one commit, then synchronous OffsetFetches of
#               it (Cohort: linearizable on the coordinator; Kafka: the consumer's committed()):
#               fetches_per_s, p50_ms, p99_ms, p999_ms, failed_fetches (a fetch not reading the commit)
#   heartbeat   C = 1, 8, 32 members, each the one member of its own classic group (joined once), then
#               synchronous Heartbeats (Cohort only: Kafka's consumer heartbeats from its own thread):
#               heartbeats_per_s, p50_ms, p99_ms, p999_ms, failed_heartbeats (one not answered NONE)
#               --protocol consumer: each the one KIP-848 member of its group (subscribed to a topic that
#               does not exist: nothing assigned), synchronous ConsumerGroupHeartbeats that change nothing
#   rebalance   N = 10, 100, 500 members, range assignor, topic of N partitions:
#               initial_join_ms, join_one_more_ms
#               --protocol classic|consumer|both (default classic): consumer = KIP-848 members
#               (group.protocol=consumer, server assignor uniform, heartbeat 5 s); both = classic, then
#               consumer, on the same cluster, and the side-by-side table (with --vs-kafka, all four)
#   failover    8 committers; SIGKILL the watched group's coordinator (5 kills; Kafka 3):
#               gap_ms, max_stall_any_committer_ms, lost_acked_commits per kill, p50/p99 summary
#   restart     8 committers; SIGKILL every node, 1 s down, start every node at once (3 restarts,
#               --restarts K; not in all): serving_again_ms (the start until every committer committed
#               again), first_commit_ms, nodes_started_ms, lost_acked_commits per restart, p50/max summary
#   scale       100,000 groups x 10 offsets on 3 nodes with -Xmx1g (Cohort only): heap_used_mb,
#               snapshot_bytes, restart_to_serving_ms
#   roll        8 committers; rolling restart of every node (SIGTERM, start, wait until caught up
#               and the leaders balanced, next; as scripts/cluster.sh roll; Cohort only, not in all):
#               max_stall_any_committer_ms per node and overall, commit p50/p99/p999, lost_acked_commits
#   all         commit, rebalance, failover and scale, in that order
#
#   --vs-kafka        also run each workload (but scale) against Kafka; prints the Cohort/Kafka table
#   --kafka-only      only the Kafka side
#   --quick           smoke run: 5 s warm-up and windows, N = 10,100, 1 kill, 10,000 scale groups;
#                     results to bench-results/tmp/ (git-ignored). Not a measurement.
#   --warmup-s S      JIT warm-up before measuring, per system and workload (default 90)
#   --measure-s S     commit window per C (default 20)      --cs 1,8,32   --ns 10,100,500
#   --commit-gap-ms G commit: each committer waits G ms after every acknowledgement in the measured
#                     windows (a light load; the cluster idles between commits). Default 0
#   --kills K         Cohort kills (default 5)               --kafka-kills K (default 3)
#   --set key=value   a Cohort node setting (repeatable)     --partitions P (default 1)
#   --nodes N         Cohort nodes (default 3); e.g. --nodes 5 --set offsets.replication.factor=3
#   --partitions 1,3,6,12,50   partition sweep: each Cohort workload once per P, each on a fresh cluster;
#                     commit lines then carry cpu_s_per_1k_commits (per node), threads (per node) and
#                     leader_changes, and the sweep table (ratios against the smallest P) is printed
#   --tls             Cohort with TLS on the client ports, client certificates required (a throwaway
#                     CA per run; the settings land in each result's "settings"); Raft-port TLS too
#                     with --set raft.tls.* (docs/SECURITY.md)
#   --vs-secure       also run each Cohort workload (but scale) on a secured cluster in the same run: mutual
#                     TLS on the client and Raft ports, the authorizer on, the workload's principal allowed
#                     by a prefixed ACL; prints the secured/plaintext table (security's cost)
#   --secure-parts P  what --vs-secure's secured cluster adds: raft-tls,authorizer (default both); with
#                     --tls both clusters have client mTLS, so e.g. `--tls --vs-secure --secure-parts
#                     raft-tls` measures Raft mTLS alone
#   --driver-cpus L   the driver on CPUs L (e.g. 1), every node on the others (taskset): the driver's own
#                     work (TLS at the client end, say) then takes no CPU from the nodes, as a driver on
#                     another machine would not; compare within the run (the nodes have fewer CPUs)
#   --keep            keep every cluster's data and logs (benchmarks/target/bench-runs/)
#   --help            this text; `scripts/bench.sh all --help` lists every option of the driver
#
# Output: one JSON line per result on stdout, appended to bench-results/bench-<workload>.jsonl; then the
# ratio table (also bench-results/bench-ratios-<run>.txt) and SVG charts (bench-results/
# commit-latency-<run>.svg, failover-timeline-<run>.svg). Progress goes to stderr. Exit status 1 if a
# workload failed or an acknowledged commit was lost.
#
# Environment:
#   COHORT_BENCH_BUILD  1 (default): build first (mvn install -DskipTests, then the benchmarks module
#                       with -Pbench, and with --vs-kafka the Kafka broker class path); 0: use target/ as is
#   MVN_OPTS_EXTRA      extra Maven options, e.g. -o
#   COHORT_GIT_REV      the revision to record when this is not a git checkout
#   BENCH_JAVA_OPTS     the driver JVM's options (default -Xmx1g)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
  exit "${1:-0}"
}

die() {
  echo "bench.sh: $*" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage 2
case "$1" in
  -h | --help | help) usage 0 ;;
  commit | fetch | heartbeat | rebalance | failover | restart | scale | roll | all) ;;
  *) die "unknown workload '$1' (commit, fetch, heartbeat, rebalance, failover, restart, scale, roll or all; --help for usage)" ;;
esac

command -v java >/dev/null 2>&1 || die "java not found: install Java 17 or newer"
java_version=$(java -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -n 1)
[[ -n "$java_version" && "$java_version" -ge 17 ]] || die "Java 17 or newer is needed (found: ${java_version:-unknown})"

needs_kafka=0
for arg in "$@"; do
  case "$arg" in
    --vs-kafka | --kafka-only) needs_kafka=1 ;;
  esac
done

bench_dir=benchmarks/target
if [[ "${COHORT_BENCH_BUILD:-1}" == 1 ]]; then
  echo "bench.sh: building (mvn install -DskipTests, then -Pbench benchmarks)..." >&2
  # Maven's output goes to stderr: stdout carries only the result lines and the table.
  # shellcheck disable=SC2086 # extra options are several words on purpose
  mvn -B -q -Dstyle.color=never install -DskipTests -Djacoco.skip=true ${MVN_OPTS_EXTRA:-} >&2
  # shellcheck disable=SC2086
  mvn -B -q -Dstyle.color=never -Pbench -pl benchmarks package -Djacoco.skip=true ${MVN_OPTS_EXTRA:-} >&2
  if [[ "$needs_kafka" == 1 ]]; then
    echo "bench.sh: resolving the Kafka 4.4.0 broker class path (benchmarks/kafka/pom.xml)..." >&2
    # shellcheck disable=SC2086
    mvn -B -q -Dstyle.color=never -f benchmarks/kafka/pom.xml ${MVN_OPTS_EXTRA:-} \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
      -Dmdep.outputFile="$root/$bench_dir/kafka.classpath" >&2
  fi
fi

[[ -f "$bench_dir/cohort-bench.jar" && -f "$bench_dir/bench.classpath" ]] \
  || die "$bench_dir/cohort-bench.jar is missing: run with COHORT_BENCH_BUILD=1"
if [[ "$needs_kafka" == 1 && ! -s "$bench_dir/kafka.classpath" ]]; then
  die "$bench_dir/kafka.classpath is missing: run with COHORT_BENCH_BUILD=1"
fi

git_rev=${COHORT_GIT_REV:-}
if [[ -z "$git_rev" ]]; then
  if git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
    if [[ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
      git_rev="$git_rev-dirty"
    fi
  else
    git_rev=unknown
  fi
fi

classpath="$root/$bench_dir/cohort-bench.jar:$(cat "$bench_dir/bench.classpath")"
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is several words on purpose
exec java ${BENCH_JAVA_OPTS:--Xmx1g} -cp "$classpath" io.cohort.bench.BenchMain --git-rev "$git_rev" "$@"
