#!/usr/bin/env bash
# cassette_fdw against a native PostgreSQL table holding the same rows with the same primary key:
#   tests/bench/bench_fdw.sh BUILD_DIR
# Workloads (times are the best of a few runs, measured inside the server with clock_timestamp()
# so the client does not count):
#   fdw-scan    SELECT count(*), sum(value) over the whole table (the query a user writes: the
#               wrapper pushes the aggregate down, the engine folds the rows)
#   fdw-scan-rows  the same aggregate over (SELECT value FROM t OFFSET 0) on both sides, which
#               keeps the aggregate in PostgreSQL: the raw rate of rows through the wrapper
#   fdw-lookup  FDW_BENCH_LOOKUPS x  SELECT ts, value ... WHERE source = $1 AND hour = $2
#               ORDER BY ts DESC LIMIT 50   (a prepared statement in a PL/pgSQL loop)
# Prints `RESULT <workload> pg-native <ratio>` with ratio = native time / cassette time (> 1:
# Cassette faster). Sizes: FDW_BENCH_SOURCES x FDW_BENCH_HOURS partitions of FDW_BENCH_ROWS rows.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
sources=${FDW_BENCH_SOURCES:-100}
hours=${FDW_BENCH_HOURS:-24}
per_partition=${FDW_BENCH_ROWS:-100}
lookups=${FDW_BENCH_LOOKUPS:-10000}
runs=${FDW_BENCH_RUNS:-3}

if [ ! -f "$build_dir/cassette_fdw.so" ]; then
  cmake --build "$build_dir" --target cassette_fdw >/dev/null
fi
export PG_EXTENSION_BUILD=$build_dir  # a private install (tests/lib/pg_throwaway.sh)
source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start
store=$PG_WORK_DIR/bench.cassette
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }

total=$((sources * hours * per_partition))
echo "bench_fdw: $sources sources x $hours hours x $per_partition rows = $total rows, $lookups lookups"
psql_q <<SQL
CREATE EXTENSION cassette_fdw;
CREATE SERVER bench FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$store', create 'true');
SELECT cql('CREATE KEYSPACE b WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') IS NOT NULL;
SELECT cql('CREATE TABLE b.events (source text, hour int, ts timestamp, value double, PRIMARY KEY ((source, hour), ts))') IS NOT NULL;
IMPORT FOREIGN SCHEMA b FROM SERVER bench INTO public;
CREATE TABLE events_pg (source text, hour int, ts timestamptz, value float8, PRIMARY KEY (source, hour, ts));
CREATE VIEW bench_rows AS
  SELECT 'source-' || s AS source, h AS hour,
         '2024-01-01 00:00:00+00'::timestamptz + (h * 3600 + r * 10) * interval '1 second' AS ts,
         (s * 1000 + r)::float8 AS value
  FROM generate_series(1, $sources) s, generate_series(1, $hours) h, generate_series(1, $per_partition) r;
SQL
load_start=$(date +%s.%N)
for s in $(seq 1 10 "$sources"); do  # one transaction per 10 sources
  psql_q -c "INSERT INTO events SELECT * FROM bench_rows WHERE source IN (SELECT 'source-' || g FROM generate_series($s, $((s + 9))) g)"
done
load_end=$(date +%s.%N)
psql_q -c "INSERT INTO events_pg SELECT * FROM bench_rows"
pg_load_end=$(date +%s.%N)
psql_q -c "VACUUM ANALYZE events_pg" -c "ANALYZE events"
echo "load: cassette $(echo "$load_end - $load_start" | bc) s, native $(echo "$pg_load_end - $load_end" | bc) s"
counts=$(psql_q -c "SELECT (SELECT count(*) FROM events) = (SELECT count(*) FROM events_pg)")
[ "$counts" = t ] || { echo "bench_fdw: row counts differ"; exit 1; }

psql_q <<'SQL'
CREATE FUNCTION bench_scan(tbl regclass, runs int, rows_only bool DEFAULT false) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz; best float8 := 1e9; r record;
  q text := CASE WHEN rows_only THEN 'SELECT count(*), sum(value) FROM (SELECT value FROM %s OFFSET 0) s'
                 ELSE 'SELECT count(*), sum(value) FROM %s' END;
BEGIN
  FOR i IN 1..runs LOOP
    t0 := clock_timestamp();
    EXECUTE format(q, tbl) INTO r;
    best := least(best, extract(epoch FROM clock_timestamp() - t0));
  END LOOP;
  RETURN best;
END $$;
CREATE FUNCTION bench_lookup_fdw(n int, sources int, hours int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp(); src text; h int; rows bigint := 0; r record;
BEGIN
  FOR i IN 1..n LOOP
    src := 'source-' || (1 + i % sources); h := 1 + (i / sources) % hours;
    FOR r IN SELECT ts, value FROM events WHERE source = src AND hour = h ORDER BY ts DESC LIMIT 50 LOOP
      rows := rows + 1;
    END LOOP;
  END LOOP;
  IF rows <> n::bigint * 50 THEN RAISE EXCEPTION 'fdw lookups returned % rows', rows; END IF;
  RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;
CREATE FUNCTION bench_lookup_pg(n int, sources int, hours int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  t0 timestamptz := clock_timestamp(); src text; h int; rows bigint := 0; r record;
BEGIN
  FOR i IN 1..n LOOP
    src := 'source-' || (1 + i % sources); h := 1 + (i / sources) % hours;
    FOR r IN SELECT ts, value FROM events_pg WHERE source = src AND hour = h ORDER BY ts DESC LIMIT 50 LOOP
      rows := rows + 1;
    END LOOP;
  END LOOP;
  IF rows <> n::bigint * 50 THEN RAISE EXCEPTION 'native lookups returned % rows', rows; END IF;
  RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;
SQL
echo "plans:"
psql_q -c "EXPLAIN (COSTS OFF) SELECT ts, value FROM events WHERE source = 'source-1' AND hour = 1 ORDER BY ts DESC LIMIT 50"
psql_q -c "EXPLAIN (COSTS OFF) SELECT ts, value FROM events_pg WHERE source = 'source-1' AND hour = 1 ORDER BY ts DESC LIMIT 50"

psql_q -c "EXPLAIN (COSTS OFF) SELECT count(*), sum(value) FROM events"
# The pushed-down aggregate and PostgreSQL's own agree (same rows, same summation order).
same=$(psql_q -c "SELECT (SELECT row(count(*), sum(value)) FROM events) =
                         (SELECT row(count(*), sum(value)) FROM (SELECT value FROM events OFFSET 0) s)
                     AND (SELECT count(*) FROM events) = (SELECT count(*) FROM events_pg)")
[ "$same" = t ] || { echo "bench_fdw: the pushed-down aggregate differs"; exit 1; }
scan_fdw=$(psql_q -c "SELECT bench_scan('events', $runs)")
scan_pg=$(psql_q -c "SELECT bench_scan('events_pg', $runs)")
rows_fdw=$(psql_q -c "SELECT bench_scan('events', $runs, true)")
rows_pg=$(psql_q -c "SELECT bench_scan('events_pg', $runs, true)")
best_lookup() {  # best of $runs sessions (each a new backend, so the store is opened cold once)
  local fn=$1 best=""
  for _ in $(seq 1 "$runs"); do
    t=$(psql_q -c "SELECT $fn($lookups, $sources, $hours)")
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
  done
  echo "$best"
}
lookup_fdw=$(best_lookup bench_lookup_fdw)
lookup_pg=$(best_lookup bench_lookup_pg)
echo "scan:   cassette_fdw ${scan_fdw}s, native ${scan_pg}s ($total rows)"
echo "rows:   cassette_fdw ${rows_fdw}s, native ${rows_pg}s ($total rows, aggregated by PostgreSQL)"
echo "lookup: cassette_fdw ${lookup_fdw}s, native ${lookup_pg}s ($lookups lookups of 50 rows)"
# bc prints .40 for 0.40: printf gives every ratio the same 0.00 form as the other benches.
ratio() { printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"; }
echo "RESULT fdw-scan pg-native $(ratio "$scan_pg" "$scan_fdw")"
echo "RESULT fdw-scan-rows pg-native $(ratio "$rows_pg" "$rows_fdw")"
echo "RESULT fdw-lookup pg-native $(ratio "$lookup_pg" "$lookup_fdw")"
