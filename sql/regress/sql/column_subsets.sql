-- Scans decode only the columns a query reads: its output and the columns of the joins, sorts
-- and aggregates above the scan, the filters PostgreSQL keeps, the restrictions and ORDER BY the
-- engine keeps, a pushed-down aggregate's columns, a DELETE's row identity. The plan lists them
-- (EXPLAIN VERBOSE: "Cassette Plan: ... values(a,b)"); no list when every column is read: a
-- whole-row reference, which PostgreSQL also makes for every UPDATE (it builds the new row from
-- the old one), for RETURNING and for row locks. The other cells still decide which rows are live
-- (their timestamps, TTLs and tombstones), so every shape returns exactly the rows a read of
-- every column returns.
SET datestyle = ISO;
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT cql($$CREATE TABLE app.subsets (k int, c int, s text STATIC, a text, b int, d double,
  l list<int>, m map<text, int>, tags set<text>, PRIMARY KEY (k, c))$$, 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (subsets) FROM SERVER cassette INTO imported;
-- Rows whose liveness lies in their cells: written by UPDATE (no row marker), live through one
-- cell only (a, b, a collection), TTL'd cells and rows, tombstones, a static-only partition.
SELECT cql($$INSERT INTO app.subsets (k, c, a, b, d, l, m, tags)
  VALUES (1, 1, 'one', 10, 1.5, [1, 2], {'x': 1}, {'red'})$$, 'cassette');
SELECT cql($$INSERT INTO app.subsets (k, c, a, b) VALUES (1, 2, 'two', 20)$$, 'cassette');
SELECT cql($$UPDATE app.subsets SET b = 30 WHERE k = 1 AND c = 3$$, 'cassette');          -- live through b
SELECT cql($$UPDATE app.subsets SET a = 'four' WHERE k = 1 AND c = 4$$, 'cassette');      -- through a
SELECT cql($$UPDATE app.subsets SET l = [4] WHERE k = 1 AND c = 5$$, 'cassette');         -- through a list
SELECT cql($$UPDATE app.subsets SET tags = {'t'} WHERE k = 1 AND c = 7$$, 'cassette');    -- through a set
SELECT cql($$UPDATE app.subsets USING TTL 1 SET a = 'gone' WHERE k = 1 AND c = 6$$, 'cassette');  -- expires
SELECT cql($$UPDATE app.subsets SET s = 'static two' WHERE k = 2$$, 'cassette');          -- static only
SELECT cql($$INSERT INTO app.subsets (k, c, a, b) VALUES (3, 1, 'three', 31) USING TTL 100000$$, 'cassette');
SELECT cql($$UPDATE app.subsets SET b = 71 WHERE k = 7 AND c = 1$$, 'cassette');
SELECT cql($$UPDATE app.subsets SET a = 'seven' WHERE k = 7 AND c = 1$$, 'cassette');
SELECT cql($$DELETE b FROM app.subsets WHERE k = 1 AND c = 3$$, 'cassette');   -- its only cell: the row goes
SELECT cql($$DELETE a FROM app.subsets WHERE k = 1 AND c = 2$$, 'cassette');   -- a tombstone; b keeps the row
SELECT cql($$UPDATE app.subsets SET s = 'static one', b = 12 WHERE k = 1 AND c = 2$$, 'cassette');
SELECT cql($$INSERT INTO app.subsets (k, c, b) VALUES (4, 1, 41)$$, 'cassette');
SELECT cql($$UPDATE app.subsets SET m = m + {'y': 2} WHERE k = 1 AND c = 1$$, 'cassette');
SELECT cql($$INSERT INTO app.subsets (k, c, a) VALUES (5, 1, 'five')$$, 'cassette');
SELECT cql($$UPDATE app.subsets USING TTL 1 SET d = 5.5 WHERE k = 5 AND c = 1$$, 'cassette');  -- marker keeps it
SELECT cql($$UPDATE app.subsets USING TTL 1 SET d = 6.5 WHERE k = 6 AND c = 1$$, 'cassette');
SELECT cql($$UPDATE app.subsets SET b = 61 WHERE k = 6 AND c = 1$$, 'cassette');        -- b outlives d
SELECT cql($$UPDATE app.subsets USING TTL 1 SET b = 81 WHERE k = 8 AND c = 1$$, 'cassette');  -- row expires
SELECT cql($$INSERT INTO app.subsets (k, c, a, b) VALUES (9, 1, 'nine', 91)$$, 'cassette');
SELECT cql($$DELETE FROM app.subsets WHERE k = 9 AND c = 1$$, 'cassette');                -- a deleted row
SELECT pg_sleep(1.5);
-- Every column: the reference.
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM imported.subsets;
SELECT * FROM imported.subsets ORDER BY k, c;

-- One column, and none at all: each row once, the rows live through cells not read included.
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM imported.subsets;
SELECT a FROM imported.subsets ORDER BY a;
SELECT b FROM imported.subsets ORDER BY b;
SELECT d FROM imported.subsets ORDER BY d;
SELECT c FROM imported.subsets ORDER BY c;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM imported.subsets;
SELECT count(*) FROM imported.subsets;
EXPLAIN (VERBOSE, COSTS OFF) SELECT 1 FROM imported.subsets;
SELECT count(*) FROM (SELECT 1 FROM imported.subsets OFFSET 0) s;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(a), max(b) FROM imported.subsets WHERE k = 1;
SELECT count(a), max(b) FROM imported.subsets WHERE k = 1;
SELECT count(*) FROM imported.subsets WHERE k = 1;

-- A filter on a column not selected: PostgreSQL's filter reads it.
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, c FROM imported.subsets WHERE b > 15;
SELECT k, c FROM imported.subsets WHERE b > 15 ORDER BY k, c;
SELECT k, c FROM imported.subsets WHERE a IS NULL ORDER BY k, c;
SELECT a FROM imported.subsets WHERE d IS NOT NULL;
-- Restrictions the engine keeps read their columns (key columns; an index's column).
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM imported.subsets WHERE k = 1 AND c > 1;
SELECT a FROM imported.subsets WHERE k = 1 AND c > 1 ORDER BY a;

-- ORDER BY: a Sort in PostgreSQL reads its column; an order the engine keeps lists it.
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM imported.subsets ORDER BY b, k, c;
SELECT a FROM imported.subsets ORDER BY b, k, c;
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM imported.subsets WHERE k = 1 ORDER BY c DESC;
SELECT a FROM imported.subsets WHERE k = 1 ORDER BY c DESC;
SELECT b FROM imported.subsets WHERE k = 1 ORDER BY c DESC LIMIT 2;

-- Joins: with a native table (a parameterized partition lookup per row, or a hash join) and
-- with itself.
CREATE TABLE subset_labels (k int, label text);
INSERT INTO subset_labels VALUES (1, 'first'), (2, 'second'), (6, 'sixth'), (8, 'eighth');
ANALYZE subset_labels;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT l.label, t.c, t.b FROM subset_labels l JOIN imported.subsets t ON t.k = l.k;
SELECT l.label, t.c, t.b FROM subset_labels l JOIN imported.subsets t ON t.k = l.k ORDER BY 1, 2;
SELECT l.label, t.s FROM subset_labels l LEFT JOIN imported.subsets t ON t.k = l.k AND t.c = 2
 ORDER BY 1;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT l.label, t.c, t.a FROM subset_labels l JOIN imported.subsets t ON t.k = l.k WHERE l.label = 'sixth';
SELECT l.label, t.c, t.a FROM subset_labels l JOIN imported.subsets t ON t.k = l.k WHERE l.label = 'sixth';
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x.k, x.c, y.a FROM imported.subsets x JOIN imported.subsets y ON x.b = y.b + 2;
SELECT x.k, x.c, y.a FROM imported.subsets x JOIN imported.subsets y ON x.b = y.b + 2;
SELECT x.c, x.b, y.c, y.a FROM imported.subsets x JOIN imported.subsets y ON x.k = y.k AND x.c + 1 = y.c
 ORDER BY x.c;

-- Subqueries: IN, EXISTS, scalar, and a derived table.
SELECT k, c, a FROM imported.subsets
 WHERE b IN (SELECT b - 61 FROM imported.subsets WHERE k = 7) OR b = (SELECT min(b) + 2 FROM imported.subsets)
 ORDER BY k, c;
SELECT k, c FROM imported.subsets t WHERE EXISTS (SELECT 1 FROM subset_labels l WHERE l.k = t.k)
 ORDER BY k, c;
SELECT (SELECT max(d) FROM imported.subsets) AS max_d, (SELECT count(*) FROM imported.subsets WHERE s IS NOT NULL) AS with_s;
SELECT * FROM (SELECT k, m FROM imported.subsets WHERE m IS NOT NULL) s;

-- Collections and statics, alone and with others.
EXPLAIN (VERBOSE, COSTS OFF) SELECT l FROM imported.subsets;
SELECT l FROM imported.subsets WHERE l IS NOT NULL ORDER BY k, c;
SELECT m FROM imported.subsets WHERE m IS NOT NULL;
SELECT tags FROM imported.subsets WHERE tags IS NOT NULL ORDER BY k, c;
SELECT count(*) FROM imported.subsets WHERE l IS NULL;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, s FROM imported.subsets;
SELECT k, s FROM imported.subsets ORDER BY k, c;
SELECT k, c FROM imported.subsets WHERE s = 'static one' ORDER BY k, c;

-- Every column alone, some pairs and no column, on every filter above: the same values as the
-- same columns of whole rows (a whole-row reference reads every column: no values(...)).
CREATE VIEW subsets_whole AS SELECT (r).* FROM (SELECT t AS r FROM imported.subsets t OFFSET 0) w;
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM subsets_whole;
CREATE FUNCTION subset_mismatches(cols text, cond text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((SELECT %1$s FROM imported.subsets %2$s
                    EXCEPT ALL SELECT %1$s FROM subsets_whole %2$s)
                   UNION ALL (SELECT %1$s FROM subsets_whole %2$s
                    EXCEPT ALL SELECT %1$s FROM imported.subsets %2$s)) d', cols, cond) INTO n;
  RETURN n;
END $$;
CREATE TABLE subset_shapes AS
SELECT cols, cond FROM
  (VALUES ('k'), ('c'), ('s'), ('a'), ('b'), ('d'), ('l'), ('m'), ('tags'), ('a, b'), ('s, l'),
          ('k, m'), ('d, tags'), ('1')) AS x(cols),
  (VALUES (''), ('WHERE k = 1'), ('WHERE k = 1 AND c > 1'), ('WHERE b > 15'), ('WHERE a = ''two'''),
          ('WHERE a IS NULL'), ('WHERE s = ''static one'''), ('WHERE k IN (1, 7) AND b >= 12'),
          ('WHERE d IS NULL'), ('WHERE l IS NOT NULL')) AS y(cond);
SELECT count(*) AS shapes FROM subset_shapes;
SELECT cols, cond, subset_mismatches(cols, cond) FROM subset_shapes
 WHERE subset_mismatches(cols, cond) <> 0;

-- A foreign table declaring some of the CQL columns reads only those.
CREATE FOREIGN TABLE subsets_narrow (k int, c int, a text) SERVER cassette OPTIONS (table 'app.subsets');
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM subsets_narrow;
SELECT * FROM subsets_narrow ORDER BY k, c;

-- UPDATE: PostgreSQL builds the new row from the whole old row (subsets.* below), so every column
-- is read; the columns it does not set keep their values and write times.
EXPLAIN (VERBOSE, COSTS OFF) UPDATE imported.subsets SET b = b + 100 WHERE a = 'one';
SELECT cql('SELECT writetime(a) FROM app.subsets WHERE k = 1 AND c = 1', 'cassette')::jsonb -> 0 ->> 'writetime(a)'
  AS before \gset
UPDATE imported.subsets SET b = b + 100 WHERE a = 'one';
UPDATE imported.subsets SET a = 'four!' WHERE c = 4;
SELECT :'before' ~ '^[0-9]{16}$' AS has_writetime,
       cql('SELECT writetime(a) FROM app.subsets WHERE k = 1 AND c = 1', 'cassette')::jsonb -> 0 ->> 'writetime(a)'
         = :'before' AS a_kept;
SELECT * FROM imported.subsets WHERE k = 1 AND c IN (1, 4) ORDER BY c;
-- With RETURNING (or row triggers) the whole row travels: every column is read.
EXPLAIN (VERBOSE, COSTS OFF) UPDATE imported.subsets SET d = 2.5 WHERE k = 1 AND c = 1 RETURNING a;
UPDATE imported.subsets SET d = 2.5 WHERE k = 1 AND c = 1 RETURNING a, d, l;

-- DELETE: by a column not returned; RETURNING the old row, which is read whole.
EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM imported.subsets WHERE b = 41;
EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM imported.subsets WHERE b = 41 RETURNING a;
DELETE FROM imported.subsets WHERE b = 41 RETURNING *;
DELETE FROM imported.subsets WHERE a = 'five' RETURNING k, c, d;
SELECT k, c FROM imported.subsets WHERE k IN (4, 5);

-- A row lock copies the whole row (ROW_MARK_COPY): every column.
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM imported.subsets WHERE k = 7 FOR UPDATE;
BEGIN;
SELECT a FROM imported.subsets WHERE k = 7 FOR UPDATE;
COMMIT;

-- After the writes, every shape again.
SELECT cols, cond, subset_mismatches(cols, cond) FROM subset_shapes
 WHERE subset_mismatches(cols, cond) <> 0;

-- Counters: a counter read alone, with the others' cells unread.
SELECT cql('CREATE TABLE app.subset_counts (k int PRIMARY KEY, hits counter, misses counter)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (subset_counts) FROM SERVER cassette INTO imported;
SELECT cql('UPDATE app.subset_counts SET hits = hits + 5, misses = misses + 1 WHERE k = 1', 'cassette');
SELECT cql('UPDATE app.subset_counts SET misses = misses + 2 WHERE k = 2', 'cassette');
EXPLAIN (VERBOSE, COSTS OFF) SELECT hits FROM imported.subset_counts;
SELECT k, hits FROM imported.subset_counts ORDER BY k;
SELECT misses FROM imported.subset_counts ORDER BY k;
SELECT sum(hits), count(misses) FROM imported.subset_counts;
SELECT count(*) FROM imported.subset_counts;

DROP FUNCTION subset_mismatches(text, text);
DROP VIEW subsets_whole;
DROP TABLE subset_shapes, subset_labels;
DROP FOREIGN TABLE subsets_narrow, imported.subsets, imported.subset_counts;
SELECT cql('DROP TABLE app.subsets', 'cassette');
SELECT cql('DROP TABLE app.subset_counts', 'cassette');
