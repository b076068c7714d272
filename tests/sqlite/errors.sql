-- Each kind of bad input fails its statement with a clear message and writes nothing.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k text, c int, v int, l list<int>, s set<text>, m map<text, int>, PRIMARY KEY (k, c));
INSERT INTO t (k, c, v) VALUES ('a', 1, 1);
.print '== NULL partition key'
INSERT INTO t (k, c, v) VALUES (NULL, 1, 1);
.print '== NULL clustering key'
INSERT INTO t (k, c, v) VALUES ('b', NULL, 1);
.print '== a key of more than 65535 bytes'
INSERT INTO t (k, c, v) VALUES (hex(zeroblob(32768)), 1, 1);
.print '== a key of exactly 65535 bytes is fine'
INSERT INTO t (k, c, v) VALUES (substr(hex(zeroblob(32768)), 1, 65535), 1, 1);
SELECT length(k) AS key_length, c, v FROM t WHERE length(k) > 100;
DELETE FROM t WHERE length(k) > 100;
.print '== wrong types'
INSERT INTO t (k, c, v) VALUES ('b', 'one', 1);
INSERT INTO t (k, c, v) VALUES ('b', 1, 'one');
INSERT INTO t (k, c, v) VALUES ('b', 1, 1.5);
INSERT INTO t (k, c, v) VALUES ('b', 1, 4294967296);
INSERT INTO t (k, c, v) VALUES ('b', 1, x'00');
INSERT INTO t (k, c, v) VALUES (x'ff', 1, 1);
.print '== malformed collection JSON'
INSERT INTO t (k, c, l) VALUES ('b', 1, '[1, 2');
INSERT INTO t (k, c, l) VALUES ('b', 1, '["x"]');
INSERT INTO t (k, c, s) VALUES ('b', 1, '{"a": 1}');
INSERT INTO t (k, c, m) VALUES ('b', 1, '{"a": "x"}');
INSERT INTO t (k, c, m) VALUES ('b', 1, 'not json');
.print '== the same bad values in an UPDATE'
UPDATE t SET v = 'one' WHERE k = 'a' AND c = 1;
UPDATE t SET l = '[1,' WHERE k = 'a' AND c = 1;
.print '== a bad row in the middle of INSERT ... SELECT writes no row of it'
INSERT INTO t (k, c, v) SELECT 'b', value, CASE value WHEN 3 THEN 'bad' ELSE value END FROM json_each('[1,2,3,4]');
.print '== nothing was written: only the first row is there'
SELECT k, c, v, l, s, m FROM t;
SELECT cql('SELECT k, c, v FROM main.t') AS cql_rows_of_t;
.print '== a value for a read-only hidden column is ignored'
INSERT INTO t (k, c, v, writetime_v, ttl_v, token) VALUES ('b', 1, 1, 5, 6, 7);
SELECT k, writetime_v <> 5 AS writetime_not_5, ttl_v, token <> 7 AS token_not_7 FROM t WHERE k = 'b';
DELETE FROM t WHERE k = 'b';
.print "== CQL errors from cql() and cql_rows() carry Cassandra's message"
SELECT cql('SELECT * FROM main.nosuchtable');
SELECT * FROM cql_rows('SELECT * FROM main.t WHERE v = 1');
.print '== bad CREATE VIRTUAL TABLE arguments'
CREATE VIRTUAL TABLE bad1 USING cql(k int, v int);
CREATE VIRTUAL TABLE bad2 USING cql(k nosuchtype PRIMARY KEY);
CREATE VIRTUAL TABLE bad3 USING cql(table='main.nosuchtable');
CREATE VIRTUAL TABLE bad4 USING cql(k int PRIMARY KEY, nosuchoption = 1);
CREATE VIRTUAL TABLE bad5 USING cql(k int PRIMARY KEY, keyspace = 'system');
SELECT name FROM sqlite_schema WHERE name LIKE 'bad%';
SELECT cql('DESCRIBE TABLES') AS cql_tables;
.print '== still exactly the first row'
SELECT k, c, v FROM t;
