-- Inside one transaction, statements that read CQL tables while writing a CQL table
-- (INSERT ... SELECT with a join) see every earlier write of the transaction, the rows a
-- statement writes itself only after it, and nothing a ROLLBACK TO undid. The transaction's
-- view is kept up to date as writes arrive (not rebuilt per read), so a join over thousands of
-- pending rows is as cheap as over committed ones.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE src USING cql(k int PRIMARY KEY, v text);
CREATE VIRTUAL TABLE dim USING cql(k int PRIMARY KEY, label text);
CREATE VIRTUAL TABLE dst USING cql(k int, c int, v text, label text, PRIMARY KEY (k, c));
INSERT INTO src (k, v) VALUES (1, 'a'), (2, 'b'), (3, 'c');
INSERT INTO dim (k, label) VALUES (1, 'one');
BEGIN;
INSERT INTO src (k, v) VALUES (4, 'd'), (5, 'e');
INSERT INTO dim (k, label) VALUES (2, 'two'), (4, 'four'), (5, 'five'), (6, 'six');
.print '== a pending row written again, and a committed row deleted, before the join'
UPDATE src SET v = 'D' WHERE k = 4;
DELETE FROM src WHERE k = 3;
UPDATE dim SET label = 'ONE' WHERE k = 1;
INSERT INTO dst (k, c, v, label) SELECT s.k, 1, s.v, d.label FROM src s JOIN dim d ON d.k = s.k;
SELECT k, c, v, label FROM dst ORDER BY k, c;
.print '== reading the table being written: only the rows written before the statement'
INSERT INTO dst (k, c, v, label) SELECT k, c + 10, v || '+', label FROM dst;
SELECT k, c, v, label FROM dst ORDER BY k, c;
.print '== ROLLBACK TO undoes the rows after the savepoint, and later joins do not see them'
SAVEPOINT s1;
INSERT INTO dim (k, label) VALUES (3, 'three');
INSERT INTO src (k, v) VALUES (3, 'c again');
INSERT INTO dst (k, c, v, label) SELECT s.k, 2, s.v, d.label FROM src s JOIN dim d ON d.k = s.k WHERE s.k = 3;
SELECT k, c, v, label FROM dst WHERE k = 3;
ROLLBACK TO s1;
RELEASE s1;
SELECT k, c, v, label FROM dst WHERE k = 3;
INSERT INTO dst (k, c, v, label) SELECT s.k, 3, s.v, d.label FROM src s LEFT JOIN dim d ON d.k = s.k;
SELECT k, c, v, label FROM dst WHERE c = 3 ORDER BY k;
.print '== a thousand pending rows joined with a thousand pending rows'
INSERT INTO src (k, v) WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 1099) SELECT i, 'v' || i FROM n;
INSERT INTO dim (k, label) WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 2 FROM n WHERE i < 1098) SELECT i, 'l' || i FROM n;
INSERT INTO dst (k, c, v, label) SELECT s.k, 4, s.v, d.label FROM src s JOIN dim d ON d.k = s.k WHERE s.k >= 100;
SELECT count(*), sum(k), min(k), max(k), sum(length(v)), sum(substr(label, 2) = substr(v, 2)) FROM dst WHERE c = 4;
COMMIT;
.print '== after COMMIT, from another process'
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT k, c, v, label FROM main.dst WHERE k IN (1, 2, 3, 4, 5)"
SELECT count(*), count(DISTINCT k) FROM dst;
SELECT k, v FROM src WHERE k < 100 ORDER BY k;
