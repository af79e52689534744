#!/usr/bin/env bash
# Runs the JMH benchmarks of raft-state-machine (src/test/java/io/cohort/raft/bench).
#
#   scripts/jmh.sh                         every benchmark, short run (JMH_DEFAULTS below)
#   scripts/jmh.sh 'ApplyBenchmark.apply'  benchmarks matching a regexp, short run
#   scripts/jmh.sh -f 3 -wi 5 -i 10 Apply  any JMH options: then they replace the defaults
#
# Environment:
#   JMH_DEFAULTS          options used when no argument starts with '-'
#                         (default: -f 1 -wi 3 -w 2s -i 5 -r 2s)
#   COHORT_JMH_ALSO_MAKE  1 (default) builds coordinator-core too (-am); 0 builds only
#                         raft-state-machine, against the coordinator-core jar installed in ~/.m2
#
# Benchmarks are not tests: mvn verify never runs them.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
module=raft-state-machine
# Relative: each module of the reactor writes its own file; this script reads the one of $module.
classpath_file=target/jmh.classpath
defaults="${JMH_DEFAULTS:--f 1 -wi 3 -w 2s -i 5 -r 2s}"

also_make=(-am)
if [[ "${COHORT_JMH_ALSO_MAKE:-1}" == 0 ]]; then
  also_make=()
fi

cd "$root"
mvn -B -q -pl "$module" "${also_make[@]}" -Djacoco.skip=true \
  test-compile \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
  -Dmdep.outputFile="$classpath_file" -Dmdep.includeScope=test

classpath="$root/$module/target/test-classes:$root/$module/target/classes:$(cat "$root/$module/$classpath_file")"

options_given=0
for arg in "$@"; do
  if [[ "$arg" == -* ]]; then
    options_given=1
  fi
done

if [[ "$options_given" == 1 ]]; then
  exec java -cp "$classpath" org.openjdk.jmh.Main "$@"
else
  # shellcheck disable=SC2086 # the defaults are several words on purpose
  exec java -cp "$classpath" org.openjdk.jmh.Main $defaults "$@"
fi
