#!/usr/bin/env bash
# A local Cohort cluster on 127.0.0.1: node i serves clients on 7100+i, Raft on 7200+i and
# /metrics on 7300+i. Needs only Java 17 and Maven (the first `up` builds the server jar).
#
#   scripts/cluster.sh up [--nodes 3|5] [--partitions P] [--tls|--no-tls] [--acls|--no-acls]
#                                                        start every node, wait until every
#                                                        partition has a leader, print the endpoints;
#                                                        --tls: generate a throwaway CA and certificates
#                                                        into data/certs (once) and serve TLS with client
#                                                        certificates required (kept for later `up`s);
#                                                        --acls (implies --tls): the authorizer on, the
#                                                        client certificate a super user, alice's none
#   scripts/cluster.sh status                            which nodes run, the partitions each leads
#   scripts/cluster.sh down                              SIGTERM every node (orderly stop), wait
#   scripts/cluster.sh kill NODE                         SIGKILL one node
#   scripts/cluster.sh start NODE                        start one stopped node again
#   scripts/cluster.sh restart NODE                      SIGTERM one node, wait, start it again
#   scripts/cluster.sh roll                              rolling restart (and upgrade, to the jar last
#                                                        built): one node at a time, SIGTERM (it hands
#                                                        its leaderships off), start, then wait until
#                                                        every replica caught up and every partition is
#                                                        led by its preferred leader (`cohort cluster
#                                                        wait-ready`) before the next; exit 1 if a node
#                                                        does not come back
#
# Files, relative to the repository root: data/node-<i>/ (Raft logs, snapshots, cluster metadata),
# data/node-<i>.pid, data/cluster.env (the cluster's shape, kept until you delete data/),
# data/cohort-server.jar (the jar the nodes run: a copy, refreshed by `up` when no node runs),
# logs/node-<i>.log (the node's log), logs/node-<i>.out (its stdout and stderr), logs/build.log,
# data/certs/ (with --tls: ca.pem, node-<i>.pem, client.pem, alice.pem, peer-ca.pem, peer-node-<i>.pem
# and keys).
# The partition count is fixed when the data is created: to change it, `down`, then `rm -rf data`.
#
# Class-data sharing: a node's JVM writes the classes it loaded to data/cds/node-<i>-<key>.jsa when it
# exits cleanly (down, restart, roll), and its later starts map them from there instead of loading,
# parsing and verifying them again (docs/OPERATIONS.md, "Class-data sharing"). The key is a checksum of
# the jar, the JVM and COHORT_JAVA_OPTS: a new jar, Java or options make a new archive at the next
# clean stop.
#
# Environment: COHORT_JAVA_OPTS (default -Xmx512m; -XX:+ExitOnOutOfMemoryError is always added),
# COHORT_CDS (default 1; 0: no class-data-sharing archive),
# COHORT_UP_TIMEOUT_S (default 90),
# COHORT_STOP_TIMEOUT_S (default 30),
# COHORT_ROLL_READY_TIMEOUT_S (default 120: per node of a roll, for catching up and leader balance).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

jar=coordinator-server/target/cohort-server.jar
data_dir=data
# Nodes run from a copy, so rebuilding the jar never changes it under a running JVM.
run_jar=$data_dir/cohort-server.jar
log_dir=logs
cluster_env="$data_dir/cluster.env"
cds=${COHORT_CDS:-1}
cds_dir=$data_dir/cds
cds_key=""  # the archive key of $run_jar (ensure_cds_key), computed at the first node start
java_opts=${COHORT_JAVA_OPTS:--Xmx512m}
up_timeout_s=${COHORT_UP_TIMEOUT_S:-90}
stop_timeout_s=${COHORT_STOP_TIMEOUT_S:-30}
roll_ready_timeout_s=${COHORT_ROLL_READY_TIMEOUT_S:-120}
host=127.0.0.1
cert_dir=$data_dir/certs
# With --acls: the principal of the client certificate (CertTool's CN=client,O=Cohort, DEFAULT mapping).
super_user="User:CN=client,O=Cohort"

# With --acls, super.users: the client certificate's principal and the nodes' own (CertTool's
# CN=node-<i>,O=Cohort), as Kafka lists its inter-broker principal: nodes call each other as
# themselves (a membership change's HostReplica and hand-overs, forwarded calls), and a change run
# by a principal with ALTER, not a super user, failed at the first such call (docs/SECURITY.md).
super_users() {
  local users=$super_user i
  for ((i = 1; i <= NODES; i++)); do
    users="$users;User:CN=node-$i,O=Cohort"
  done
  echo "$users"
}

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
  exit "${1:-0}"
}

client_port() { echo $((7100 + $1)); }
raft_port() { echo $((7200 + $1)); }
metrics_port() { echo $((7300 + $1)); }
pid_file() { echo "$data_dir/node-$1.pid"; }

require_java() {
  command -v java >/dev/null 2>&1 || die "java not found: install Java 17 or newer"
  local version
  version=$(java -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -n 1)
  [[ -n "$version" && "$version" -ge 17 ]] || die "Java 17 or newer is needed (found: ${version:-unknown})"
}

# The JVM options of node $1's class-data-sharing archive (none with COHORT_CDS=0): map the archive made
# for this jar, JVM and COHORT_JAVA_OPTS if there is one, else have the JVM write one at its exit.
# An archive written at an exit is used only after a trial JVM mapped it: one the JVM could not
# finish writing (a SIGKILL or a full disk during that exit) would crash the node's JVM at start
# (SIGBUS; the JVM does not check a damaged archive before it maps it). Needs ensure_cds_key first.
cds_args() {
  local id=$1 archive
  [[ "$cds" == 1 ]] || return 0
  archive="$cds_dir/node-$id-$cds_key.jsa"
  mkdir -p "$cds_dir"
  if [[ -s "$archive.new" ]]; then
    # shellcheck disable=SC2086 # java_opts holds several options on purpose
    if java $java_opts -Xshare:on -XX:SharedArchiveFile="$archive.new" -XX:ErrorFile=/dev/null -cp "$run_jar" \
      -version >/dev/null 2>&1; then
      mv -f "$archive.new" "$archive"
    else
      echo "node $id: the class-data-sharing archive written at its last exit is damaged; starting without it" \
        "(a new one is written at its next clean stop)" >&2
      rm -f "$archive.new"
    fi
  fi
  if [[ -s "$archive" ]]; then
    echo "-XX:SharedArchiveFile=$archive"
  else
    # This node's archives for another jar, JVM or options: the JVM would refuse them.
    find "$cds_dir" -maxdepth 1 -name "node-$id-*.jsa*" ! -name "node-$id-$cds_key.jsa*" -delete
    echo "-XX:ArchiveClassesAtExit=$archive.new"
  fi
}

# Sets cds_key, the archive key of $run_jar, unless set: once per run of this script (every node of
# an `up` or a `roll` shares it; cleared when the jar is replaced). Not in a subshell, so it sticks.
# The JVM also checks the jar's modification time, so it is part of the key (GNU stat, then BSD's).
ensure_cds_key() {
  [[ "$cds" == 1 && -z "$cds_key" ]] || return 0
  cds_key=$({ java -version 2>&1; echo "$java_opts"; stat -c %Y "$run_jar" 2>/dev/null || stat -f %m "$run_jar"
    cat "$run_jar"; } | cksum | awk '{print $1}')
}

build_jar_if_missing() {
  if [[ ! -f "$jar" ]]; then
    command -v mvn >/dev/null 2>&1 || die "$jar is missing and mvn is not installed to build it"
    echo "building $jar (mvn -B -q -DskipTests package -pl coordinator-server -am) ..."
    mkdir -p "$log_dir"
    if ! mvn -B -q -DskipTests package -pl coordinator-server -am >"$log_dir/build.log" 2>&1; then
      tail -n 40 "$log_dir/build.log" >&2
      die "the build failed; full output in $log_dir/build.log"
    fi
    [[ -f "$jar" ]] || die "the build did not produce $jar"
  fi
}

# Copies the built jar to $run_jar: always when no node runs (`up` picks up a rebuild), else only if
# the copy is missing. cp + mv replaces the file by rename; running JVMs keep the old one open.
install_run_jar() {
  local i
  if [[ -f "$run_jar" ]]; then
    for ((i = 1; i <= NODES; i++)); do
      node_pid "$i" >/dev/null && return 0
    done
  fi
  mkdir -p "$data_dir"
  replace_run_jar
}

# Copies the built jar over the one the nodes run, atomically; the archive key follows the new jar.
replace_run_jar() {
  # -p: a copy of an unchanged jar keeps its time, and with it the nodes' class-data-sharing archives.
  cp -p "$jar" "$run_jar.tmp"
  mv -f "$run_jar.tmp" "$run_jar"
  cds_key=""
}

# Reads data/cluster.env (NODES, PARTITIONS) written by `up`.
load_cluster() {
  [[ -f "$cluster_env" ]] || die "no cluster here ($cluster_env is missing): run 'scripts/cluster.sh up' first"
  # shellcheck source=/dev/null
  source "$cluster_env"
  [[ "${NODES:-}" =~ ^[0-9]+$ && "${PARTITIONS:-}" =~ ^[0-9]+$ ]] || die "$cluster_env is damaged; remove data/ to start over"
  TLS=${TLS:-0}
  ACLS=${ACLS:-0}
}

# Writes data/cluster.env from NODES, PARTITIONS, TLS and ACLS.
save_cluster() {
  mkdir -p "$data_dir"
  printf 'NODES=%s\nPARTITIONS=%s\nTLS=%s\nACLS=%s\n' "$NODES" "$PARTITIONS" "$TLS" "$ACLS" >"$cluster_env"
}

# With TLS: the throwaway CA, node, client and peer certificates, made once (CertTool, Bouncy Castle).
# Two client certificates: client (the CLI's; the super user with --acls) and alice (no ACLs).
generate_certs_if_missing() {
  if [[ -f "$cert_dir/ca.pem" ]]; then
    [[ -f "$cert_dir/alice.pem" ]] || ((ACLS == 0)) \
      || die "$cert_dir predates --acls (no alice.pem): scripts/cluster.sh down && rm -rf $cert_dir, then up again"
    return 0
  fi
  echo "generating a throwaway CA and certificates into $cert_dir ..."
  java -Xmx128m -cp "$run_jar" io.cohort.server.tls.CertTool generate --dir "$cert_dir" --nodes "$NODES" \
    --client client --client alice || die "could not generate certificates into $cert_dir"
}

# The node settings for TLS on node $1's client port and Raft port (its own peer CA), as --set options.
tls_args() {
  local id=$1
  ((TLS == 1)) || return 0
  printf '%s\n' --set tls.enabled=true --set "tls.cert=$cert_dir/node-$id.pem" --set "tls.key=$cert_dir/node-$id-key.pem" \
    --set "tls.ca=$cert_dir/ca.pem" --set tls.client.auth=required
  printf '%s\n' --set raft.tls.enabled=true --set "raft.tls.cert=$cert_dir/peer-node-$id.pem" \
    --set "raft.tls.key=$cert_dir/peer-node-$id-key.pem" --set "raft.tls.ca=$cert_dir/peer-ca.pem"
  if ((ACLS == 1)); then
    # The client certificate's subject (the DEFAULT mapping rule keeps the whole DN) is the super user.
    printf '%s\n' --set authorizer.enabled=true --set "super.users=$(super_users)"
  fi
}

# The CLI's TLS options for this cluster (empty without TLS).
cli_tls_options() {
  ((TLS == 1)) || return 0
  echo "--cacert $cert_dir/ca.pem --cert $cert_dir/client.pem --key $cert_dir/client-key.pem"
}

peers() {
  local peers="" i
  for ((i = 1; i <= NODES; i++)); do
    peers+="${peers:+,}$i=$host:$(raft_port "$i"):$(client_port "$i")"
  done
  echo "$peers"
}

bootstrap() {
  local endpoints="" i
  for ((i = 1; i <= NODES; i++)); do
    endpoints+="${endpoints:+,}$host:$(client_port "$i")"
  done
  echo "$endpoints"
}

# The pid of node $1 if it runs (checked against the command line, so a reused pid is not taken).
node_pid() {
  local file pid
  file=$(pid_file "$1")
  [[ -f "$file" ]] || return 1
  pid=$(cat "$file")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  ps -p "$pid" -o args= 2>/dev/null | grep -q -- "cohort-server.jar --node-id $1 " || return 1
  echo "$pid"
}

check_node_id() {
  [[ "$1" =~ ^[0-9]+$ ]] && ((1 <= $1 && $1 <= NODES)) || die "no node '$1': this cluster has nodes 1..$NODES"
}

# A node holds up to client.max.connections + raft.max.connections (4,352 by default) sockets
# besides its log segments, snapshots and jars; a shell's usual soft limit of 1,024 descriptors
# would let a connection flood starve it (docs/OPERATIONS.md, "Connections"). Raises the soft
# limit to 65,536, or the hard limit if lower; nodes inherit it.
raise_fd_limit() {
  local soft hard want=65536
  soft=$(ulimit -Sn)
  hard=$(ulimit -Hn)
  [[ "$soft" == unlimited ]] && return 0
  [[ "$hard" != unlimited ]] && ((hard < want)) && want=$hard
  ((soft < want)) && { ulimit -Sn "$want" 2>/dev/null || echo "could not raise the file descriptor limit to $want (it is $soft)" >&2; }
  return 0
}

# Starts node $1 in the background (its pid goes to its pid file); returns at once.
launch_node() {
  local id=$1 out pid old_umask tls=() cds_opt
  mkdir -p "$data_dir" "$log_dir"
  raise_fd_limit
  ensure_cds_key
  cds_opt=$(cds_args "$id")
  while IFS= read -r arg; do
    [[ -n "$arg" ]] && tls+=("$arg")
  done < <(tls_args "$id")
  out="$log_dir/node-$id.out"
  [[ -f "$out" ]] && mv -f "$out" "$out.1"
  # umask 077 for the node: the files it writes (Raft logs, snapshots, its logs) are its user's
  # only; Java cannot set a umask itself. Set around the launch (not in a subshell, so that $! is
  # the JVM itself).
  old_umask=$(umask)
  umask 077
  # shellcheck disable=SC2086 # java_opts holds several options on purpose
  nohup java -XX:+ExitOnOutOfMemoryError $cds_opt $java_opts -jar "$run_jar" --node-id "$id" --cluster-id cohort --peers "$(peers)" \
    --partitions "$PARTITIONS" --data-dir "$data_dir/node-$id" --log-dir "$log_dir" \
    --metrics-port "$(metrics_port "$id")" ${tls[@]+"${tls[@]}"} >"$out" 2>&1 </dev/null &
  pid=$!
  umask "$old_umask"
  echo "$pid" >"$(pid_file "$id")"
}

# Waits (bounded) for the SERVING line of node $1, launched with launch_node.
await_serving() {
  local id=$1 out pid deadline
  out="$log_dir/node-$id.out"
  pid=$(cat "$(pid_file "$id")")
  deadline=$((SECONDS + up_timeout_s))
  until grep -q "^COHORT NODE $id SERVING" "$out" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$(pid_file "$id")"
      echo "node $id exited during start-up; $out says:" >&2
      tail -n 20 "$out" >&2
      return 1
    fi
    if ((SECONDS >= deadline)); then
      echo "node $id (pid $pid) did not report SERVING within ${up_timeout_s}s; see $out and $log_dir/node-$id.log" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "node $id started (pid $pid): $(grep -m 1 "^COHORT NODE $id SERVING" "$out")"
}

# Starts node $1 unless it runs, and waits for its SERVING line.
start_node() {
  local pid
  if pid=$(node_pid "$1"); then
    echo "node $1 already runs (pid $pid)"
    return 0
  fi
  launch_node "$1"
  await_serving "$1"
}

# Sends signal $2 to node $1 and waits (bounded) until it is gone.
stop_node() {
  local id=$1 signal=$2 pid
  if ! pid=$(node_pid "$id"); then
    rm -f "$(pid_file "$id")"
    echo "node $id is not running"
    return 0
  fi
  kill "-$signal" "$pid" 2>/dev/null || true
  await_exit "$id" "$pid" "$signal"
}

# Waits until pid $2 of node $1, sent signal $3, has exited; SIGKILL after COHORT_STOP_TIMEOUT_S.
await_exit() {
  local id=$1 pid=$2 signal=$3 deadline summary
  deadline=$((SECONDS + stop_timeout_s))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      echo "node $id (pid $pid) still runs ${stop_timeout_s}s after SIG$signal; sending SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 10))
    fi
    sleep 0.1
  done
  rm -f "$(pid_file "$id")"
  if [[ "$signal" == TERM ]]; then
    # The node's own line, not one of its leader-path warm-up's throwaway nodes (same log, own thread).
    summary=$(grep -v '\[cohort-leader-warmup\]' "$log_dir/node-$id.log" 2>/dev/null | grep "node $id stopped in" |
      tail -n 1 | sed 's/.* - //' || true)
    echo "node $id stopped (pid $pid)${summary:+: $summary}"
  else
    echo "node $id killed with SIG$signal (pid $pid)"
  fi
}

# Asks the running nodes which partitions they lead; $1 = seconds to wait for every partition.
cluster_status() {
  # shellcheck disable=SC2046 # the options are words without spaces
  java -Xmx64m -XX:TieredStopAtLevel=1 -cp "$run_jar" io.cohort.server.tools.Status \
    --bootstrap "$(bootstrap)" --wait-seconds "${1:-0}" $(cli_tls_options)
}

print_endpoints() {
  local i
  echo
  echo "Cohort cluster on $host: $NODES nodes, $PARTITIONS partitions"
  for ((i = 1; i <= NODES; i++)); do
    printf '  node %d  client %s:%d  metrics http://%s:%d/metrics  log %s  data %s\n' "$i" "$host" \
      "$(client_port "$i")" "$host" "$(metrics_port "$i")" "$log_dir/node-$i.log" "$data_dir/node-$i"
  done
  if ((TLS == 1)); then
    echo "  TLS on the client ports (client certificates required) and the Raft ports (peer CA);"
    echo "  /metrics stays plain HTTP, bound to $host only"
    echo "  CA: $cert_dir/ca.pem   client certificate: $cert_dir/client.pem   key: $cert_dir/client-key.pem"
    echo "  try: scripts/cohort $(cli_tls_options) cluster status"
    echo "   or: export COHORT_CACERT=$root/$cert_dir/ca.pem COHORT_CERT=$root/$cert_dir/client.pem COHORT_KEY=$root/$cert_dir/client-key.pem"
    echo "  grpcurl: grpcurl -cacert $cert_dir/ca.pem -cert $cert_dir/client.pem -key $cert_dir/client-key.pem $host:$(client_port 1) list"
    if ((ACLS == 1)); then
      echo "  ACLs on (authorizer.enabled): client.pem is a super user ($super_user), as are the nodes' own certificates;"
      echo "  alice.pem (User:CN=alice,O=Cohort) has no ACL, so she is refused (GROUP_AUTHORIZATION_FAILED):"
      echo "    scripts/cohort --cacert $cert_dir/ca.pem --cert $cert_dir/alice.pem --key $cert_dir/alice-key.pem groups describe app-1"
      echo "  let her read the app- groups, then try again:"
      echo "    scripts/cohort $(cli_tls_options) acls add --allow-principal 'User:CN=alice,O=Cohort' --operation read --group app- --resource-pattern-type prefixed"
    fi
  else
    echo "  try: grpcurl -plaintext $host:$(client_port 1) list"
  fi
}

cmd_up() {
  local nodes=3 partitions="" i pid failed=0 launching=() tls="" acls=""
  while (($#)); do
    case "$1" in
      --tls) tls=1; shift ;;
      --no-tls) tls=0; shift ;;
      --acls) acls=1; tls=1; shift ;;
      --no-acls) acls=0; shift ;;
      --nodes) nodes=${2:-}; shift 2 || die "--nodes needs a value" ;;
      --partitions) partitions=${2:-}; shift 2 || die "--partitions needs a value" ;;
      -h | --help) usage 0 ;;
      *) die "unknown option for up: '$1' (see --help)" ;;
    esac
  done
  [[ "$nodes" =~ ^[0-9]+$ ]] && ((1 <= nodes && nodes <= 9)) || die "--nodes must be 1..9 (3 or 5 for a real quorum), got '$nodes'"
  [[ -z "$partitions" || "$partitions" =~ ^[0-9]+$ ]] || die "--partitions must be a positive number, got '$partitions'"
  require_java
  if [[ -f "$cluster_env" ]]; then
    load_cluster
    if ((NODES != nodes)) || [[ -n "$partitions" && "$PARTITIONS" != "$partitions" ]]; then
      die "data/ holds a cluster of $NODES nodes and $PARTITIONS partitions, fixed at its creation; to create another: scripts/cluster.sh down && rm -rf data"
    fi
  else
    NODES=$nodes
    PARTITIONS=${partitions:-1}
    TLS=0
    ACLS=0
  fi
  [[ -n "$tls" ]] && TLS=$tls
  [[ -n "$acls" ]] && ACLS=$acls
  ((TLS == 1 || ACLS == 0)) || die "--acls needs TLS (principals come from client certificates): drop --no-tls"
  save_cluster
  build_jar_if_missing
  install_run_jar
  ((TLS == 1)) && generate_certs_if_missing
  # Launch every node at once (a JVM and Ratis take seconds to start), then wait for each.
  for ((i = 1; i <= NODES; i++)); do
    if pid=$(node_pid "$i"); then
      echo "node $i already runs (pid $pid)"
    else
      launch_node "$i"
      launching+=("$i")
    fi
  done
  # (The ${a[@]+...} form keeps an empty array safe under set -u in bash 3.2, macOS's bash.)
  for i in ${launching[@]+"${launching[@]}"}; do
    await_serving "$i" || failed=1
  done
  ((failed == 0)) || die "some nodes did not start; 'scripts/cluster.sh status' shows which, 'down' stops the rest"
  echo "waiting until every partition has a leader (at most ${up_timeout_s}s) ..."
  if ! cluster_status "$up_timeout_s"; then
    die "not every partition has a leader after ${up_timeout_s}s; see $log_dir/"
  fi
  print_endpoints
}

cmd_status() {
  local i pid running=0
  load_cluster
  for ((i = 1; i <= NODES; i++)); do
    if pid=$(node_pid "$i"); then
      printf 'node %d  running (pid %s)  client %s:%d\n' "$i" "$pid" "$host" "$(client_port "$i")"
      running=$((running + 1))
    else
      printf 'node %d  stopped\n' "$i"
    fi
  done
  if ((running == 0)); then
    echo "no node is running"
    return 0
  fi
  echo "--- leaders, as the running nodes report them:"
  cluster_status 0 || true
}

cmd_down() {
  local i pid ids=() pids=()
  load_cluster
  # Signal every node first so they stop in parallel, then wait for each.
  for ((i = 1; i <= NODES; i++)); do
    if pid=$(node_pid "$i"); then
      kill -TERM "$pid" 2>/dev/null || true
      ids+=("$i")
      pids+=("$pid")
    else
      echo "node $i is not running"
      rm -f "$(pid_file "$i")"
    fi
  done
  for i in ${ids[@]+"${!ids[@]}"}; do
    await_exit "${ids[$i]}" "${pids[$i]}" TERM
  done
  if ((${#ids[@]} == 0)); then
    echo "no node was running"
  else
    echo "cluster stopped; data kept in $data_dir/, logs in $log_dir/"
  fi
}

# `cohort cluster wait-ready` (scripts/cohort, which builds the CLI if missing) against this cluster,
# with its certificates; $1 = seconds to wait. Progress on stderr, the verdict on stdout.
wait_ready() {
  # shellcheck disable=SC2046 # the options are words without spaces
  "$root/scripts/cohort" --bootstrap "$(bootstrap)" $(cli_tls_options) cluster wait-ready --wait "$1"
}

# Rolling restart: every node in turn, the next only once the cluster is caught up and balanced
# again. Also a rolling upgrade: the nodes start from the jar built last (copied by rename, so the
# running ones keep theirs).
cmd_roll() {
  local i started
  load_cluster
  require_java
  for ((i = 1; i <= NODES; i++)); do
    node_pid "$i" >/dev/null || die "node $i is not running: start it first (scripts/cluster.sh start $i), a roll restarts a whole cluster"
  done
  build_jar_if_missing
  if ! cmp -s "$jar" "$run_jar"; then
    echo "roll: the nodes will start from the newly built $jar (a rolling upgrade)"
    replace_run_jar
  fi
  echo "roll: checking that the cluster is caught up and balanced before the first node (at most ${roll_ready_timeout_s}s) ..."
  wait_ready "$roll_ready_timeout_s" || die "the cluster is not ready to roll (see above); nothing was restarted"
  started=$SECONDS
  for ((i = 1; i <= NODES; i++)); do
    echo "roll: node $i of $NODES: stopping (SIGTERM: it hands the partitions it leads to caught-up peers)"
    stop_node "$i" TERM
    start_node "$i" || die "node $i did not come back; the roll stopped here, nodes $((i + 1))..$NODES were not restarted (see $log_dir/node-$i.log)"
    echo "roll: node $i of $NODES: waiting until every replica caught up and the leaders are balanced (at most ${roll_ready_timeout_s}s) ..."
    wait_ready "$roll_ready_timeout_s" \
      || die "node $i restarted but the cluster did not catch up and rebalance within ${roll_ready_timeout_s}s; the roll stopped here, nodes $((i + 1))..$NODES were not restarted (see $log_dir/node-$i.log; COHORT_ROLL_READY_TIMEOUT_S waits longer)"
  done
  echo "roll: done: $NODES nodes restarted one at a time in $((SECONDS - started))s"
}

main() {
  local command=${1:-}
  (($#)) && shift
  case "$command" in
    up) cmd_up "$@" ;;
    status) cmd_status ;;
    down) cmd_down ;;
    roll) (($# == 0)) || die "usage: scripts/cluster.sh roll"; cmd_roll ;;
    kill | start | restart)
      (($# == 1)) || die "usage: scripts/cluster.sh $command NODE"
      load_cluster
      check_node_id "$1"
      case "$command" in
        kill) stop_node "$1" KILL ;;
        start) require_java && build_jar_if_missing && install_run_jar && start_node "$1" ;;
        restart) stop_node "$1" TERM && start_node "$1" ;;
      esac
      ;;
    -h | --help | help) usage 0 ;;
    *) usage 2 >&2 ;;
  esac
}

main "$@"
