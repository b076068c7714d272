-- GROUP BY and DISTINCT on columns the clustering order does not give: the store groups the rows
-- (the plan starts "group", SQLite adds no TEMP B-TREE), groups in SQLite's order of the values
-- (NULL first; integers as numbers, text and uuids as bytes; an ORDER BY on the same columns,
-- either direction, needs no sort). Every result is checked against a native copy of the table.
.bail off
.load ./cassette
.headers on
CREATE VIRTUAL TABLE e USING cql(src text, day int, ts bigint, kind text, n int, ok boolean,
  tag blob, id uuid, d double, PRIMARY KEY ((src, day), ts));
INSERT INTO e VALUES
  ('a', 1, 1, 'view', 5, 1, x'01', '00000000-0000-0000-0000-000000000002', 1.5),
  ('a', 1, 2, 'buy', -300, 0, x'ff', '00000000-0000-0000-0000-000000000001', -0.0),
  ('a', 2, 3, NULL, 256, NULL, NULL, NULL, 0.0),
  ('b', 1, 4, 'view', -1, 1, x'01', 'ffffffff-0000-0000-0000-000000000000', 1.5),
  ('b', 1, 5, '', 0, 0, x'', '00000000-0000-0000-0000-000000000002', NULL),
  ('c', 7, 6, 'Buy', 5, 1, x'0001', '00000000-0000-0000-0000-000000000001', 2.0),
  ('c', 7, 7, 'view', NULL, NULL, x'ff', NULL, 1.5);
CREATE TABLE native AS SELECT src, day, ts, kind, n, ok, tag, id, d FROM e;
.print '== plans'
EXPLAIN QUERY PLAN SELECT kind, count(*) FROM e GROUP BY kind;
EXPLAIN QUERY PLAN SELECT kind, count(*) FROM e GROUP BY kind ORDER BY kind DESC;
EXPLAIN QUERY PLAN SELECT DISTINCT n FROM e ORDER BY n;
EXPLAIN QUERY PLAN SELECT DISTINCT n FROM e;
EXPLAIN QUERY PLAN SELECT day, kind, sum(ts) FROM e WHERE src = 'a' AND day = 1 GROUP BY kind;
EXPLAIN QUERY PLAN SELECT kind, writetime_n > 0, count(*) FROM e GROUP BY kind;
.print '== a double is left to SQLite (-0.0 and 0.0 are one group there)'
EXPLAIN QUERY PLAN SELECT d, count(*) FROM e GROUP BY d;
SELECT d, count(*) FROM e GROUP BY d;
.print '== results'
SELECT kind, count(*), sum(ts) FROM e GROUP BY kind;
SELECT kind, count(*), sum(ts) FROM e GROUP BY kind ORDER BY kind DESC;
SELECT n, group_concat(ts) FROM e GROUP BY n;
SELECT n, count(*) FROM e GROUP BY n ORDER BY n DESC;
SELECT ok, count(*) FROM e GROUP BY ok;
SELECT hex(tag), count(*) FROM e GROUP BY tag;
SELECT id, count(*) FROM e GROUP BY id;
SELECT kind, n, count(*) FROM e GROUP BY kind, n ORDER BY kind DESC, n;
SELECT DISTINCT kind FROM e ORDER BY kind;
SELECT kind, count(*) FROM e WHERE n > 0 GROUP BY kind HAVING count(*) > 0;
SELECT kind, count(*) FROM e GROUP BY kind LIMIT 2 OFFSET 1;
SELECT kind, max(writetime_n) > 0 AS written, count(token) FROM e GROUP BY kind;
.print '== every grouped result equals the native one'
SELECT count(*) AS differences FROM (
  SELECT * FROM (SELECT kind, count(*), sum(ts), min(n), max(tag) FROM e GROUP BY kind)
  EXCEPT SELECT * FROM (SELECT kind, count(*), sum(ts), min(n), max(tag) FROM native GROUP BY kind));
SELECT (SELECT group_concat(x, '|') FROM (SELECT coalesce(n, 'null') || ':' || count(*) AS x FROM e GROUP BY n ORDER BY n DESC))
     = (SELECT group_concat(x, '|') FROM (SELECT coalesce(n, 'null') || ':' || count(*) AS x FROM native GROUP BY n ORDER BY n DESC)) AS same_order;
SELECT (SELECT group_concat(x, '|') FROM (SELECT coalesce(id, 'null') || ':' || count(*) AS x FROM e GROUP BY id))
     = (SELECT group_concat(x, '|') FROM (SELECT coalesce(id, 'null') || ':' || count(*) AS x FROM native GROUP BY id)) AS same_order;
.print '== a GROUP BY inside a transaction sees its own writes'
BEGIN;
INSERT INTO e (src, day, ts, kind) VALUES ('d', 1, 8, 'buy');
DELETE FROM e WHERE src = 'c' AND day = 7 AND ts = 6;
SELECT kind, count(*) FROM e GROUP BY kind;
ROLLBACK;
SELECT kind, count(*) FROM e GROUP BY kind;
.print '== a grouping column dropped since the table connected reads NULL: one group for it'
-- Defensive mode keeps SQLite's columns as they were (README "CREATE VIRTUAL TABLE").
.dbconfig defensive on
CREATE VIRTUAL TABLE g2 USING cql(k int, c int, a text, b text, PRIMARY KEY (k, c));
INSERT INTO g2 VALUES (1, 1, 'x', 'p'), (1, 2, 'y', 'p'), (2, 1, 'x', 'q'), (2, 2, 'y', 'p'), (3, 1, 'z', 'p');
EXPLAIN QUERY PLAN SELECT a, b, count(*) FROM g2 GROUP BY a, b;
SELECT cql('ALTER TABLE main.g2 DROP a');
SELECT a, b, count(*) FROM g2 GROUP BY a, b;
SELECT b, a, count(*) FROM g2 GROUP BY b, a ORDER BY b DESC, a;
