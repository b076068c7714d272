-- Aggregate pushdown: count, sum, min and max computed by the engine, compared with PostgreSQL's
-- own aggregates over a native table holding the same rows (read through the wrapper without
-- pushdown), and the cases that must stay local.
SET datestyle = ISO;
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT cql($$CREATE TABLE app.agg (k text, c int, i int, b bigint, s smallint, t tinyint, f float,
  d double, n decimal, v varint, ts timestamp, dt date, tm time, txt text,
  PRIMARY KEY (k, c))$$);
IMPORT FOREIGN SCHEMA app LIMIT TO (agg) FROM SERVER cassette INTO imported;

-- An empty table.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), count(i), sum(i), sum(b), sum(f), sum(d), min(i), max(txt COLLATE "C") FROM imported.agg;
SELECT count(*), count(i), sum(i), sum(b), sum(f), sum(d), min(i), max(txt COLLATE "C") FROM imported.agg;

-- Rows with NULL columns, a deleted row, a row whose TTL expired, and a cell whose TTL expired.
SELECT cql($$INSERT INTO app.agg (k, c, i, b, s, t, f, d, n, v, ts, dt, tm, txt) VALUES
  ('a', 1, 2147483647, 9223372036854775807, 32767, 127, 1.5, 1e16, 1.50, 12345678901234567890,
   '2024-01-02 03:04:05.678', '2024-02-29', '13:14:15.123456789', 'b')$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, b, s, t, f, d, n, v, ts, dt, tm, txt) VALUES
  ('a', 2, 2147483647, 9223372036854775807, 32767, -128, 3.4e38, 1, 1.5, -1,
   '1969-12-31 23:59:59.999', '1900-01-01', '00:00:00', 'ab')$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, b, f, d, n, txt) VALUES
  ('a', 3, -5, -9223372036854775808, -0.0, -1e16, -2.25, 'B')$$);
SELECT cql($$INSERT INTO app.agg (k, c) VALUES ('a', 4)$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, d, txt) VALUES ('b', 1, 7, 0.1, 'é')$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, d, txt) VALUES ('b', 2, 8, 0.2, '')$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, d) VALUES ('b', 3, 9, 0.3)$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, d) VALUES ('b', 4, 100, 100)$$);
SELECT cql($$DELETE FROM app.agg WHERE k = 'b' AND c = 4$$);
SELECT cql($$INSERT INTO app.agg (k, c, i, d) VALUES ('c', 1, 1000, 1000) USING TTL 1$$);
SELECT cql($$INSERT INTO app.agg (k, c, i) VALUES ('c', 2, 10)$$);
SELECT cql($$UPDATE app.agg USING TTL 1 SET d = 5000 WHERE k = 'c' AND c = 2$$);
SELECT pg_sleep(2.1);
SELECT k, c, i, b, d, txt FROM imported.agg ORDER BY k, c;

-- The same rows in a native table (a plain scan: no aggregate to push down).
CREATE TABLE agg_pg AS SELECT * FROM imported.agg;

-- Every supported aggregate, pushed down, against PostgreSQL's.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), count(i), count(txt), sum(i), sum(b), sum(s), sum(t), sum(f), sum(d) FROM imported.agg;
SELECT count(*), count(i), count(txt), sum(i), sum(b), sum(s), sum(t), sum(f), sum(d) FROM imported.agg;
SELECT count(*), count(i), count(txt), sum(i), sum(b), sum(s), sum(t), sum(f), sum(d) FROM agg_pg;
SELECT pg_typeof(count(*)), pg_typeof(sum(i)), pg_typeof(sum(b)), pg_typeof(sum(s)),
       pg_typeof(sum(f)), pg_typeof(sum(d)) FROM imported.agg;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT min(i), max(i), min(b), max(b), min(s), max(t), min(f), max(f), min(d), max(d) FROM imported.agg;
SELECT min(i), max(i), min(b), max(b), min(s), max(t), min(f), max(f), min(d), max(d) FROM imported.agg;
SELECT min(i), max(i), min(b), max(b), min(s), max(t), min(f), max(f), min(d), max(d) FROM agg_pg;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT min(n), max(n), min(v), max(v), min(ts), max(ts), min(dt), max(dt), min(tm), max(tm) FROM imported.agg;
SELECT min(n), max(n), min(v), max(v), min(ts), max(ts), min(dt), max(dt), min(tm), max(tm) FROM imported.agg;
SELECT min(n), max(n), min(v), max(v), min(ts), max(ts), min(dt), max(dt), min(tm), max(tm) FROM agg_pg;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT min(txt COLLATE "C"), max(txt COLLATE "C") FROM imported.agg;
SELECT min(txt COLLATE "C"), max(txt COLLATE "C") FROM imported.agg;
SELECT min(txt COLLATE "C"), max(txt COLLATE "C") FROM agg_pg;
-- Expressions over aggregates are computed over the pushed-down row.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) + 1, sum(i) * 2, count(*) FROM imported.agg;
SELECT count(*) + 1, sum(i) * 2, count(*) FROM imported.agg;

-- Restrictions the engine enforces stay pushed down under the aggregate.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(d), max(i) FROM imported.agg WHERE k = 'b';
SELECT count(*), sum(d), max(i) FROM imported.agg WHERE k = 'b';
SELECT count(*), sum(d), max(i) FROM agg_pg WHERE k = 'b';
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(i), min(c) FROM imported.agg WHERE k IN ('a', 'b') AND c >= 2 AND c < 4;
SELECT count(*), sum(i), min(c) FROM imported.agg WHERE k IN ('a', 'b') AND c >= 2 AND c < 4;
SELECT count(*), sum(i), min(c) FROM agg_pg WHERE k IN ('a', 'b') AND c >= 2 AND c < 4;
-- Executed again for each outer row (a correlated subquery: the scan is rescanned).
EXPLAIN (VERBOSE, COSTS OFF)
SELECT p.k, (SELECT count(*) FROM imported.agg a WHERE a.k = p.k) FROM (VALUES ('a'), ('b'), ('zz')) p(k);
SELECT p.k, (SELECT count(*) FROM imported.agg a WHERE a.k = p.k) FROM (VALUES ('a'), ('b'), ('zz')) p(k);
-- min/max of a clustering column inside one partition (PostgreSQL could also read it in order).
EXPLAIN (VERBOSE, COSTS OFF)
SELECT min(c), max(c) FROM imported.agg WHERE k = 'a';
SELECT min(c), max(c) FROM imported.agg WHERE k = 'a';
-- A float sum starts from its first value, as PostgreSQL's does: the sum of one -0 is -0.
SELECT sum(f), sum(d) FROM imported.agg WHERE k = 'a' AND c = 3;
SELECT sum(f), sum(d) FROM agg_pg WHERE k = 'a' AND c = 3;
-- A partition with no rows: count 0, the others NULL.
SELECT count(*), count(i), sum(i), min(d) FROM imported.agg WHERE k = 'nobody';
PREPARE agg_of(text) AS SELECT count(*), sum(i) FROM imported.agg WHERE k = $1;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE agg_of('a');
EXECUTE agg_of('a');
EXECUTE agg_of('c');

-- GROUP BY the whole partition key: one group per partition, folded by the engine.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k, count(*), count(d), sum(i), max(d) FROM imported.agg GROUP BY k ORDER BY k;
SELECT k, count(*), count(d), sum(i), max(d) FROM imported.agg GROUP BY k ORDER BY k;
SELECT k, count(*), count(d), sum(i), max(d) FROM agg_pg GROUP BY k ORDER BY k;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT upper(k), sum(i) + 1 FROM imported.agg WHERE k IN ('a', 'c', 'zz') GROUP BY k ORDER BY 1;
SELECT upper(k), sum(i) + 1 FROM imported.agg WHERE k IN ('a', 'c', 'zz') GROUP BY k ORDER BY 1;
SELECT count(*) FROM imported.agg WHERE k = 'zz' GROUP BY k;
CREATE TABLE events_pg AS SELECT * FROM imported.events;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT hour, source, count(*), sum(value), min(ts) FROM imported.events GROUP BY source, hour ORDER BY source, hour;
SELECT hour, source, count(*), sum(value), min(ts) FROM imported.events GROUP BY source, hour ORDER BY source, hour;
SELECT hour, source, count(*), sum(value), min(ts) FROM events_pg GROUP BY source, hour ORDER BY source, hour;
-- A part of the partition key, or more than it, is PostgreSQL's grouping.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT source, count(*) FROM imported.events GROUP BY source ORDER BY source;
SELECT source, count(*) FROM imported.events GROUP BY source ORDER BY source;
SELECT source, count(*) FROM events_pg GROUP BY source ORDER BY source;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k, count(*) FROM imported.agg GROUP BY k HAVING count(*) > 1 ORDER BY k;
SELECT k, count(*) FROM imported.agg GROUP BY k HAVING count(*) > 1 ORDER BY k;

-- Not pushed down, and still right: a filter PostgreSQL checks, GROUP BY, DISTINCT, FILTER,
-- avg, an expression argument, HAVING, a text max under a linguistic (ICU) collation.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), sum(i) FROM imported.agg WHERE d > 0.15;
SELECT count(*), sum(i) FROM imported.agg WHERE d > 0.15;
SELECT count(*), sum(i) FROM agg_pg WHERE d > 0.15;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT txt, count(*), sum(i) FROM imported.agg GROUP BY txt ORDER BY txt COLLATE "C";
SELECT txt, count(*), sum(i) FROM imported.agg GROUP BY txt ORDER BY txt COLLATE "C";
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(DISTINCT i), count(*) FILTER (WHERE i > 8) FROM imported.agg;
SELECT count(DISTINCT i), count(*) FILTER (WHERE i > 8) FROM imported.agg;
SELECT count(DISTINCT i), count(*) FILTER (WHERE i > 8) FROM agg_pg;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT avg(i), sum(c + 1) FROM imported.agg;
SELECT avg(i), sum(c + 1) FROM imported.agg;
SELECT avg(i), sum(c + 1) FROM agg_pg;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM imported.agg HAVING count(*) > 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT max(txt COLLATE "und-x-icu") FROM imported.agg;
SELECT max(txt COLLATE "und-x-icu") FROM imported.agg;
SELECT max(txt COLLATE "und-x-icu") FROM agg_pg;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM imported.agg a JOIN agg_pg p USING (k, c);
SELECT count(*) FROM imported.agg a JOIN agg_pg p USING (k, c);
SELECT count(*) FROM imported.agg HAVING count(*) > 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(n) FROM imported.agg;
SELECT sum(n) FROM imported.agg;
SELECT sum(n) FROM agg_pg;

-- A column declared with another type than its mapped one travels as text: not pushed down.
CREATE FOREIGN TABLE agg_text (k text, c int, i text) SERVER cassette OPTIONS (table 'app.agg');
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*), count(i), max(i COLLATE "C") FROM agg_text;
SELECT count(*), count(i), max(i COLLATE "C") FROM agg_text;
-- Counters are bigints (their min/max stay PostgreSQL's).
SELECT cql('CREATE TABLE app.aggc (k int PRIMARY KEY, n counter)');
IMPORT FOREIGN SCHEMA app LIMIT TO (aggc) FROM SERVER cassette INTO imported;
SELECT cql('UPDATE app.aggc SET n = n + 9223372036854775807 WHERE k = 1');
SELECT cql('UPDATE app.aggc SET n = n + 5 WHERE k = 2');
SELECT cql('UPDATE app.aggc SET n = n - 7 WHERE k = 3');
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(n), sum(n) FROM imported.aggc;
SELECT count(n), sum(n) FROM imported.aggc;
SELECT count(n), sum(n) FROM (SELECT n FROM imported.aggc OFFSET 0) s;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(n), max(n) FROM imported.aggc;
SELECT sum(n), max(n) FROM imported.aggc;

-- A float sum that overflows is PostgreSQL's error.
SELECT cql($$INSERT INTO app.agg (k, c, f) VALUES ('d', 1, 3.4e38)$$);
SELECT sum(f) FROM imported.agg;
SELECT sum(f) FROM (SELECT f FROM imported.agg OFFSET 0) s;

-- Static-only partitions are rows, as a scan returns them.
SELECT cql('CREATE TABLE app.aggs (k int, c int, st int static, v int, PRIMARY KEY (k, c))');
IMPORT FOREIGN SCHEMA app LIMIT TO (aggs) FROM SERVER cassette INTO imported;
SELECT cql('INSERT INTO app.aggs (k, st) VALUES (1, 10)');
SELECT cql('INSERT INTO app.aggs (k, c, st, v) VALUES (2, 1, 20, 5)');
SELECT cql('INSERT INTO app.aggs (k, c, v) VALUES (2, 2, 6)');
SELECT count(*), count(c), count(st), sum(st), sum(v) FROM imported.aggs;
SELECT count(*), count(c), count(st), sum(st), sum(v) FROM (SELECT * FROM imported.aggs OFFSET 0) s;
