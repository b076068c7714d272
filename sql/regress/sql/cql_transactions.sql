-- cql() inside a transaction block joins the PostgreSQL transaction: its writes commit with the
-- foreign-table writes in one commit-log record, or roll back with them; savepoints and
-- exception blocks drop the cql() writes made inside them; cql() reads the transaction's
-- foreign-table writes and foreign-table scans read cql()'s. Outside a transaction block
-- (a statement on its own) cql() commits at once, as before.
SELECT cql('CREATE TABLE app.ctx (k int PRIMARY KEY, v text)');
SELECT cql('CREATE TABLE app.ctx_rows (p int, c int, v text, PRIMARY KEY (p, c))');
IMPORT FOREIGN SCHEMA app LIMIT TO (ctx, ctx_rows) FROM SERVER cassette INTO imported;

-- Another session, to look from outside the transaction.
CREATE EXTENSION dblink;
SELECT dblink_connect('outside', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
CREATE FUNCTION outside_rows() RETURNS bigint LANGUAGE sql AS
  $$ SELECT n FROM dblink('outside', 'SELECT count(*) FROM imported.ctx') AS t(n bigint) $$;

-- ROLLBACK undoes cql() writes; COMMIT keeps them.
BEGIN;
SELECT cql('INSERT INTO app.ctx (k, v) VALUES (1, ''rolled back'')');
SELECT cql('SELECT k, v FROM app.ctx');
SELECT outside_rows() AS outside;
ROLLBACK;
SELECT cql('SELECT k, v FROM app.ctx');
BEGIN;
SELECT cql('INSERT INTO app.ctx (k, v) VALUES (1, ''committed'')');
SELECT outside_rows() AS outside;
COMMIT;
SELECT * FROM imported.ctx;
SELECT outside_rows() AS outside;

-- Each side reads the other's writes inside the transaction; the commit writes both as one
-- record (one write timestamp for the foreign-table rows and the cql() rows). Each row is
-- written by one side only here; one_transaction.sql writes the same cells through both.
SELECT cql('BEGIN BATCH INSERT INTO app.ctx (k, v) VALUES (5, ''five''); INSERT INTO app.ctx (k, v) VALUES (6, ''six''); APPLY BATCH');
BEGIN;
INSERT INTO imported.ctx VALUES (2, 'foreign insert');
SELECT cql('SELECT k, v FROM app.ctx WHERE k = 2');
UPDATE imported.ctx SET v = 'foreign update' WHERE k = 1;
DELETE FROM imported.ctx WHERE k = 5;
SELECT cql('SELECT k, v FROM app.ctx');
SELECT cql('INSERT INTO app.ctx (k, v) VALUES (3, ''cql insert'')');
SELECT cql('UPDATE app.ctx SET v = ''cql update'' WHERE k = 4');
SELECT cql('DELETE FROM app.ctx WHERE k = 6');
SELECT * FROM imported.ctx ORDER BY k;
SELECT count(*) FROM imported.ctx;
SELECT outside_rows() AS outside;
COMMIT;
SELECT * FROM imported.ctx ORDER BY k;
SELECT count(DISTINCT w) AS commit_timestamps
  FROM jsonb_array_elements(cql('SELECT writetime(v) AS w FROM app.ctx')) AS r,
       LATERAL (SELECT r->>'w' AS w) AS t;

-- Savepoints: ROLLBACK TO drops the cql() writes made since the savepoint, keeps those before.
BEGIN;
SELECT cql('INSERT INTO app.ctx_rows (p, c, v) VALUES (1, 1, ''before'')');
SAVEPOINT s1;
SELECT cql('INSERT INTO app.ctx_rows (p, c, v) VALUES (1, 2, ''in s1'')');
SAVEPOINT s2;
SELECT cql('UPDATE app.ctx_rows SET v = ''in s2'' WHERE p = 1 AND c = 1');
SELECT * FROM imported.ctx_rows ORDER BY p, c;
ROLLBACK TO SAVEPOINT s2;
SELECT * FROM imported.ctx_rows ORDER BY p, c;
RELEASE SAVEPOINT s2;
ROLLBACK TO SAVEPOINT s1;
SELECT cql('SELECT p, c, v FROM app.ctx_rows');
SAVEPOINT s3;
SELECT cql('INSERT INTO app.ctx_rows (p, c, v) VALUES (1, 3, ''in s3, released'')');
RELEASE SAVEPOINT s3;
SAVEPOINT s4;
ROLLBACK TO SAVEPOINT s4;
COMMIT;
SELECT * FROM imported.ctx_rows ORDER BY p, c;

-- An exception block (a subtransaction) drops the cql() writes made in it.
BEGIN;
DO $$
BEGIN
  PERFORM cql('INSERT INTO app.ctx_rows (p, c, v) VALUES (2, 1, ''kept'')');
  BEGIN
    PERFORM cql('INSERT INTO app.ctx_rows (p, c, v) VALUES (2, 2, ''dropped'')');
    RAISE EXCEPTION 'undo';
  EXCEPTION WHEN raise_exception THEN
    RAISE NOTICE 'caught: %', SQLERRM;
  END;
END $$;
SELECT * FROM imported.ctx_rows WHERE p = 2 ORDER BY c;
COMMIT;
SELECT * FROM imported.ctx_rows WHERE p = 2 ORDER BY c;

-- A failing cql() statement changes nothing (here a BATCH whose second write is invalid).
BEGIN;
SELECT cql('BEGIN BATCH INSERT INTO app.ctx_rows (p, c, v) VALUES (3, 1, ''x''); INSERT INTO app.ctx_rows (p, v) VALUES (3, ''no c''); APPLY BATCH');
ROLLBACK;
BEGIN;
SAVEPOINT s;
SELECT cql('BEGIN BATCH INSERT INTO app.ctx_rows (p, c, v) VALUES (3, 1, ''x''); INSERT INTO app.ctx_rows (p, v) VALUES (3, ''no c''); APPLY BATCH');
ROLLBACK TO SAVEPOINT s;
SELECT cql('SELECT p, c, v FROM app.ctx_rows WHERE p = 3');
COMMIT;

-- Conditional statements, schema changes and TRUNCATE are refused inside a transaction block,
-- with the messages the SQLite extension gives.
BEGIN;
SELECT cql('INSERT INTO app.ctx (k, v) VALUES (9, ''lwt'') IF NOT EXISTS');
ROLLBACK;
BEGIN;
SELECT cql('UPDATE app.ctx SET v = ''lwt'' WHERE k = 1 IF v = ''committed''');
ROLLBACK;
BEGIN;
SELECT cql('CREATE TABLE app.ctx_new (k int PRIMARY KEY)');
ROLLBACK;
BEGIN;
SELECT cql('TRUNCATE app.ctx');
ROLLBACK;
-- In autocommit, the same statements run as before.
SELECT cql('INSERT INTO app.ctx (k, v) VALUES (9, ''lwt'') IF NOT EXISTS');
SELECT cql('CREATE TABLE app.ctx_new (k int PRIMARY KEY)');
SELECT cql('DROP TABLE app.ctx_new');
SELECT * FROM imported.ctx ORDER BY k;

SELECT dblink_disconnect('outside');
DROP FUNCTION outside_rows();
DROP FOREIGN TABLE imported.ctx, imported.ctx_rows;
DROP EXTENSION dblink;
