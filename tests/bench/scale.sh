#!/usr/bin/env bash
# The SQLite extension against native SQLite at growing sizes (`make bench-scale`; not part of
# `make bench`, whose loop runs tests/bench/bench_*.sh: this takes long):
#   tests/bench/scale.sh BUILD_DIR
# BENCH_SCALE_ROWS (default "1000000 5000000 20000000") and BENCH_SCALE_SLICES (default 20000 hot
# slices) set the sizes: `BENCH_SCALE_ROWS=1000000 tests/bench/scale.sh build-bench` is quick.
# Prints "# ..." figures, a table and `RESULT <workload>-<rows> sqlite-native <ratio>` lines.
# See tests/bench/scale_bench.py for the workloads.
set -euo pipefail
source "$(dirname "$0")/../lib/sqlite_python.sh"
exec_sqlite_python scale "$(dirname "$0")/scale_bench.py" "${1:-build}"
