-- CQL schema changes made through cql() (or by another process) after a virtual table was
-- connected. The virtual table declares the CQL table's columns again from the next statement
-- on: an added column appears, a dropped one disappears. Where SQLite's schema cannot be made
-- to reload (SQLITE_DBCONFIG_DEFENSIVE here; a read-only connection) the columns stay as they
-- were connected: an added column appears after reopening, a dropped one reads as NULL and
-- refuses values. A dropped table makes every use an error, and DROP TABLE still removes the
-- virtual table (also after reopening).
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text, x int);
INSERT INTO t VALUES (1, 'a', 7);
.print '== ALTER TABLE ... ADD: the next statement sees the new column'
SELECT cql('ALTER TABLE main.t ADD w int') AS result;
INSERT INTO t VALUES (2, 'b', 8, 200);
SELECT name, type FROM pragma_table_info('t');
SELECT * FROM t ORDER BY k;
SELECT cql('SELECT k, v, w, x FROM main.t') AS result;
.print '== ALTER TABLE ... DROP: the column is gone from the next statement on'
SELECT cql('ALTER TABLE main.t DROP w') AS result;
SELECT * FROM t ORDER BY k;
SELECT w FROM t;
.print '== defensive mode: SQLite keeps the columns it has; an added one appears after reopening'
.dbconfig defensive on
SELECT cql('ALTER TABLE main.t ADD y int') AS result;
SELECT * FROM t ORDER BY k;
.print '== and a dropped column reads as NULL (its writetime and ttl too)'
SELECT cql('ALTER TABLE main.t DROP v') AS result;
SELECT k, v, x, writetime_v, ttl_v, writetime_x IS NOT NULL AS has_writetime_x FROM t ORDER BY k;
.print '== only NULL fits a dropped column'
INSERT INTO t VALUES (3, NULL, 9);
INSERT INTO t VALUES (4, 'c', 9);
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
