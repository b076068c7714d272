#!/usr/bin/env bash
# `cassette serve` through the Node.js cassandra-driver against a throwaway PostgreSQL 15 through
# node-postgres (run by `make bench`):
#   tests/bench/bench_serve.sh BUILD_DIR
# Same table shape, same workload, same concurrency, one run (tests/bench/node/bench_serve.js):
#   serve-insert  BENCH_SERVE_ROWS (default 200000) single-row prepared INSERTs
#   serve-point   as many point SELECTs by primary key
#   serve-slice   BENCH_SERVE_SLICES (default 20000) 50-row slices of one partition
# with BENCH_SERVE_IN_FLIGHT (default 128) requests in flight on each side;
# BENCH_SERVE_CONNECTIONS sets the cassandra-driver's connections (default: the driver's, one).
# Prints `RESULT serve-<workload> pg-native <ratio>` (ratio = PostgreSQL's time / the server's:
# > 1, Cassette faster) with each side's p50/p99 latency, and the time from starting
# `cassette serve` to its `listening on` line on an empty store and on a store of
# BENCH_SERVE_STORE_ROWS (default 1000000) rows: `RESULT serve-start-empty ms <n>`,
# `RESULT serve-start-1m ms <n>`. The Node.js packages come from `make bench-deps` (`npm ci` in
# tests/bench/node).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
store_rows=${BENCH_SERVE_STORE_ROWS:-1000000}
in_flight=${BENCH_SERVE_IN_FLIGHT:-128}

for file in "$build_dir/cassette" "$build_dir/cassette.so" "$root/tests/bench/node/node_modules/pg"
do
  [ -e "$file" ] || { echo "bench_serve: no $file (make bench-deps, then build)" >&2; exit 1; }
done

source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start
work=$PG_WORK_DIR
# node-postgres runs one query at a time per connection: $in_flight in flight needs as many
# connections, more than PostgreSQL's default max_connections (100). And the throwaway server's
# fsync=off goes: `cassette serve` syncs its commit log before it acknowledges a write, so
# PostgreSQL does too (fsync and synchronous_commit on, its defaults); BENCH_SERVE_PG_FSYNC=off
# measures it without.
pg_run_as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA_DIR" -w -m fast restart -o "-p $PGPORT \
  -k $PG_SOCKET_DIR -c listen_addresses='' -c max_connections=$((in_flight + 20)) \
  -c fsync=${BENCH_SERVE_PG_FSYNC:-on}" >/dev/null
settings=$(psql -X -At -d postgres -c "SELECT string_agg(name || '=' || setting, ', ')
  FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'max_connections')")
echo "bench_serve: PostgreSQL $settings"

# The store for the start-up time, written by the SQLite extension in one transaction (the
# server's start is what is measured, not how the rows got there).
full_store=$work/full.cassette
load_start=$(date +%s.%N)
sqlite3 :memory: <<SQL
.load $build_dir/cassette
CREATE VIRTUAL TABLE kv USING cql(p int, c int, v text, PRIMARY KEY (p, c),
                                  store = '$full_store');
BEGIN;
INSERT INTO kv (p, c, v)
  WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $store_rows - 1)
  SELECT i / 100, i % 100, 'value-' || i || '-abcdefghijklmnopqrstuvwxyz' FROM n;
COMMIT;
SQL
load_seconds=$(printf '%.2f' "$(echo "$(date +%s.%N) - $load_start" | bc)")
echo "bench_serve: $store_rows rows loaded in $load_seconds s ($(du -sh "$full_store" | cut -f1))"

node "$root/tests/bench/node/bench_serve.js" "$build_dir" "$work" "$full_store" "$store_rows"
