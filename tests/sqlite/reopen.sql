-- Reopening the database and loading the extension brings every table back, with its data;
-- the virtual table definitions live in sqlite_schema as usual.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE a USING cql(k int PRIMARY KEY, v text);
CREATE VIRTUAL TABLE b USING cql(k int, c int, v text, PRIMARY KEY (k, c), CLUSTERING ORDER BY (c DESC), keyspace = 'other');
CREATE VIRTUAL TABLE elsewhere USING cql(k int PRIMARY KEY, v text, store = 'elsewhere.cassette');
SELECT cql('CREATE TABLE main.plain (k int PRIMARY KEY, v text)') AS result;
CREATE VIRTUAL TABLE exposed USING cql(table = 'main.plain');
CREATE TABLE native (k INTEGER PRIMARY KEY, v TEXT);
INSERT INTO a VALUES (1, 'a1'), (2, 'a2');
INSERT INTO b VALUES (1, 1, 'b11'), (1, 2, 'b12');
INSERT INTO elsewhere VALUES (1, 'e1');
INSERT INTO exposed VALUES (1, 'p1');
INSERT INTO native VALUES (1, 'n1');
.open test.db
.print '== reopened without the extension: the virtual tables cannot be read'
SELECT * FROM a;
.load ./cassette
.print '== after .load: every table and every row is back'
SELECT name, sql FROM sqlite_schema ORDER BY name;
SELECT * FROM a ORDER BY k;
SELECT * FROM b;
SELECT * FROM elsewhere;
SELECT * FROM exposed;
SELECT * FROM native;
.print '== writes after reopening'
INSERT INTO b VALUES (1, 3, 'b13');
.open test.db
.load ./cassette
SELECT * FROM b WHERE k = 1 LIMIT 1;
.print '== a second database file has its own store'
.open second.db
.load ./cassette
CREATE VIRTUAL TABLE a USING cql(k int PRIMARY KEY, v text);
SELECT count(*) AS rows_in_second FROM a;
.shell ls -d *.cassette
