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
