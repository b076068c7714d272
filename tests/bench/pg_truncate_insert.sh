#!/usr/bin/env bash
# The cost of committing a PostgreSQL transaction that TRUNCATEs a cassette table and refills it
# (engine/storage/FORMAT.md, "Transactions that TRUNCATE": the rows become SSTables that the
# truncation's manifest change installs, where they were a commit record after it):
#   BENCH_PG_ROWS=1000 BENCH_ROUNDS=30 tests/bench/pg_truncate_insert.sh BUILD_DIR [BUILD_DIR...]
# For each build in turn, a throwaway server and one session that runs BENCH_ROUNDS times
# `BEGIN; TRUNCATE t; INSERT BENCH_PG_ROWS rows; COMMIT` (sync full, the default); prints the
# COMMIT's median and mean time, and checks the count from a new session. Give the builds to
# compare in one run (same machine load: say what `uptime` says).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rows=${BENCH_PG_ROWS:-1000}
rounds=${BENCH_ROUNDS:-30}
[ $# -gt 0 ] || set -- build

bench_one() {  # $1: a build directory; runs in a subshell (its server stops at exit)
  local build_dir
  build_dir=$(cd "$1" && pwd)
  export PG_EXTENSION_BUILD=$build_dir  # a private install (tests/lib/pg_throwaway.sh)
  source "$root/tests/lib/pg_throwaway.sh"
  pg_throwaway_start >/dev/null
  local store=$PG_WORK_DIR/bench.cassette
  psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }
  psql_q <<SQL >/dev/null
CREATE EXTENSION cassette_fdw;
CREATE SERVER bench FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$store', create 'true');
SELECT cql('CREATE KEYSPACE b WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}');
SELECT cql('CREATE TABLE b.t (k int PRIMARY KEY, v text)');
IMPORT FOREIGN SCHEMA b FROM SERVER bench INTO public;
SQL
  local script=$PG_ROOT/rounds.sql
  {
    echo '\timing on'
    for i in $(seq 1 "$rounds"); do
      echo "BEGIN;"
      echo "TRUNCATE t;"
      echo "INSERT INTO t SELECT g, 'round $i row ' || g FROM generate_series(1, $rows) g;"
      echo "COMMIT;"
    done
  } >"$script"
  # Every fourth "Time:" line is a COMMIT's.
  local commits
  commits=$(psql_q -f "$script" | grep -E '^Time:' | awk 'NR % 4 == 0 {print $2}' | sort -n)
  local count
  count=$(psql_q -c "SELECT count(*) FROM t")
  [ "$count" = "$rows" ] || { echo "expected $rows rows, read $count"; exit 1; }
  awk -v build="$build_dir" -v rows="$rows" '{ t[NR] = $1; sum += $1 }
    END { printf "%s: commit of TRUNCATE + %d rows: median %.2f ms, mean %.2f ms (%d rounds)\n",
          build, rows, t[int((NR + 1) / 2)], sum / NR, NR }' <<<"$commits"
}

echo "pg_truncate_insert: $rounds rounds of TRUNCATE + $rows rows; $(uptime)"
for build in "$@"; do
  (bench_one "$build")
done
