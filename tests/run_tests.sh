#!/usr/bin/env bash
# Runs every test suite against a build directory and prints one closing line:
#   "tests: N passed, M failed"
# counting doctest test cases (and, as they arrive, golden and regression cases).
set -uo pipefail
build_dir=${1:-build}
passed=0
failed=0

run_doctest() {  # run a doctest binary, add its case counts to the totals
  local bin=$1 out
  out=$(mktemp)
  "$bin" --no-intro=true 2>&1 | tee "$out"
  local line
  line=$(grep -E '^\[doctest\] test cases:' "$out" | tail -1)
  rm -f "$out"
  if [ -z "$line" ]; then
    echo "$bin: no doctest summary (crashed?)"; failed=$((failed + 1)); return
  fi
  passed=$((passed + $(echo "$line" | sed -E 's/.*\| *([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.*\| *([0-9]+) failed.*/\1/')))
}

run_doctest "$build_dir/cassette_unit_tests"

run_golden() {  # the CQL golden corpus: one case per tests/cql/*.cql file
  local out line
  out=$(mktemp)
  tests/cql/run_golden.sh "$build_dir" 2>&1 | tee "$out"
  line=$(grep -E '^golden:' "$out" | tail -1)
  rm -f "$out"
  if [ -z "$line" ]; then echo "golden: no summary"; failed=$((failed + 1)); return; fi
  passed=$((passed + $(echo "$line" | sed -E 's/golden: ([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}
if ls tests/cql/*.cql >/dev/null 2>&1; then run_golden; fi

echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
