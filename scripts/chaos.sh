#!/usr/bin/env bash
# Long chaos runs: real node JVMs behind fault-injecting Raft links, consumer groups of GroupMembers,
# independent committers with readers and a fence probe, while a seeded nemesis kills leaders and
# random nodes (SIGKILL), pauses leaders (SIGSTOP/SIGCONT), cuts nodes off the network, and
# restarts the whole cluster. Every checker runs at the end; exit 1 on any violation.
#
#   scripts/chaos.sh [--nodes 3|5] [--minutes M] [--seed S] [--no-disk-full] [--tls] [--authorizer]
#                    [--classic-only] [--membership]
#
# The nemesis also fills the data dir of one node (drawn from the seed), a 64 MiB tmpfs, until the
# node stops with exit code 74, then frees it and restarts the node. Mounting the tmpfs needs root;
# --no-disk-full leaves that fault out.
#
# --tls turns on mutual TLS on the nodes' Raft ports (a throwaway peer CA and node certificates
# per run, made by the harness under the run directory's tls/); the faults are the same, the
# link proxies forward the TLS bytes. --authorizer turns the ACL checks on (authorizer.enabled,
# a super user grants every principal ALL on groups and the cluster at the start, so every call of
# the workload is allowed by replicated ACLs). Without them the ports are plaintext and calls
# unchecked; mvn verify's ChaosIT runs with both (and the disk-full fault).
#
# Every other group (the odd-numbered ones) runs KIP-848's consumer protocol (GroupProtocol.CONSUMER,
# server assignors uniform and range in turn, its topic created in the registry at the start); the
# ownership checker holds those to "no partition owned by two members at once". --classic-only runs
# every group on the classic protocol, as before issue 17.
#
# --membership adds the online replacement of a node (issue 16), one per three minutes of faults:
# remove-node, the node killed and its data dir emptied, started again in join mode under the same
# id, add-node; each partition is then placed on 3 of the nodes (offsets.replication.factor 3), so
# with 5 nodes every replacement moves replicas between nodes, existing ones included.
#
# Defaults: 5 nodes, 10 minutes of faults, a seed from the clock (printed, so a run can be
# replayed: the seed fixes the fault schedule). The report (seed, fault counts, failover times,
# checker results), the history (history.jsonl) and, on failure, every node's log go to
# cluster-tests/target/chaos-report/seed-<S>-<time>/. The short scenario of `mvn -B verify` is
# cluster-tests' ChaosIT.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

nodes=5
minutes=10
seed=$(( $(date +%s) % 100000 ))
disk_full=""
tls=""
authorizer=""
classic_only=""
membership=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --no-disk-full) disk_full="--no-disk-full"; shift ;;
    --tls) tls="--tls"; shift ;;
    --authorizer) authorizer="--authorizer"; shift ;;
    --classic-only) classic_only="--classic-only"; shift ;;
    --membership) membership="--membership"; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "chaos.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

mkdir -p logs
echo "chaos.sh: building (log: logs/build-chaos.log)"
if ! mvn -B -q install -DskipTests -Djacoco.skip=true >logs/build-chaos.log 2>&1; then
  tail -n 30 logs/build-chaos.log >&2
  echo "chaos.sh: build failed; see logs/build-chaos.log" >&2
  exit 1
fi

echo "chaos.sh: $nodes nodes, $minutes minutes of faults, seed $seed${tls:+, Raft mTLS}"
exec mvn -B -q -pl cluster-tests exec:exec -Dexec.executable=java -Dexec.classpathScope=test \
  -Dexec.args="-Xmx1g -Djdk.net.hosts.file=$root/cluster-tests/src/test/resources/cohort-hosts \
-Dcohort.server.jar=$root/coordinator-server/target/cohort-server.jar -cp %classpath \
io.cohort.cluster.chaos.ChaosRunner --nodes $nodes --minutes $minutes --seed $seed \
--report-dir $root/cluster-tests/target/chaos-report $disk_full $tls $authorizer $classic_only $membership"
