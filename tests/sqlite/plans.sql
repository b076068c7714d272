-- EXPLAIN QUERY PLAN proves each pushdown (the plan text after "INDEX n:" is what the store
-- does), and each query also runs to show its rows are right.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE events USING cql(source text, hour int, ts bigint, kind text, payload text, PRIMARY KEY ((source, hour), ts), CLUSTERING ORDER BY (ts DESC));
INSERT INTO events (source, hour, ts, kind, payload)
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
SELECT 'src' || (i % 4), i % 5, i, CASE i % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' ELSE 'c' END, 'p' || i FROM n;
.print '== partition key equality'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1;
.print '== only part of the partition key: a scan SQLite filters'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1';
SELECT count(*) AS n FROM events WHERE source = 'src1';
.print '== partition key IN'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour IN (1, 3);
SELECT ts FROM events WHERE source = 'src1' AND hour IN (1, 3) ORDER BY ts;
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source IN ('src0', 'src2') AND hour IN (0, 2);
SELECT count(*) AS n FROM events WHERE source IN ('src0', 'src2') AND hour IN (0, 2);
.print '== clustering slices'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts < 100;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts < 100;
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts >= 41 AND ts <= 121;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts >= 41 AND ts <= 121;
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts > 41 AND ts < 121;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts > 41 AND ts < 121;
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts = 61;
SELECT ts, payload FROM events WHERE source = 'src1' AND hour = 1 AND ts = 61;
.print '== ORDER BY in clustering order (DESC here) and fully reversed: no sort'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts DESC;
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts;
.print '== ORDER BY another column: SQLite sorts'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY payload;
.print '== LIMIT and OFFSET'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts DESC LIMIT 3;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts DESC LIMIT 3;
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts LIMIT 2 OFFSET 3;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 ORDER BY ts LIMIT 2 OFFSET 3;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts < 150 ORDER BY ts DESC LIMIT 2 OFFSET 1;
.print '-- LIMIT with a WHERE the store cannot check stays with SQLite'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND kind = 'a' LIMIT 2;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND kind = 'a' LIMIT 2;
.print '-- ... and so with LIKE, which the store does not take'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND payload LIKE 'p4%' ORDER BY ts DESC LIMIT 2;
SELECT ts, payload FROM events WHERE source = 'src1' AND hour = 1 AND payload LIKE 'p4%' ORDER BY ts DESC LIMIT 2;
.print '-- and with >= or <=: SQLite passes a row-value comparison (a, b) < (x, y) as a <= x, then re-checks it'
EXPLAIN QUERY PLAN SELECT ts, kind FROM events WHERE source = 'src1' AND hour = 1 AND (ts, kind) < (121, 'b') ORDER BY ts DESC LIMIT 2 OFFSET 1;
SELECT ts, kind FROM events WHERE source = 'src1' AND hour = 1 AND (ts, kind) < (121, 'b') ORDER BY ts DESC LIMIT 2 OFFSET 1;
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND ts <= 121 ORDER BY ts DESC LIMIT 2 OFFSET 1;
.print "== the issue's slice: WHERE source = ? AND hour = ? ORDER BY ts DESC LIMIT 50"
EXPLAIN QUERY PLAN SELECT * FROM events WHERE source = 'src2' AND hour = 2 ORDER BY ts DESC LIMIT 50;
SELECT count(*) AS n, max(ts) AS newest FROM (SELECT * FROM events WHERE source = 'src2' AND hour = 2 ORDER BY ts DESC LIMIT 50);
.print '== token ranges'
EXPLAIN QUERY PLAN SELECT source, hour FROM events WHERE token >= 0 AND token < 4611686018427387904;
SELECT count(*) AS in_range FROM events WHERE token >= 0 AND token < 4611686018427387904;
SELECT count(*) AS by_sqlite_filter FROM events WHERE +token >= 0 AND +token < 4611686018427387904;
SELECT cql('SELECT count(*) AS by_cql FROM main.events WHERE token(source, hour) >= 0 AND token(source, hour) < 4611686018427387904') AS result;
EXPLAIN QUERY PLAN SELECT count(*) FROM events WHERE +token >= 0 AND +token < 4611686018427387904;
.print '== a full scan, and a scan ordered by token'
EXPLAIN QUERY PLAN SELECT count(*) FROM events;
EXPLAIN QUERY PLAN SELECT token FROM events ORDER BY token;
.print '== an indexed column'
SELECT cql('CREATE INDEX events_kind ON main.events (kind)') AS result;
.print '-- (reconnect, so that the virtual table sees the new index)'
.open test.db
.load ./cassette
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE kind = 'b';
SELECT count(*) AS kind_b FROM events WHERE kind = 'b';
.print '-- the partition key still wins over the index'
EXPLAIN QUERY PLAN SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND kind = 'b';
SELECT ts FROM events WHERE source = 'src1' AND hour = 1 AND kind = 'b';
.print '== a join from a native table into the CQL table reads partitions, not scans'
CREATE TABLE wanted (source TEXT, hour INTEGER);
INSERT INTO wanted VALUES ('src0', 0), ('src3', 3), ('src9', 9);
EXPLAIN QUERY PLAN SELECT w.source, w.hour, e.ts FROM wanted AS w JOIN events AS e ON e.source = w.source AND e.hour = w.hour;
SELECT w.source, w.hour, count(e.ts) AS n, max(e.ts) AS newest FROM wanted AS w LEFT JOIN events AS e ON e.source = w.source AND e.hour = w.hour GROUP BY w.source, w.hour ORDER BY w.source;
.print '-- also with a LIMIT per partition through a correlated subquery'
EXPLAIN QUERY PLAN SELECT w.source, (SELECT max(ts) FROM events AS e WHERE e.source = w.source AND e.hour = w.hour) FROM wanted AS w;
