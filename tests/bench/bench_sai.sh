#!/usr/bin/env bash
# An indexed lookup through the SQLite extension against native SQLite with CREATE INDEX on the
# same column (run by `make bench`):
#   tests/bench/bench_sai.sh BUILD_DIR
# BENCH_SAI_ROWS (default 1000000) and BENCH_SAI_LOOKUPS (default 20000) set the sizes. Prints
# "# ..." figures and `RESULT sai-lookup sqlite-native <ratio>` (ratio > 1: Cassette faster).
set -euo pipefail
source "$(dirname "$0")/../lib/sqlite_python.sh"
exec_sqlite_python bench_sai "$(dirname "$0")/sai_bench.py" "${1:-build}"
