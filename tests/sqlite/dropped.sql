-- A CQL table dropped behind a virtual table's back (through cql(), another connection or
-- process): reads and writes fail with Cassandra's message, DROP TABLE still removes the
-- virtual table, also after reopening the database.
.bail off
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text);
CREATE VIRTUAL TABLE alias USING cql(table = 'main.t');
CREATE VIRTUAL TABLE gone_later USING cql(k int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a');
SELECT * FROM alias;
SELECT cql('DROP TABLE main.t');
.print '== in the same connection'
SELECT * FROM t;
INSERT INTO t VALUES (2, 'b');
SELECT * FROM alias;
DELETE FROM alias;
DROP TABLE alias;
.print '== after reopening'
SELECT cql('DROP TABLE main.gone_later');
.open test.db
.load ./cassette
SELECT * FROM t;
SELECT v FROM gone_later;
INSERT INTO t VALUES (3, 'c');
DROP TABLE t;
DROP TABLE gone_later;
SELECT name FROM sqlite_schema;
.print '== a table of the same name created again is not the dropped one'
CREATE VIRTUAL TABLE again USING cql(k int PRIMARY KEY, v text);
INSERT INTO again VALUES (1, 'old');
SELECT cql('DROP TABLE main.again');
SELECT cql('CREATE TABLE main.again (k int PRIMARY KEY, v text)');
INSERT INTO again VALUES (2, 'into the new table?');
SELECT cql('SELECT * FROM main.again');
