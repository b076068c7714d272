-- CREATE VIRTUAL TABLE and DROP TABLE of cql tables follow the SQL transaction: they take
-- effect in the store when it commits (with the transaction's rows, in one store transaction),
-- or not at all: ROLLBACK, ROLLBACK TO a savepoint opened before them, a failed commit, or a
-- connection closed with the transaction open leave the store as it was. What another process
-- (`cassette`) sees shows what reached the store.
.bail off
.headers on
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
.print '== DROP TABLE, ROLLBACK: the table and its rows are intact and readable'
BEGIN;
DROP TABLE t;
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT k, v FROM main.t"
ROLLBACK;
SELECT k, v FROM t;
SELECT cql('SELECT k, v FROM main.t') AS t;
.print '== DROP TABLE, COMMIT: gone'
CREATE VIRTUAL TABLE d USING cql(k int PRIMARY KEY, v text);
INSERT INTO d VALUES (1, 'x');
BEGIN;
DROP TABLE d;
COMMIT;
SELECT cql('SELECT * FROM main.d') AS d;
.print '== CREATE VIRTUAL TABLE, ROLLBACK: nothing left; the same CREATE succeeds afterwards'
BEGIN;
CREATE VIRTUAL TABLE c USING cql(k int PRIMARY KEY, v text);
ROLLBACK;
SELECT cql('SELECT * FROM main.c') AS c;
CREATE VIRTUAL TABLE c USING cql(k int PRIMARY KEY, v text);
SELECT count(*) AS c_rows FROM c;
.print '== CREATE, INSERT, COMMIT: the table and its rows; others see them at COMMIT'
BEGIN;
CREATE VIRTUAL TABLE ci USING cql(k int PRIMARY KEY, v text);
INSERT INTO ci VALUES (1, 'one'), (2, 'two');
UPDATE ci SET v = 'TWO' WHERE k = 2;
SELECT k, v FROM ci;
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT k, v FROM main.ci"
COMMIT;
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT k, v FROM main.ci"
.print '== CREATE, INSERT, ROLLBACK: nothing'
BEGIN;
CREATE VIRTUAL TABLE cr USING cql(k int PRIMARY KEY, v text);
INSERT INTO cr VALUES (1, 'one');
ROLLBACK;
SELECT cql('SELECT * FROM main.cr') AS cr;
CREATE VIRTUAL TABLE cr USING cql(k int PRIMARY KEY, v text);
SELECT count(*) AS cr_rows FROM cr;
.print '== DROP and CREATE of one name in one transaction: ROLLBACK keeps the old table...'
BEGIN;
DROP TABLE t;
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, w int);
INSERT INTO t VALUES (7, 70);
SELECT * FROM t;
ROLLBACK;
SELECT k, v FROM t;
.print '== ... COMMIT replaces it'
BEGIN;
DROP TABLE t;
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, w int);
INSERT INTO t VALUES (7, 70);
COMMIT;
SELECT * FROM t;
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT * FROM main.t"
.print '== savepoints: DROP rolled back to a savepoint'
CREATE VIRTUAL TABLE s USING cql(k int PRIMARY KEY, v text);
INSERT INTO s VALUES (1, 'kept');
SAVEPOINT a;
DROP TABLE s;
ROLLBACK TO a;
RELEASE a;
SELECT * FROM s;
.print '-- rows written before the savepoint commit, those after it do not'
BEGIN;
INSERT INTO s VALUES (2, 'before the savepoint');
SAVEPOINT b;
INSERT INTO s VALUES (3, 'after the savepoint');
DROP TABLE s;
ROLLBACK TO b;
COMMIT;
SELECT * FROM s;
.print '-- CREATE rolled back to a savepoint, then made again'
SAVEPOINT c;
CREATE VIRTUAL TABLE sc USING cql(k int PRIMARY KEY);
INSERT INTO sc VALUES (1);
ROLLBACK TO c;
RELEASE c;
SELECT cql('SELECT * FROM main.sc') AS sc;
CREATE VIRTUAL TABLE sc USING cql(k int PRIMARY KEY);
SELECT count(*) AS sc_rows FROM sc;
.print '-- a savepoint released: the DROP commits with the transaction'
BEGIN;
SAVEPOINT e;
DROP TABLE s;
RELEASE e;
COMMIT;
SELECT cql('SELECT * FROM main.s') AS s;
.print '== a keyspace the CREATE would make is made at COMMIT too'
BEGIN;
CREATE VIRTUAL TABLE k1 USING cql(k int PRIMARY KEY, keyspace = 'newks');
ROLLBACK;
SELECT cql('DESCRIBE KEYSPACE newks') AS newks;
.print '== the commit fails when another process took the name meanwhile: the whole transaction rolls back'
BEGIN;
INSERT INTO c VALUES (5, 'with the failed create');
CREATE VIRTUAL TABLE race USING cql(k int PRIMARY KEY);
.shell "$CASSETTE" test.db.cassette -e "CREATE TABLE main.race (k int PRIMARY KEY, other text)"
COMMIT;
SELECT count(*) AS race_in_sqlite FROM sqlite_schema WHERE name = 'race';
SELECT count(*) AS c_rows FROM c;
.print '== a connection closed inside the transaction: nothing of it'
BEGIN;
CREATE VIRTUAL TABLE closed USING cql(k int PRIMARY KEY);
DROP TABLE c;
.open test.db
.load ./cassette
SELECT count(*) AS c_rows FROM c;
CREATE VIRTUAL TABLE closed USING cql(k int PRIMARY KEY);
.print '== cql_transaction, through which the extension takes part in transactions, is empty'
SELECT count(*) AS rows FROM cql_transaction;
