#!/usr/bin/env bash
# The SQLite extension against native SQLite at growing sizes (`make bench-scale`; not part of
# `make bench`, whose loop runs tests/bench/bench_*.sh: this takes long):
#   tests/bench/scale.sh BUILD_DIR
# BENCH_SCALE_ROWS (default "1000000 5000000 20000000") and BENCH_SCALE_SLICES (default 20000 hot
# slices) set the sizes: `BENCH_SCALE_ROWS=1000000 tests/bench/scale.sh build-bench` is quick.
# Prints "# ..." figures, a table and `RESULT <workload>-<rows> sqlite-native <ratio>` lines.
# See tests/bench/scale_bench.py for the workloads.
set -euo pipefail
build_dir=${1:-build}
if [ ! -f "$build_dir/cassette.so" ]; then
  echo "scale: $build_dir/cassette.so is missing" >&2
  exit 1
fi
# A python3 whose sqlite3 module can load extensions (Debian's can; pyenv builds often cannot).
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
exec "$python" "$(dirname "$0")/scale_bench.py" "$build_dir"
