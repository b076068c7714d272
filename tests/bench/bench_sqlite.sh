#!/usr/bin/env bash
# The SQLite extension against native SQLite WITHOUT ROWID tables (run by `make bench`):
#   tests/bench/bench_sqlite.sh BUILD_DIR
# BENCH_SQLITE_ROWS (default 1000000) and BENCH_SQLITE_SLICES (default 100000) set the sizes.
# Prints "# ..." figures and `RESULT <workload> sqlite-native <ratio>` lines (ratio > 1: Cassette
# better). See tests/bench/sqlite_bench.py for the workloads.
set -euo pipefail
source "$(dirname "$0")/../lib/sqlite_python.sh"
exec_sqlite_python bench_sqlite "$(dirname "$0")/sqlite_bench.py" "${1:-build}"
