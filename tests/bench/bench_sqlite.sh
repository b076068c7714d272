#!/usr/bin/env bash
# The SQLite extension against native SQLite WITHOUT ROWID tables (run by `make bench`):
#   tests/bench/bench_sqlite.sh BUILD_DIR
# BENCH_SQLITE_ROWS (default 1000000) and BENCH_SQLITE_SLICES (default 100000) set the sizes.
# Prints "# ..." figures and `RESULT <workload> sqlite-native <ratio>` lines (ratio > 1: Cassette
# better). See tests/bench/sqlite_bench.py for the workloads.
set -euo pipefail
build_dir=${1:-build}
if [ ! -f "$build_dir/cassette.so" ]; then
  echo "bench_sqlite: $build_dir/cassette.so is missing" >&2
  exit 1
fi
# A python3 whose sqlite3 module can load extensions (Debian's can; pyenv builds often cannot).
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
exec "$python" "$(dirname "$0")/sqlite_bench.py" "$build_dir"
