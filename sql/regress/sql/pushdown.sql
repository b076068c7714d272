-- What the scans push down, shown by EXPLAIN (VERBOSE, COSTS OFF), with the rows they return.
SET datestyle = ISO;
SET timezone = 'UTC';
SET extra_float_digits = 0;
-- events: partition key (source, hour), clustering ts DESC.
INSERT INTO imported.events (source, hour, ts, value)
  SELECT 'sensor-' || s, h, '2024-01-01 00:00:00+00'::timestamptz + (h * 60 + m) * interval '1 minute', s * 100 + h + m / 100.0
  FROM generate_series(1, 3) s, generate_series(1, 4) h, generate_series(0, 9) m;
SELECT count(*) FROM imported.events;

-- Partition key equality: a partition lookup.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts, value FROM imported.events WHERE source = 'sensor-2' AND hour = 3;
SELECT ts, value FROM imported.events WHERE source = 'sensor-2' AND hour = 3;
-- IN and = ANY: several partitions.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM imported.events WHERE source IN ('sensor-1', 'sensor-3') AND hour = ANY ('{1, 2}');
SELECT count(*) FROM imported.events WHERE source IN ('sensor-1', 'sensor-3') AND hour = ANY ('{1, 2}');
-- A clustering slice inside the partition.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts FROM imported.events
 WHERE source = 'sensor-1' AND hour = 2 AND ts > '2024-01-01 02:05:00+00' AND ts <= '2024-01-01 02:08:00+00';
SELECT ts FROM imported.events
 WHERE source = 'sensor-1' AND hour = 2 AND ts > '2024-01-01 02:05:00+00' AND ts <= '2024-01-01 02:08:00+00';
-- Clustering equality.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT value FROM imported.events WHERE source = 'sensor-1' AND hour = 2 AND ts = '2024-01-01 02:03:00+00';
SELECT value FROM imported.events WHERE source = 'sensor-1' AND hour = 2 AND ts = '2024-01-01 02:03:00+00';
-- IN on a clustering column.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts FROM imported.events
 WHERE source = 'sensor-1' AND hour = 2 AND ts IN ('2024-01-01 02:03:00+00', '2024-01-01 02:07:00+00', '2024-01-01 09:00:00+00');
SELECT ts FROM imported.events
 WHERE source = 'sensor-1' AND hour = 2 AND ts IN ('2024-01-01 02:03:00+00', '2024-01-01 02:07:00+00', '2024-01-01 09:00:00+00');
-- ORDER BY in clustering order (DESC here) and reversed, with LIMIT: no Sort, the limit goes down.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts FROM imported.events WHERE source = 'sensor-3' AND hour = 4 ORDER BY ts DESC LIMIT 3;
SELECT ts FROM imported.events WHERE source = 'sensor-3' AND hour = 4 ORDER BY ts DESC LIMIT 3;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts FROM imported.events WHERE source = 'sensor-3' AND hour = 4 ORDER BY ts LIMIT 3;
SELECT ts FROM imported.events WHERE source = 'sensor-3' AND hour = 4 ORDER BY ts LIMIT 3;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts FROM imported.events WHERE source = 'sensor-3' AND hour = 4 AND ts < '2024-01-01 04:05:00+00'
 ORDER BY ts DESC LIMIT 2 OFFSET 1;
SELECT ts FROM imported.events WHERE source = 'sensor-3' AND hour = 4 AND ts < '2024-01-01 04:05:00+00'
 ORDER BY ts DESC LIMIT 2 OFFSET 1;
-- A filter the store cannot apply stays in PostgreSQL, and then no LIMIT is pushed.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT ts, value FROM imported.events WHERE source = 'sensor-3' AND hour = 4 AND value > 304.05
 ORDER BY ts DESC LIMIT 2;
SELECT ts, value FROM imported.events WHERE source = 'sensor-3' AND hour = 4 AND value > 304.05
 ORDER BY ts DESC LIMIT 2;
-- An incomplete partition key: a full scan, filtered.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM imported.events WHERE source = 'sensor-1';
SELECT count(*) FROM imported.events WHERE source = 'sensor-1';
-- Without a partition, ORDER BY needs a Sort.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT source, hour, ts FROM imported.events ORDER BY ts DESC LIMIT 1;
SELECT source, hour, ts FROM imported.events ORDER BY ts DESC LIMIT 1;
-- Prepared statements bind the values at execution.
PREPARE latest(text, int) AS
  SELECT ts, value FROM imported.events WHERE source = $1 AND hour = $2 ORDER BY ts DESC LIMIT 2;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE latest('sensor-2', 1);
EXECUTE latest('sensor-2', 1);
EXECUTE latest('sensor-9', 1);
PREPARE several(text[]) AS SELECT count(*) FROM imported.events WHERE source = ANY ($1) AND hour = 1;
EXECUTE several('{sensor-1,sensor-2,sensor-1,nobody}');
-- NULLs match nothing.
SELECT count(*) FROM imported.events WHERE source = NULL AND hour = 1;
SELECT count(*) FROM imported.events WHERE source IN ('sensor-1', NULL) AND hour = 1;

-- ANALYZE gives the planner the row count.
ANALYZE imported.events;
SELECT reltuples FROM pg_class WHERE oid = 'imported.events'::regclass;

-- A join from a native table: one partition lookup per outer row (a parameterized path).
CREATE TABLE wanted (source text, hour int);
INSERT INTO wanted VALUES ('sensor-1', 1), ('sensor-3', 2), ('nobody', 1);
ANALYZE wanted;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT w.source, w.hour, count(e.ts) FROM wanted w JOIN imported.events e
  ON e.source = w.source AND e.hour = w.hour GROUP BY 1, 2 ORDER BY 1, 2;
SELECT w.source, w.hour, count(e.ts) FROM wanted w JOIN imported.events e
  ON e.source = w.source AND e.hour = w.hour GROUP BY 1, 2 ORDER BY 1, 2;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT w.source, e.ts FROM wanted w,
  LATERAL (SELECT ts FROM imported.events e WHERE e.source = w.source AND e.hour = w.hour
           ORDER BY ts DESC LIMIT 1) e ORDER BY 1;
SELECT w.source, e.ts FROM wanted w,
  LATERAL (SELECT ts FROM imported.events e WHERE e.source = w.source AND e.hour = w.hour
           ORDER BY ts DESC LIMIT 1) e ORDER BY 1;

-- Static columns: a partition with only a static row shows as one row.
SELECT cql('CREATE TABLE app.stat (p int, c int, s text static, v text, PRIMARY KEY (p, c))');
SELECT cql($$INSERT INTO app.stat (p, c, s, v) VALUES (1, 1, 'static one', 'a')$$);
SELECT cql($$INSERT INTO app.stat (p, s) VALUES (2, 'static only')$$);
IMPORT FOREIGN SCHEMA app LIMIT TO (stat) FROM SERVER cassette INTO imported;
SELECT * FROM imported.stat ORDER BY p, c;
SELECT * FROM imported.stat WHERE p = 2;
SELECT * FROM imported.stat WHERE p = 1 AND c > 0;

-- Scans read rows from the engine in batches: every value survives a batch boundary (text,
-- bytea and uuid values are copied out of the engine's row), and a scan that stops early or is
-- rescanned mid-batch reads right.
SELECT cql('CREATE TABLE app.batched (k int PRIMARY KEY, t text, b blob, u uuid, d double)');
IMPORT FOREIGN SCHEMA app LIMIT TO (batched) FROM SERVER cassette INTO imported;
CREATE TEMP TABLE batched_native AS
  SELECT g AS k, CASE WHEN g % 7 = 0 THEN NULL ELSE repeat(chr(97 + g % 26), 1 + g % 40) END AS t,
         sha256(g::text::bytea) AS b, md5(g::text)::uuid AS u,
         CASE WHEN g % 5 = 0 THEN NULL ELSE g / 4.0 END::float8 AS d
  FROM generate_series(1, 1500) g;
INSERT INTO imported.batched (k, t, b, u, d) SELECT k, t, b, u, d FROM batched_native;
SELECT count(*), count(t), count(b), count(u), count(d), sum(length(t)), sum(d) FROM imported.batched;
SELECT count(*) AS only_in_cassette FROM
  (SELECT k, t, b, u, d FROM imported.batched EXCEPT ALL SELECT * FROM batched_native) x;
SELECT count(*) AS only_in_native FROM
  (SELECT * FROM batched_native EXCEPT ALL SELECT k, t, b, u, d FROM imported.batched) x;
-- A filter PostgreSQL checks and a LIMIT the engine does not enforce: the scan stops early.
SELECT count(*) FROM (SELECT k FROM imported.batched WHERE d > 300 LIMIT 5) x;
-- Subqueries rescan the table for every outer row, once reading all of it, once stopping early.
SELECT g, (SELECT count(t) FROM imported.batched WHERE k % 3 = g) AS cassette,
       (SELECT count(t) FROM batched_native WHERE k % 3 = g) AS native
  FROM generate_series(0, 2) g;
SELECT g, (SELECT t FROM imported.batched WHERE k % 100 = g AND t IS NOT NULL LIMIT 1) IS NOT NULL AS found
  FROM generate_series(0, 3) g;

-- Text clustering columns: CQL orders text by its UTF-8 bytes, which is code point order, as
-- the C, POSIX and C.UTF-8 collations sort (C.UTF-8 is this cluster's default, and Debian's):
-- ORDER BY, slices and min/max go down under them. A linguistic collation (ICU's here) keeps
-- its Sort and filters.
SELECT datcollate FROM pg_database WHERE datname = current_database();
SELECT cql('CREATE TABLE app.words (p int, w text, n int, PRIMARY KEY (p, w))', 'cassette');
SELECT cql($$BEGIN BATCH
  INSERT INTO app.words (p, w, n) VALUES (1, 'apple', 1);
  INSERT INTO app.words (p, w, n) VALUES (1, 'Zebra', 2);
  INSERT INTO app.words (p, w, n) VALUES (1, 'éclair', 3);
  INSERT INTO app.words (p, w, n) VALUES (1, 'zoo', 4);
  INSERT INTO app.words (p, w, n) VALUES (1, 'Äpfel', 5);
APPLY BATCH$$, 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (words) FROM SERVER cassette INTO imported;
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 ORDER BY w;
SELECT w FROM imported.words WHERE p = 1 ORDER BY w;
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 ORDER BY w DESC LIMIT 2;
SELECT w FROM imported.words WHERE p = 1 ORDER BY w DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 ORDER BY w COLLATE "C";
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 ORDER BY w COLLATE "POSIX";
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 AND w > 'b';
SELECT w FROM imported.words WHERE p = 1 AND w > 'b' ORDER BY w;
EXPLAIN (COSTS OFF) SELECT min(w), max(w) FROM imported.words WHERE p = 1;
SELECT min(w), max(w) FROM imported.words WHERE p = 1;
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 ORDER BY w COLLATE "und-x-icu";
SELECT w FROM imported.words WHERE p = 1 ORDER BY w COLLATE "und-x-icu";
EXPLAIN (COSTS OFF) SELECT w FROM imported.words WHERE p = 1 AND w > 'b' COLLATE "und-x-icu";
SELECT w FROM imported.words WHERE p = 1 AND w > 'b' COLLATE "und-x-icu" ORDER BY w;
EXPLAIN (COSTS OFF) SELECT min(w COLLATE "und-x-icu") FROM imported.words WHERE p = 1;

-- Row estimates of a partition lookup after ANALYZE: the sample's row count and the partition
-- key's distinct values, as for a table of PostgreSQL's own. (Before it, the engine's estimate
-- from the store's statistics: tests/postgres/run.sh checks it on a store with SSTables.)
CREATE FUNCTION estimated_rows(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;
SELECT cql('CREATE TABLE app.estimated (p int, c int, v text, PRIMARY KEY (p, c))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (estimated) FROM SERVER cassette INTO imported;
INSERT INTO imported.estimated SELECT p, c, 'x' FROM generate_series(1, 4) p, generate_series(1, 1000) c;
ANALYZE imported.estimated;
SELECT reltuples FROM pg_class WHERE oid = 'imported.estimated'::regclass;
SELECT attname, n_distinct FROM pg_stats WHERE schemaname = 'imported' AND tablename = 'estimated' ORDER BY attname;
SELECT estimated_rows('SELECT * FROM imported.estimated') AS all_rows,
       estimated_rows('SELECT * FROM imported.estimated WHERE p = 2') AS one_partition,
       estimated_rows('SELECT * FROM imported.estimated WHERE p IN (1, 2)') AS two_partitions,
       estimated_rows('SELECT * FROM imported.estimated WHERE p = 2 AND c < 100') AS slice;
