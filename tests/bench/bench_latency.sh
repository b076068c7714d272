#!/usr/bin/env bash
# Commit latency of single-row transactions under a sustained write load (run by `make bench`):
#   tests/bench/bench_latency.sh BUILD_DIR
# BENCH_LATENCY_SECONDS (default 120) per host, BENCH_LATENCY_PAYLOAD (default 65536 bytes a
# row), BENCH_LATENCY_HOSTS (default "sqlite shell"). Prints "# ..." figures and
# `RESULT latency-<host>-<mode>-<p50|p99|p999|max> ms <milliseconds>` lines. See
# tests/bench/latency_bench.py for the hosts and what each measures.
set -euo pipefail
build_dir=${1:-build}
for needed in cassette.so cassette; do
  if [ ! -f "$build_dir/$needed" ]; then
    echo "bench_latency: $build_dir/$needed is missing" >&2
    exit 1
  fi
done
# A python3 whose sqlite3 module can load extensions (Debian's can; pyenv builds often cannot).
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
exec "$python" "$(dirname "$0")/latency_bench.py" "$build_dir"
