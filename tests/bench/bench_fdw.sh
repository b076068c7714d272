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
#   fdw-wide-column  SELECT count(*), sum(v7) FROM (SELECT v7 FROM wide OFFSET 0) s: one column of
#               a table of FDW_BENCH_WIDE_COLUMNS columns (ints, doubles, text) and
#               FDW_BENCH_WIDE_ROWS rows, through the wrapper (the engine decodes only v7's
#               values: `Cassette Plan: scan values(v7)`)
#   fdw-wide-sum  SELECT sum(v7) FROM wide (the aggregate pushed down, one column read)
# Prints `RESULT <workload> pg-native <ratio>` with ratio = native time / cassette time (> 1:
# Cassette faster). Sizes: FDW_BENCH_SOURCES x FDW_BENCH_HOURS partitions of FDW_BENCH_ROWS rows.
# FDW_BENCH_ONLY=wide runs the wide-table workloads alone (FDW_BENCH_WIDE_ROWS=0: not at all).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
sources=${FDW_BENCH_SOURCES:-100}
hours=${FDW_BENCH_HOURS:-24}
per_partition=${FDW_BENCH_ROWS:-100}
lookups=${FDW_BENCH_LOOKUPS:-10000}
runs=${FDW_BENCH_RUNS:-3}
wide_rows=${FDW_BENCH_WIDE_ROWS:-200000}
wide_columns=${FDW_BENCH_WIDE_COLUMNS:-20}
only=${FDW_BENCH_ONLY:-}

if [ ! -f "$build_dir/cassette_fdw.so" ]; then
  cmake --build "$build_dir" --target cassette_fdw >/dev/null
fi
export PG_EXTENSION_BUILD=$build_dir  # a private install (tests/lib/pg_throwaway.sh)
source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start
store=$PG_WORK_DIR/bench.cassette
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }

total=$((sources * hours * per_partition))
psql_q <<SQL
CREATE EXTENSION cassette_fdw;
CREATE SERVER bench FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$store', create 'true');
SELECT cql('CREATE KEYSPACE b WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') IS NOT NULL;
SQL
# ratio = native time / cassette time; bc prints .40 for 0.40: printf gives every ratio the same
# 0.00 form as the other benches.
ratio() { printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"; }
psql_q <<'SQL'
CREATE FUNCTION bench_sql(q text, runs int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; best float8 := 1e9; r record;
BEGIN
  FOR i IN 1..runs LOOP
    t0 := clock_timestamp();
    EXECUTE q INTO r;
    best := least(best, extract(epoch FROM clock_timestamp() - t0));
  END LOOP;
  RETURN best;
END $$;
-- CPU seconds per run of q over `runs` runs: the backend's user + system time (/proc/self/stat,
-- in clock ticks), which other work on a loaded machine disturbs less than wall time; without
-- parallel workers, whose time the backend would not count.
CREATE FUNCTION bench_sql_cpu(q text, runs int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE before float8; r record;
BEGIN
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  EXECUTE q INTO r;  -- warm
  before := bench_cpu_ticks();
  FOR i IN 1..runs LOOP
    EXECUTE q INTO r;
  END LOOP;
  RETURN round(((bench_cpu_ticks() - before) / 100.0 / runs)::numeric, 4);
END $$;
CREATE FUNCTION bench_cpu_ticks() RETURNS float8 LANGUAGE sql AS $$
  SELECT (f[14])::float8 + (f[15])::float8
    FROM regexp_split_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') s(g),
         LATERAL (SELECT array_prepend('', array_prepend('', g)) AS f) x
$$;
SQL

# ---- one column of a wide table ------------------------------------------------------------------
if [ "$wide_rows" -gt 0 ]; then
  # k, c and wide_columns - 2 regular columns v1...: ints, doubles and 16-byte texts in turn
  cql_columns="" pg_columns="" select_list="" names=""
  for i in $(seq 1 $((wide_columns - 2))); do
    case $((i % 3)) in
      0) cql_type=text pg_type=text value="'text-' || lpad((g * $i)::text, 11, '0')" ;;
      1) cql_type=int pg_type=integer value="g * $i" ;;
      2) cql_type=double pg_type='double precision' value="g * $i / 7.0" ;;
    esac
    cql_columns+=", v$i $cql_type"
    pg_columns+=", v$i $pg_type"
    select_list+=", $value AS v$i"
    names+=", v$i"
  done
  partitions=$(( (wide_rows + 99) / 100 ))
  echo "bench_fdw: wide table, $wide_columns columns x $wide_rows rows"
  psql_q <<SQL
SELECT cql('CREATE TABLE b.wide (k int, c int$cql_columns, PRIMARY KEY (k, c))') IS NOT NULL;
IMPORT FOREIGN SCHEMA b LIMIT TO (wide) FROM SERVER bench INTO public;
CREATE TABLE wide_pg (k int, c int$pg_columns, PRIMARY KEY (k, c));
CREATE VIEW wide_rows AS SELECT g / 100 AS k, g % 100 AS c$select_list
  FROM generate_series(0, $((wide_rows - 1))) g;
SQL
  for p in $(seq 0 200 $((partitions - 1))); do  # one transaction per 20,000 rows
    # (the foreign table's columns are in CQL's order: v1, v10, v11, ..., v2, ...)
    psql_q -c "INSERT INTO wide (k, c$names) SELECT k, c$names FROM wide_rows
               WHERE k >= $p AND k < $((p + 200))"
  done
  psql_q -c "INSERT INTO wide_pg (k, c$names) SELECT k, c$names FROM wide_rows" -c "VACUUM ANALYZE wide_pg" -c "ANALYZE wide"
  same=$(psql_q -c "SELECT (SELECT row(count(*), sum(v7)) FROM wide) = (SELECT row(count(*), sum(v7)) FROM wide_pg)")
  [ "$same" = t ] || { echo "bench_fdw: the wide tables differ"; exit 1; }
  column_q="SELECT count(*), sum(v7) FROM (SELECT v7 FROM %s OFFSET 0) s"
  psql_q -c "EXPLAIN (VERBOSE, COSTS OFF) $(printf "$column_q" wide)" | grep -E 'Cassette Plan'
  psql_q -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(v7) FROM wide" | grep -E 'Cassette (Plan|Agg)'
  wide_fdw=$(psql_q -c "SELECT bench_sql('$(printf "$column_q" wide)', $runs)")
  wide_pg=$(psql_q -c "SELECT bench_sql('$(printf "$column_q" wide_pg)', $runs)")
  sum_fdw=$(psql_q -c "SELECT bench_sql('SELECT sum(v7) FROM wide', $runs)")
  sum_pg=$(psql_q -c "SELECT bench_sql('SELECT sum(v7) FROM wide_pg', $runs)")
  cpu_runs=${FDW_BENCH_CPU_RUNS:-20}
  wide_fdw_cpu=$(psql_q -c "SELECT bench_sql_cpu('$(printf "$column_q" wide)', $cpu_runs)")
  wide_pg_cpu=$(psql_q -c "SELECT bench_sql_cpu('$(printf "$column_q" wide_pg)', $cpu_runs)")
  sum_fdw_cpu=$(psql_q -c "SELECT bench_sql_cpu('SELECT sum(v7) FROM wide', $cpu_runs)")
  sum_pg_cpu=$(psql_q -c "SELECT bench_sql_cpu('SELECT sum(v7) FROM wide_pg', $cpu_runs)")
  echo "wide:   cassette_fdw ${wide_fdw}s, native ${wide_pg}s (one column of $wide_rows rows)"
  echo "sum:    cassette_fdw ${sum_fdw}s, native ${sum_pg}s (sum of one column, pushed down)"
  echo "RESULT fdw-wide-column pg-native $(ratio "$wide_pg" "$wide_fdw")"
  echo "RESULT fdw-wide-sum pg-native $(ratio "$sum_pg" "$sum_fdw")"
  echo "cpu:    one column cassette_fdw ${wide_fdw_cpu}s, native ${wide_pg_cpu}s;\
 sum cassette_fdw ${sum_fdw_cpu}s, native ${sum_pg_cpu}s (CPU per run, no parallel workers)"
  echo "RESULT fdw-wide-column-cpu pg-native $(ratio "$wide_pg_cpu" "$wide_fdw_cpu")"
  echo "RESULT fdw-wide-sum-cpu pg-native $(ratio "$sum_pg_cpu" "$sum_fdw_cpu")"
fi
[ "$only" = wide ] && exit 0

echo "bench_fdw: $sources sources x $hours hours x $per_partition rows = $total rows, $lookups lookups"
psql_q <<SQL
SELECT cql('CREATE TABLE b.events (source text, hour int, ts timestamp, value double, PRIMARY KEY ((source, hour), ts))') IS NOT NULL;
IMPORT FOREIGN SCHEMA b LIMIT TO (events) FROM SERVER bench INTO public;
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
echo "RESULT fdw-scan pg-native $(ratio "$scan_pg" "$scan_fdw")"
echo "RESULT fdw-scan-rows pg-native $(ratio "$rows_pg" "$rows_fdw")"
echo "RESULT fdw-lookup pg-native $(ratio "$lookup_pg" "$lookup_fdw")"
