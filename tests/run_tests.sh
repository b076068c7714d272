#!/usr/bin/env bash
# Runs every test suite against a build directory and prints one closing line:
#   "tests: N passed, M failed"
# counting doctest test cases (and, as they arrive, golden and regression cases).
set -uo pipefail
build_dir=${1:-build}
passed=0
failed=0
recap=$(mktemp)  # the failure lines of every suite, repeated last (CI logs show their tail)
trap 'rm -f "$recap"' EXIT

note_failures() {  # NAME FILE PATTERN: keep FILE's lines that report a failure for the recap
  grep -E "$3" "$2" | cut -c1-200 | sed "s/^/$1: /" >>"$recap"
}

run_doctest() {  # run a doctest binary, add its case counts to the totals
  local bin=$1 out
  out=$(mktemp)
  "$bin" --no-intro=true 2>&1 | tee "$out"
  local line
  line=$(grep -E '^\[doctest\] test cases:' "$out" | tail -1)
  note_failures "$(basename "$bin")" "$out" 'ERROR:'  # doctest's failed checks (file:line)
  rm -f "$out"
  if [ -z "$line" ]; then
    echo "$bin: no doctest summary (crashed?)" | tee -a "$recap"; failed=$((failed + 1)); return
  fi
  passed=$((passed + $(echo "$line" | sed -E 's/.*\| *([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.*\| *([0-9]+) failed.*/\1/')))
}

run_doctest "$build_dir/cassette_unit_tests"

run_suite() {  # run a script suite whose last summary line is "NAME: N passed, M failed"
  local name=$1 out line
  shift
  out=$(mktemp)
  "$@" 2>&1 | tee "$out"
  line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$out" | tail -1)
  note_failures "$name" "$out" '^(FAILED|FAIL )'  # what every suite prints for a failed case
  rm -f "$out"
  if [ -z "$line" ]; then
    echo "$name: no summary (crashed?)" | tee -a "$recap"; failed=$((failed + 1)); return
  fi
  passed=$((passed + $(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')))
  failed=$((failed + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
}

# The `cassette` shell: options, output formats, exit codes, COPY.
run_suite cli tests/cli/test_cli.sh "$build_dir"
# The DataStax Python driver's schema parser on the system_schema rows the shell reads. Debian's
# python3, which has python3-cassandra (make deps), whatever python3 comes first on the PATH.
run_suite driver-metadata /usr/bin/python3 tests/cli/driver_metadata_test.py "$build_dir"
# The SQLite extension, the PostgreSQL wrapper, the libpqxx bridge and `cassette serve` (with the
# Python driver): each folder's run.sh
# prints "<folder>: N passed, M failed" last.
for suite in sqlite postgres bridge server; do
  if [ -x "tests/$suite/run.sh" ]; then run_suite "$suite" "tests/$suite/run.sh" "$build_dir"; fi
done
# The soak's checker finds each kind of violation it looks for (`make soak` runs the soak).
# Its python3 loads the extension: a sanitizer build's needs the runtime preloaded.
with_host_env() { (source tests/lib/sanitize.sh && sanitize_host_env "$build_dir" && "$@"); }
run_suite soak-checker with_host_env python3 tests/soak/test_checker.py "$build_dir"
# The engine's layering: no #include up a layer, sideways or into another layer's internals, and
# none from a host into an internal header (tools/check_layers.py); one case per file checked.
run_suite layers python3 tools/check_layers.py .
# The loadable extensions export their entry points and nothing else (tools/check_exports.py):
# one case per module.
run_suite exports python3 tools/check_exports.py "$build_dir"
# The CQL golden corpus: one case per tests/cql/*.cql file.
if ls tests/cql/*.cql >/dev/null 2>&1; then run_suite golden tests/cql/run_golden.sh "$build_dir"; fi
# No expected output records a last-resort "internal error" (an exception that reached an entry
# point): one case per expected-output file.
run_suite internal-errors tests/lib/check_no_internal_errors.sh
# The fuzz targets' checks on their crash reproducers and seeds: one case per target.
run_suite fuzz tests/fuzz/replay.sh "$build_dir"

if [ -s "$recap" ]; then echo "failures:"; head -20 "$recap"; fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
