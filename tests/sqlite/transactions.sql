-- Statements inside BEGIN ... COMMIT commit together; ROLLBACK writes nothing; savepoints
-- undo exactly what followed them. What a second connection (a second process, through
-- `cassette`) sees shows what reached the store.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE acct USING cql(id int PRIMARY KEY, owner text, balance bigint);
CREATE TABLE audit (id INTEGER PRIMARY KEY, note TEXT);
.print '== the SQL columns are in the order CREATE VIRTUAL TABLE declared them'
SELECT name FROM pragma_table_info('acct');
INSERT INTO acct (id, owner, balance) VALUES (1, 'ann', 100), (2, 'bob', 50);
.print '== BEGIN ... COMMIT: a transfer commits both rows'
BEGIN;
UPDATE acct SET balance = balance - 30 WHERE id = 1;
UPDATE acct SET balance = balance + 30 WHERE id = 2;
INSERT INTO audit (note) VALUES ('transfer 30');
.print '-- another process does not see them yet'
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT id, balance FROM main.acct"
COMMIT;
.print '-- after COMMIT it does'
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT id, balance FROM main.acct"
SELECT id, owner, balance FROM acct ORDER BY id;
SELECT note FROM audit;
.print '== ROLLBACK writes nothing, to the CQL table or the native one'
BEGIN;
INSERT INTO acct (id, owner, balance) VALUES (3, 'cy', 7);
UPDATE acct SET balance = 0 WHERE id = 1;
DELETE FROM acct WHERE id = 2;
INSERT INTO audit (note) VALUES ('rolled back');
ROLLBACK;
SELECT id, owner, balance FROM acct ORDER BY id;
SELECT count(*) AS audit_rows FROM audit;
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT id, balance FROM main.acct"
.print '== SAVEPOINT / ROLLBACK TO / RELEASE'
BEGIN;
INSERT INTO acct (id, owner, balance) VALUES (10, 'a', 1);
SAVEPOINT s1;
INSERT INTO acct (id, owner, balance) VALUES (11, 'b', 2);
UPDATE acct SET balance = 999 WHERE id = 10;
SAVEPOINT s2;
INSERT INTO acct (id, owner, balance) VALUES (12, 'c', 3);
ROLLBACK TO s1;
.print '-- after ROLLBACK TO s1: 10 with its first balance, no 11 or 12'
SELECT id, owner, balance FROM acct WHERE id >= 10 ORDER BY id;
INSERT INTO acct (id, owner, balance) VALUES (13, 'd', 4);
RELEASE s1;
SAVEPOINT s3;
DELETE FROM acct WHERE id = 10;
RELEASE s3;
COMMIT;
SELECT id, owner, balance FROM acct ORDER BY id;
.shell "$CASSETTE" test.db.cassette --format csv -e "SELECT id, balance FROM main.acct"
.print '== a savepoint used as a transaction (no BEGIN), rolled back'
SAVEPOINT outer_sp;
INSERT INTO acct (id, owner, balance) VALUES (20, 'e', 5);
ROLLBACK TO outer_sp;
RELEASE outer_sp;
SELECT count(*) AS rows_20 FROM acct WHERE id = 20;
.print '== a failing statement inside a transaction undoes only itself'
BEGIN;
INSERT INTO acct (id, owner, balance) VALUES (30, 'f', 6);
INSERT INTO acct (id, owner, balance) VALUES (31, 'g', 'not a number');
INSERT INTO acct (id, owner, balance) VALUES (32, 'h', 8);
COMMIT;
SELECT id, owner, balance FROM acct WHERE id >= 30 ORDER BY id;
.print '== a multi-row INSERT that fails midway writes none of its rows'
INSERT INTO acct (id, owner, balance) VALUES (40, 'i', 1), (41, 'j', 'x'), (42, 'k', 3);
SELECT count(*) AS rows_40s FROM acct WHERE id BETWEEN 40 AND 49;
