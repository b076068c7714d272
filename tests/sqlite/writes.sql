-- INSERT is an upsert; INSERT OR IGNORE / ON CONFLICT DO NOTHING are IF NOT EXISTS; UPDATE and
-- DELETE by key and by any WHERE.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE kv USING cql(k int, c int, v text, w int, PRIMARY KEY (k, c));
.print '== INSERT is an upsert: the second write wins, no constraint error'
INSERT INTO kv (k, c, v, w) VALUES (1, 1, 'one', 10);
INSERT INTO kv (k, c, v, w) VALUES (1, 1, 'uno', 11);
INSERT INTO kv VALUES (1, 2, 'two', 20), (2, 1, 'deux', 21);
INSERT OR REPLACE INTO kv VALUES (2, 2, 'zwei', 22);
SELECT k, c, v, w FROM kv ORDER BY k, c;
.print '== INSERT OR IGNORE: IF NOT EXISTS, an existing row is kept'
INSERT OR IGNORE INTO kv VALUES (1, 1, 'ignored', 0);
INSERT OR IGNORE INTO kv VALUES (3, 1, 'trois', 31);
SELECT k, c, v, w FROM kv WHERE k IN (1, 3) ORDER BY k, c;
.print '== ON CONFLICT DO NOTHING: the same'
INSERT INTO kv VALUES (2, 1, 'ignored', 0) ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES (3, 2, 'drei', 32) ON CONFLICT DO NOTHING;
SELECT k, c, v, w FROM kv WHERE k IN (2, 3) ORDER BY k, c;
.print '== changes() counts each row written'
INSERT INTO kv VALUES (4, 1, 'a', 1), (4, 2, 'b', 2), (4, 3, 'c', 3);
SELECT changes() AS changes;
.print '== UPDATE by primary key changes only the named column'
UPDATE kv SET v = 'ONE' WHERE k = 1 AND c = 1;
SELECT k, c, v, w FROM kv WHERE k = 1 ORDER BY c;
.print '== UPDATE by a non-key WHERE: SQLite scans, each matching row is updated'
UPDATE kv SET w = w * 100 WHERE v LIKE 'd%';
SELECT k, c, v, w FROM kv WHERE v LIKE 'd%' ORDER BY k, c;
.print '== UPDATE of a whole partition'
UPDATE kv SET v = upper(v) WHERE k = 4;
SELECT k, c, v, w FROM kv WHERE k = 4;
.print '== UPDATE setting a column to NULL deletes that cell'
UPDATE kv SET w = NULL WHERE k = 4 AND c = 2;
SELECT k, c, v, w FROM kv WHERE k = 4;
.print '== DELETE by primary key'
DELETE FROM kv WHERE k = 4 AND c = 1;
SELECT k, c, v, w FROM kv WHERE k = 4;
.print '== DELETE a partition'
DELETE FROM kv WHERE k = 3;
SELECT count(*) AS rows_in_3 FROM kv WHERE k = 3;
.print '== DELETE by any WHERE'
DELETE FROM kv WHERE w > 1000;
SELECT k, c, v, w FROM kv ORDER BY k, c;
.print '== the same rows through CQL'
SELECT json FROM cql_rows('SELECT k, c, v, w FROM main.kv');
.print '== DELETE everything'
DELETE FROM kv;
SELECT count(*) AS rows_left FROM kv;
