#!/usr/bin/env bash
# The PostgreSQL bridge against PostgreSQL's own COPY, moving the same rows (`make bench`):
#
#   pg-import   `cassette pg-import` of `SELECT * FROM src` into a CQL table with the same key
#   pg-export   `cassette pg-export` of that CQL table into a new PostgreSQL table
#   peer        PostgreSQL moving the same rows itself: COPY src TO a file, then COPY FROM that
#               file into an empty table with the same primary key (server-side, no client)
#
# BRIDGE_BENCH_ROWS rows (default 200000) of (id int key, name text, amount numeric(12,2),
# at timestamptz, flag boolean, score double precision, ref uuid); best of BRIDGE_BENCH_RUNS
# (default 3) runs each. The store syncs as it does by default (every batch fsynced); the
# throwaway server runs with fsync off, which favours the peer.
#
#   tests/bench/bench_bridge.sh BUILD_DIR
#
# Prints "# ..." detail lines and `RESULT pg-export pg-copy <ratio>` and
# `RESULT pg-import pg-copy <ratio>`, ratio = peer seconds / our seconds (above 1: we are faster;
# the target is 0.5).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-$root/build}" && pwd)
cassette="$build_dir/cassette"
rows=${BRIDGE_BENCH_ROWS:-200000}
runs=${BRIDGE_BENCH_RUNS:-3}

source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start
export PGOPTIONS="-c client_min_messages=warning"
sql() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
best() { printf '%s\n' "$@" | sort -g | head -1; }

sql -c "CREATE TABLE src (id int PRIMARY KEY, name text, amount numeric(12,2), at timestamptz,
                          flag boolean, score double precision, ref uuid)" \
    -c "INSERT INTO src SELECT n, 'customer name ' || n, (n % 100000) / 100.0,
          timestamptz '2024-01-01 00:00:00+00' + n * interval '1.5 seconds', n % 3 = 0,
          n / 7.0, md5(n::text)::uuid
        FROM generate_series(1, $rows) AS n" \
    -c "VACUUM ANALYZE src"
dump="$PG_WORK_DIR/src.copy"

peer_times=()
for ((run = 1; run <= runs; run++)); do
  sql -c "DROP TABLE IF EXISTS dst" -c "CREATE TABLE dst (LIKE src INCLUDING ALL)"
  rm -f "$dump"
  start=$(now)
  sql -c "COPY src TO '$dump'" -c "COPY dst FROM '$dump'"
  peer_times+=("$(elapsed "$start" "$(now)")")
done
peer=$(best "${peer_times[@]}")
echo "# peer: COPY TO file + COPY FROM file of $rows rows: best ${peer}s of ${peer_times[*]}"

store="$PG_WORK_DIR/bench.cassette"
import_times=()
export_times=()
for ((run = 1; run <= runs; run++)); do
  rm -rf "$store"
  "$cassette" "$store" -e "CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy',
    'replication_factor': 1}; CREATE TABLE bench.src (id int PRIMARY KEY, name text,
    amount decimal, at timestamp, flag boolean, score double, ref uuid)"
  start=$(now)
  "$cassette" pg-import "$store" bench.src "dbname=postgres" "SELECT * FROM src" >/dev/null
  import_times+=("$(elapsed "$start" "$(now)")")

  sql -c "DROP TABLE IF EXISTS exported"
  start=$(now)
  "$cassette" pg-export "$store" bench.src "dbname=postgres" exported >/dev/null
  export_times+=("$(elapsed "$start" "$(now)")")
done
count=$(sql -c "SELECT count(*) FROM exported")
[ "$count" = "$rows" ] || { echo "bench_bridge: exported $count rows, expected $rows"; exit 1; }
columns="id, name, amount, at, flag, score, ref"
same=$(sql -c "SELECT count(*) FROM (SELECT $columns FROM src EXCEPT SELECT $columns FROM exported) d")
[ "$same" = 0 ] || { echo "bench_bridge: $same exported rows differ from the source"; exit 1; }

ours_import=$(best "${import_times[@]}")
ours_export=$(best "${export_times[@]}")
echo "# pg-import of $rows rows: best ${ours_import}s of ${import_times[*]}"
echo "# pg-export of $rows rows: best ${ours_export}s of ${export_times[*]}"
echo "RESULT pg-export pg-copy $(ratio "$peer" "$ours_export")"
echo "RESULT pg-import pg-copy $(ratio "$peer" "$ours_import")"
