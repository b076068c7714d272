#!/usr/bin/env bash
# Peak memory of a PostgreSQL backend that commits one large transaction through cassette_fdw
# (issue 20, spill layer 6: every PostgreSQL commit is two-phase, and its PRE_COMMIT used to bring
# a spilled transaction back into memory to prepare it):
#   BENCH_PG_ROWS=2000000 tests/bench/pg_spill_prepare_rss.sh BUILD_DIR
# One session: BEGIN, one INSERT ... SELECT of BENCH_PG_ROWS rows shaped as sqlite_bench.py's
# events (100 sources x 10 hours, a ~45-byte payload), COMMIT; the backend's peak RSS (VmHWM of
# /proc/self/status, read in the same session) after the insert and after the commit, and the
# two statements' times. Checks the count
# from a new session. Run it once per build to compare (same machine load: say what `uptime` says).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
rows=${BENCH_PG_ROWS:-2000000}

if [ ! -f "$build_dir/cassette_fdw.so" ]; then
  cmake --build "$build_dir" --target cassette_fdw >/dev/null
fi
export PG_EXTENSION_BUILD=$build_dir  # a private install (tests/lib/pg_throwaway.sh)
source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start
store=$PG_WORK_DIR/bench.cassette
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }

psql_q <<SQL >/dev/null
CREATE EXTENSION cassette_fdw;
CREATE SERVER bench FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$store', create 'true', sync 'normal');
SELECT cql('CREATE KEYSPACE b WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}');
SELECT cql('CREATE TABLE b.events (source text, hour int, ts bigint, kind text, payload text, PRIMARY KEY ((source, hour), ts))');
IMPORT FOREIGN SCHEMA b FROM SERVER bench INTO public;
SQL

echo "pg_spill_prepare_rss: $rows rows in one transaction, build $build_dir"
out=$(psql_q <<SQL
\\timing on
BEGIN;
INSERT INTO events (source, hour, ts, kind, payload)
SELECT 'source-' || (i % 100), (i / 100) % 10, 1700000000000 + i,
       CASE i % 4 WHEN 0 THEN 'click' WHEN 1 THEN 'view' WHEN 2 THEN 'buy' ELSE 'scroll' END,
       'user=' || (i * 7919 % 100003) || ';page=/products/' || (i % 997) || ';ref=campaign-' || (i % 13)
FROM generate_series(0::bigint, $rows - 1) AS i;
SELECT 'insert ' || substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s*(\\d+) kB');
COMMIT;
\\timing off
SELECT 'commit ' || substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s*(\\d+) kB');
SQL
)
times=$(grep -E '^Time:' <<<"$out" | sed 's/^Time: \([0-9.]*\) ms.*/\1/')
insert_ms=$(sed -n 2p <<<"$times")
commit_ms=$(sed -n 4p <<<"$times")
insert_kb=$(sed -n 's/^insert //p' <<<"$out")
commit_kb=$(sed -n 's/^commit //p' <<<"$out")
echo "insert ${insert_ms} ms, commit ${commit_ms} ms"
echo "backend peak RSS: $((insert_kb / 1024)) MB after the insert, $((commit_kb / 1024)) MB after the commit"
count=$(psql_q -c "SELECT count(*) FROM events")
echo "rows: $count"
[ "$count" = "$rows" ] || { echo "expected $rows rows"; exit 1; }
