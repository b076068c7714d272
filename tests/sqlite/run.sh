#!/usr/bin/env bash
# Tests of the SQLite extension (BUILD_DIR/cassette.so), all through real hosts:
#
#   tests/sqlite/run.sh [BUILD_DIR]        (default: build)
#
# Cases, each counted once:
#   - every tests/sqlite/NAME.sql: a golden session fed to the `sqlite3` shell on a fresh
#     database (test.db in a new temporary directory, where ./cassette.so links to the build's
#     extension so the sessions say `.load ./cassette`); stdout and stderr together must equal
#     NAME.expected byte for byte. $CASSETTE names the `cassette` shell for `.shell` lines.
#   - every tests/sqlite/test_*.sh BUILD_DIR and tests/sqlite/test_*.py BUILD_DIR (python3):
#     passes when it exits 0.
#   - every examples/*/run.sh that has an expected.txt beside it: run as
#     `run.sh BUILD_DIR WORKDIR`, its stdout must equal expected.txt.
# Prints "sqlite: N passed, M failed" last; exits non-zero when a case failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd) || { echo "sqlite: 0 passed, 1 failed"; exit 1; }
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$build_dir/cassette.so" ]; then
  echo "FAILED: $build_dir/cassette.so is missing (build the cassette_sqlite target)"
  echo "sqlite: 0 passed, 1 failed"
  exit 1
fi
export CASSETTE="$build_dir/cassette"
# A python3 whose sqlite3 module can load extensions (pyenv builds often cannot; Debian's can).
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
export CASSETTE_PYTHON=$python
# In a sanitizer build, every host here (sqlite3, python3, the C program) gets the ASan runtime
# preloaded so that it can load the instrumented extension.
source "$here/../lib/sanitize.sh"
sanitize_host_env "$build_dir" || { echo "sqlite: 0 passed, 1 failed"; exit 1; }

pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAILED: $1"; }

# fresh_dir NAME: a new empty directory with ./cassette.so linked in; prints its path.
fresh_dir() {
  local dir="$work/$1"
  rm -rf "$dir" && mkdir -p "$dir" && ln -s "$build_dir/cassette.so" "$dir/cassette.so"
  echo "$dir"
}

for sql in "$here"/*.sql; do
  name=$(basename "$sql" .sql)
  dir=$(fresh_dir "$name")
  (cd "$dir" && timeout 300 sqlite3 test.db <"$sql" >actual.txt 2>&1)
  if [ ! -f "$here/$name.expected" ]; then
    fail "$name.sql (no $name.expected; actual output in the log below)"
    sed 's/^/    /' "$dir/actual.txt"
  elif cmp -s "$here/$name.expected" "$dir/actual.txt"; then
    pass "$name.sql"
  else
    fail "$name.sql"
    diff "$here/$name.expected" "$dir/actual.txt" | head -60 | sed 's/^/    /'
  fi
done

for script in "$here"/test_*.sh "$here"/test_*.py; do
  [ -e "$script" ] || continue
  name=$(basename "$script")
  dir=$(fresh_dir "$name")
  case "$script" in
    *.py) runner=("$python") ;;
    *) runner=(bash) ;;
  esac
  if (cd "$dir" && timeout 600 "${runner[@]}" "$script" "$build_dir" >log.txt 2>&1); then
    pass "$name"
  else
    fail "$name"
    tail -40 "$dir/log.txt" | sed 's/^/    /'
  fi
done

for example in "$root"/examples/*/; do
  name=$(basename "$example")
  [ -x "$example/run.sh" ] && [ -f "$example/expected.txt" ] || continue
  dir=$(fresh_dir "example-$name")
  if ! (cd "$dir" && timeout 600 "$example/run.sh" "$build_dir" "$dir/data" >actual.txt 2>stderr.txt); then
    fail "examples/$name (exit status)"
    tail -20 "$dir/stderr.txt" | sed 's/^/    /'
  elif cmp -s "$example/expected.txt" "$dir/actual.txt"; then
    pass "examples/$name"
  else
    fail "examples/$name"
    diff "$example/expected.txt" "$dir/actual.txt" | head -40 | sed 's/^/    /'
    tail -5 "$dir/stderr.txt" | sed 's/^/    /'
  fi
done

echo "sqlite: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
