#!/usr/bin/env bash
# Runs the CQL golden tests: each tests/cql/NAME.cql is run by the `cassette` shell on a fresh
# store, with statements echoed, errors printed in place (not stopping), and a manual clock fixed
# at 2024-01-01 00:00:00 UTC (advanced only by the shell's `CLOCK ADVANCE n;` command), so TTLs and
# write times are deterministic. The output must equal NAME.out byte for byte.
#
#   tests/cql/run_golden.sh build            # all cases
#   tests/cql/run_golden.sh build select     # only files whose name contains "select"
#   UPDATE_GOLDEN=1 tests/cql/run_golden.sh build   # rewrite .out files (review the diff!)
#
# Prints "golden: N passed, M failed" last.
set -uo pipefail
build_dir=${1:-build}
filter=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
cassette="$(cd "$build_dir" && pwd)/cassette"
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for script in "$here"/*.cql; do
  name=$(basename "$script" .cql)
  [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
  expected="$here/$name.out"
  actual="$work/$name.out"
  rm -rf "$work/store"
  (cd "$here" && "$cassette" "$work/store" --echo --keep-going --clock '2024-01-01 00:00:00' \
      -f "$name.cql") >"$actual" 2>&1
  if [[ -n "${UPDATE_GOLDEN:-}" ]]; then cp "$actual" "$expected"; fi
  if [[ -f "$expected" ]] && diff -u "$expected" "$actual" >"$work/diff"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $name"
    if [[ -f "$expected" ]]; then head -60 "$work/diff"; else echo "  (no $name.out)"; fi
  fi
done
echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
