-- cql() inside a SQL transaction joins it: its writes are seen by the transaction's later SQL
-- and cql() statements, dropped by ROLLBACK and ROLLBACK TO, and committed with the SQL writes
-- in one store transaction (one commit-log record, one timestamp) by COMMIT. Its reads see the
-- transaction's writes. Outside a transaction each cql() statement commits on its own.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(a int, b int, v text, PRIMARY KEY (a, b));
.print '== ROLLBACK drops a cql() INSERT'
BEGIN;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (1, 1, ''x'')') AS r;
SELECT a, b, v FROM t;
ROLLBACK;
SELECT count(*) AS after_rollback FROM t;
.print '== cql() SELECT sees the SQL INSERT; SQL SELECT sees the cql() INSERT'
BEGIN;
INSERT INTO t VALUES (2, 2, 'y');
SELECT cql('SELECT * FROM main.t') AS seen_by_cql;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (3, 3, ''z'')') AS r;
SELECT a, b, v FROM t ORDER BY a;
SELECT cql('SELECT count(*) FROM main.t') AS counted_by_cql;
ROLLBACK;
SELECT count(*) AS after_rollback FROM t;
.print '== COMMIT keeps the cql() write with the SQL writes, at one timestamp (one record)'
BEGIN;
INSERT INTO t VALUES (4, 1, 'sql');
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (4, 2, ''cql'')') AS r;
UPDATE t SET v = 'sql+' WHERE a = 4 AND b = 1;
SELECT cql('UPDATE main.t SET v = ''cql+'' WHERE a = 4 AND b = 2') AS r;
COMMIT;
SELECT a, b, v FROM t ORDER BY a, b;
SELECT count(DISTINCT writetime_v) AS timestamps FROM t WHERE a = 4;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (4, 3, ''autocommit'')') AS r;
SELECT count(DISTINCT writetime_v) AS timestamps FROM t WHERE a = 4;
.print '== ROLLBACK TO a savepoint drops the cql() writes made after it'
BEGIN;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (5, 1, ''before'')') AS r;
SAVEPOINT sp;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (5, 2, ''after'')') AS r;
SELECT cql('DELETE FROM main.t WHERE a = 5 AND b = 1') AS r;
SELECT a, b, v FROM t WHERE a = 5;
ROLLBACK TO sp;
SELECT a, b, v FROM t WHERE a = 5;
SELECT cql('SELECT b, v FROM main.t WHERE a = 5') AS seen_by_cql;
COMMIT;
SELECT a, b, v FROM t WHERE a = 5;
.print '== a savepoint opened before cql() first wrote: ROLLBACK TO drops everything after it'
BEGIN;
SAVEPOINT first;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (6, 1, ''gone'')') AS r;
ROLLBACK TO first;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (6, 2, ''kept'')') AS r;
COMMIT;
SELECT a, b, v FROM t WHERE a = 6;
.print '== BATCH, range DELETE, partition DELETE inside a transaction'
BEGIN;
SELECT cql('BEGIN BATCH INSERT INTO main.t (a, b, v) VALUES (7, 1, ''b1''); INSERT INTO main.t (a, b, v) VALUES (7, 2, ''b2''); INSERT INTO main.t (a, b, v) VALUES (7, 3, ''b3''); INSERT INTO main.t (a, b, v) VALUES (8, 1, ''p''); APPLY BATCH') AS r;
SELECT a, b, v FROM t WHERE a IN (7, 8) ORDER BY a, b;
SELECT cql('DELETE FROM main.t WHERE a = 7 AND b >= 2') AS r;
SELECT cql('DELETE FROM main.t WHERE a = 4') AS r;
SELECT a, b, v FROM t WHERE a IN (4, 7, 8) ORDER BY a, b;
ROLLBACK;
SELECT a, b, v FROM t WHERE a IN (4, 7, 8) ORDER BY a, b;
BEGIN;
SELECT cql('BEGIN BATCH INSERT INTO main.t (a, b, v) VALUES (7, 1, ''b1''); INSERT INTO main.t (a, b, v) VALUES (7, 2, ''b2''); INSERT INTO main.t (a, b, v) VALUES (7, 3, ''b3''); APPLY BATCH') AS r;
SELECT cql('DELETE FROM main.t WHERE a = 7 AND b >= 2') AS r;
SELECT cql('DELETE FROM main.t WHERE a = 4') AS r;
COMMIT;
SELECT a, b, v FROM t WHERE a IN (4, 7) ORDER BY a, b;
.print '== TTL and USING TIMESTAMP inside a transaction'
BEGIN;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (9, 1, ''ttl'') USING TTL 3600') AS r;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (9, 2, ''stamped'') USING TIMESTAMP 1234') AS r;
SELECT b, v, ttl_v BETWEEN 3590 AND 3600 AS has_ttl, writetime_v = 1234 AS stamped FROM t WHERE a = 9;
COMMIT;
SELECT b, v, ttl_v BETWEEN 3590 AND 3600 AS has_ttl, writetime_v = 1234 AS stamped FROM t WHERE a = 9;
SELECT cql('SELECT b, writetime(v) FROM main.t WHERE a = 9 AND b = 2') AS r;
.print '== counters: increments inside a transaction add up, and add to the committed count'
SELECT cql('CREATE TABLE main.hits (page text PRIMARY KEY, n counter)') AS r;
SELECT cql('UPDATE main.hits SET n = n + 10 WHERE page = ''home''') AS r;
BEGIN;
SELECT cql('UPDATE main.hits SET n = n + 1 WHERE page = ''home''') AS r;
SELECT cql('UPDATE main.hits SET n = n + 2 WHERE page = ''home''') AS r;
SELECT cql('SELECT n FROM main.hits WHERE page = ''home''') AS in_transaction;
ROLLBACK;
SELECT cql('SELECT n FROM main.hits WHERE page = ''home''') AS after_rollback;
BEGIN;
SELECT cql('UPDATE main.hits SET n = n + 1 WHERE page = ''home''') AS r;
SELECT cql('UPDATE main.hits SET n = n + 2 WHERE page = ''home''') AS r;
COMMIT;
SELECT cql('SELECT n FROM main.hits WHERE page = ''home''') AS after_commit;
.print '== collections: elements added by two statements of a transaction both arrive'
SELECT cql('CREATE TABLE main.bags (k int PRIMARY KEY, s set<text>, l list<int>)') AS r;
BEGIN;
SELECT cql('UPDATE main.bags SET s = s + {''a''}, l = l + [1] WHERE k = 1') AS r;
SELECT cql('UPDATE main.bags SET s = s + {''b''}, l = l + [2] WHERE k = 1') AS r;
SELECT cql('SELECT s, l FROM main.bags WHERE k = 1') AS in_transaction;
COMMIT;
SELECT cql('SELECT s, l FROM main.bags WHERE k = 1') AS after_commit;
.print '== a failing cql() statement leaves the transaction and its earlier writes'
BEGIN;
INSERT INTO t VALUES (10, 1, 'sql');
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (10, 2, ''cql'')') AS r;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (10, ''not an int'', ''bad'')') AS r;
SELECT cql('INSERT INTO main.nope (a) VALUES (1)') AS r;
SELECT cql('BEGIN BATCH INSERT INTO main.t (a, b, v) VALUES (10, 3, ''batch''); INSERT INTO main.t (a, b, v) VALUES (10, ''x'', ''bad''); APPLY BATCH') AS r;
SELECT a, b, v FROM t WHERE a = 10;
COMMIT;
SELECT a, b, v FROM t WHERE a = 10;
.print '== conditional statements and schema changes are refused inside a transaction'
BEGIN;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (11, 1, ''lwt'') IF NOT EXISTS') AS r;
SELECT cql('UPDATE main.t SET v = ''lwt'' WHERE a = 4 AND b = 1 IF v = ''sql+''') AS r;
SELECT cql('BEGIN BATCH INSERT INTO main.t (a, b, v) VALUES (11, 1, ''lwt'') IF NOT EXISTS; APPLY BATCH') AS r;
SELECT cql('CREATE TABLE main.later (k int PRIMARY KEY)') AS r;
SELECT cql('ALTER TABLE main.t ADD w text') AS r;
SELECT cql('TRUNCATE main.t') AS r;
SELECT cql('DROP TABLE main.hits') AS r;
SELECT cql('SELECT count(*) FROM main.t') AS still_readable;
COMMIT;
SELECT cql('SELECT * FROM main.later') AS r;
SELECT count(*) AS rows FROM t WHERE a = 11;
.print '== outside a transaction, conditional statements run as before'
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (11, 1, ''lwt'') IF NOT EXISTS') AS r;
SELECT cql('INSERT INTO main.t (a, b, v) VALUES (11, 1, ''again'') IF NOT EXISTS') AS r;
.print '== cql_rows reads through the transaction too'
BEGIN;
INSERT INTO t VALUES (12, 1, 'rows');
SELECT json ->> 'v' AS v FROM cql_rows('SELECT v FROM main.t WHERE a = 12');
ROLLBACK;
SELECT count(*) AS after_rollback FROM cql_rows('SELECT v FROM main.t WHERE a = 12');
