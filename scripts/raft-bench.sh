#!/usr/bin/env bash
# Runs the Raft benchmarks of raft-state-machine (src/test/java/io/cohort/raft/bench/RaftBench.java):
# 3 RaftBenchNode JVMs (-Xmx512m each) on loopback, driven by one RaftBench JVM.
#
#   scripts/raft-bench.sh mode=throughput [cs=1,8,32] [batchings=grouped,single] [warmup=60] [measure=20]
#   scripts/raft-bench.sh mode=failover [partitions=3,8,16] [timeouts=150/300,500/1000,1000/2000]
#                                       [committers=8] [warmup=30] [stability=60] [kills=3]
#   scripts/raft-bench.sh mode=catchup [partitions=1] [snapshotEvery=2000] [down=30] [kills=3]
#
# Every option and its default: the javadoc of RaftBench. Common ones: quietCpu=15 / quietWait=30
# (wait for other processes to use < 15% CPU before each measurement), ratisLog=error (the nodes'
# Ratis log level; info for a post-mortem).
#
# Each result is one JSON line on stdout, also appended to bench-results/raft-<mode>-<timestamp>.jsonl
# (out=DIR to change). Progress goes to stderr; node logs to /tmp/cohort-raft-bench/<run>/logs.
#
# Environment:
#   COHORT_BENCH_BUILD  1 (default) builds raft-state-machine and its test classes first (with -am,
#                       installing nothing); 0 reuses target/ as it is
#   MVN_OPTS_EXTRA      extra Maven options, e.g. -o
#
# Benchmarks are not tests: mvn verify never runs them. The machine is shared: the results carry the
# load average and the CPU share of other processes (cpu_others_pct) measured beside each figure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
module=raft-state-machine
classpath_file=target/raft-bench.classpath

cd "$root"
if [[ "${COHORT_BENCH_BUILD:-1}" == 1 ]]; then
  # shellcheck disable=SC2086 # extra options are several words on purpose
  mvn -B -q -pl "$module" -am -Djacoco.skip=true ${MVN_OPTS_EXTRA:-} \
    test-compile \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
    -Dmdep.outputFile="$classpath_file" -Dmdep.includeScope=test
fi

classpath="$root/$module/target/test-classes:$root/$module/target/classes:$(cat "$root/$module/$classpath_file")"

has_out=0
for arg in "$@"; do
  [[ "$arg" == out=* ]] && has_out=1
done
extra=()
if [[ "$has_out" == 0 ]]; then
  extra=("out=$root/bench-results")
fi

exec java -Xmx256m -cp "$classpath" io.cohort.raft.bench.RaftBench "${extra[@]}" "$@"
