-- CQL schema changes made through cql() (or by another process) after a virtual table was
-- connected: SQLite fixes a virtual table's columns when it connects, so an added column appears
-- after reopening; a dropped column reads as NULL at once and refuses values; a dropped table
-- makes every use an error, and DROP TABLE still removes the virtual table (also after reopening).
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text, x int);
INSERT INTO t VALUES (1, 'a', 7);
.print '== ALTER TABLE ... ADD: the virtual table keeps its columns; writes leave the new one alone'
SELECT cql('ALTER TABLE main.t ADD w int') AS result;
SELECT cql('UPDATE main.t SET w = 100 WHERE k = 1') AS result;
INSERT INTO t VALUES (1, 'a2', 8);
SELECT * FROM t;
SELECT cql('SELECT k, v, w, x FROM main.t') AS result;
.print '== ALTER TABLE ... DROP: the column reads as NULL (its writetime and ttl too)'
SELECT cql('ALTER TABLE main.t DROP v') AS result;
SELECT k, v, x, writetime_v, ttl_v, writetime_x IS NOT NULL AS has_writetime_x FROM t;
.print '== only NULL fits a dropped column'
INSERT INTO t VALUES (2, NULL, 9);
INSERT INTO t VALUES (3, 'c', 9);
UPDATE t SET v = 'z' WHERE k = 1;
UPDATE t SET x = 70 WHERE k = 1;
SELECT * FROM t ORDER BY k;
.print '== after reopening, the virtual table has the CQL table columns'
.open test.db
.load ./cassette
SELECT * FROM t ORDER BY k;
.print '== DROP TABLE through cql(): every use is an error'
SELECT cql('DROP TABLE main.t') AS result;
SELECT * FROM t;
INSERT INTO t VALUES (4, 1, 2);
.print '== and after reopening too, but DROP TABLE removes the virtual table'
.open test.db
.load ./cassette
SELECT * FROM t;
DROP TABLE t;
SELECT count(*) AS tables FROM sqlite_schema;
