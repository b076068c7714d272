#!/usr/bin/env bash
# Fuzzes every target of a libFuzzer build (make fuzz) for a bounded time each:
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_PER_TARGET]     (default 60)
#
# BUILD_DIR must be configured with CASSETTE_FUZZ=ON (clang, ASan + UBSan). Each target starts
# from its seeds (make_fuzz_seeds) and from what earlier runs kept in BUILD_DIR/fuzz/corpus/NAME,
# and adds to the latter. A crash, a sanitizer finding or a broken invariant stops that target;
# its input is saved as BUILD_DIR/fuzz/crashes/NAME-crash-<sha1> (make it a regression test:
# tests/fuzz/regressions/NAME/, see tests/fuzz/README.md). FUZZ_MAX_SEEDS=N (default all) starts
# each target from a fixed sample of at most N seeds instead (CI: libFuzzer runs every seed
# before its clock starts, and cql_execute's all take minutes). FUZZ_SEED=N makes libFuzzer's
# choices repeatable (CI: a fixed seed, so that a landing is judged on the inputs it was tested
# with; by default each run explores anew). Prints one line per target:
#   NAME: <executions> runs in <s> s, cov <edges> ft <features>, corpus <n>: ok | FAILED
# and exits non-zero when a target failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/tests/lib/fuzz_seeds.sh"
build_dir=$(cd "${1:-build-sanitize}" && pwd)
seconds=${2:-60}
max_seeds=${FUZZ_MAX_SEEDS:-all}
mkdir -p "$build_dir/fuzz/corpus" "$build_dir/fuzz/crashes"
"$build_dir/fuzz/make_fuzz_seeds" "$root" "$build_dir/fuzz/seeds" >/dev/null || exit 1
# Inputs larger than this are not tried (execution runs a whole script; the rest decode files).
declare -A max_len=([cql_execute]=2048 [cql_parser]=4096)
# The seed directory a target starts from: all its seeds, or a directory of links to a sample.
seed_dir() {
  local name=$1 all=$build_dir/fuzz/seeds/$1
  if [ "$max_seeds" = all ]; then echo "$all"; return; fi
  local sample=$build_dir/fuzz/seed-sample/$name
  rm -rf "$sample" && mkdir -p "$sample"
  sample_seeds "$all" "$max_seeds" | xargs -0 -r ln -s -t "$sample"
  echo "$sample"
}
failed=0
for target in "$build_dir"/fuzz/*_fuzzer; do
  name=$(basename "$target" _fuzzer)
  corpus=$build_dir/fuzz/corpus/$name
  mkdir -p "$corpus"
  log=$build_dir/fuzz/$name.log
  options=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1
           -artifact_prefix="$build_dir/fuzz/crashes/$name-")
  [ -n "${max_len[$name]:-}" ] && options+=(-max_len="${max_len[$name]}")
  [ -n "${FUZZ_SEED:-}" ] && options+=(-seed="$FUZZ_SEED")
  [ -d "$here/regressions/$name" ] && regressions=("$here/regressions/$name") || regressions=()
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$target" "${options[@]}" "$corpus" "$(seed_dir "$name")" "${regressions[@]}" \
    >"$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  elapsed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  files=$(find "$corpus" -type f | wc -l)
  if [ $status -eq 0 ]; then
    verdict=ok
  else
    verdict="FAILED (exit $status; log $log)"
    failed=1
  fi
  echo "$name: ${runs:-?} runs in ${elapsed:-?} s, cov ${cov:-?} ft ${ft:-?}," \
       "corpus $files: $verdict"
  if [ $status -ne 0 ]; then
    grep -A25 -E -e 'fuzz check failed|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)' \
         -e 'runtime error|deadly signal' "$log" | head -40 | sed 's/^/    /'
  fi
done
exit $failed
