#!/usr/bin/env bash
# An indexed lookup through the SQLite extension against native SQLite with CREATE INDEX on the
# same column (run by `make bench`):
#   tests/bench/bench_sai.sh BUILD_DIR
# BENCH_SAI_ROWS (default 1000000) and BENCH_SAI_LOOKUPS (default 20000) set the sizes. Prints
# "# ..." figures and `RESULT sai-lookup sqlite-native <ratio>` (ratio > 1: Cassette faster).
set -euo pipefail
build_dir=${1:-build}
if [ ! -f "$build_dir/cassette.so" ]; then
  echo "bench_sai: $build_dir/cassette.so is missing" >&2
  exit 1
fi
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
exec "$python" "$(dirname "$0")/sai_bench.py" "$build_dir"
