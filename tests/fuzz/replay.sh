#!/usr/bin/env bash
# Replays inputs through every fuzz target of a build (part of make test and make test-sanitize):
#
#   tests/fuzz/replay.sh BUILD_DIR
#
# For each BUILD_DIR/fuzz/NAME_fuzzer: the crash reproducers in tests/fuzz/regressions/NAME/
# (each a defect fuzzing found, fixed since) and the seed corpus make_fuzz_seeds writes from the
# repository (tests/fuzz/make_seeds.cc), each input run once through the target's checks: every
# regression, and of the seeds a sample, the same every run: every k-th of the sorted list, at
# most FUZZ_REPLAY_SEEDS (default 40) per target; FUZZ_REPLAY_SEEDS=all replays them all. In an
# ordinary build the target is a replayer (replay_main.cc); in the fuzz build it is libFuzzer,
# which runs the files it is given once each. One case per target: it passes when every input
# does. Prints "fuzz: N passed, M failed" last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/tests/lib/fuzz_seeds.sh"
build_dir=$(cd "${1:-build}" && pwd)
passed=0
failed=0
max_seeds=${FUZZ_REPLAY_SEEDS:-40}
seeds=$build_dir/fuzz/seeds
if ! "$build_dir/fuzz/make_fuzz_seeds" "$root" "$seeds" >"$build_dir/fuzz/seeds.log" 2>&1; then
  cat "$build_dir/fuzz/seeds.log"
  echo "FAILED: make_fuzz_seeds"
  echo "fuzz: 0 passed, 1 failed"
  exit 1
fi
for target in "$build_dir"/fuzz/*_fuzzer; do
  name=$(basename "$target" _fuzzer)
  inputs=$build_dir/fuzz/replay-$name.inputs
  { [ -d "$here/regressions/$name" ] && find "$here/regressions/$name" -type f -print0 | sort -z
    sample_seeds "$seeds/$name" "$max_seeds"; } >"$inputs"
  log=$build_dir/fuzz/replay-$name.log
  count=$(tr -cd '\0' <"$inputs" | wc -c)
  if xargs -0 -r "$target" <"$inputs" >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "ok: $name ($count inputs)"
  else
    failed=$((failed + 1))
    echo "FAILED: $name (log: $log)"
    grep -B1 -A30 -E 'fuzz check failed|ERROR: AddressSanitizer|runtime error|==ERROR' "$log" |
      head -50 | sed 's/^/    /'
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
