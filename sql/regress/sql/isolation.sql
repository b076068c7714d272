-- Row locks and isolation levels (issue 22). SELECT ... FOR UPDATE / NO KEY UPDATE / SHARE /
-- KEY SHARE on a cassette foreign table locks its rows for real, wherever the lock clause
-- reaches the table (a join, a view, a subquery, a CTE, PL/pgSQL), as UPDATE and DELETE do; a
-- SERIALIZABLE transaction reads but does not write; REPEATABLE READ reads one snapshot and
-- fails a lost update with 40001.
SELECT cql('CREATE TABLE app.iso (k int PRIMARY KEY, v text)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (iso) FROM SERVER cassette INTO imported;
INSERT INTO imported.iso VALUES (1, 'one'), (2, 'two'), (7, '0');
CREATE TABLE iso_local (k int PRIMARY KEY, note text);
INSERT INTO iso_local VALUES (1, 'a'), (2, 'b'), (7, 'c');
CREATE VIEW iso_view AS SELECT * FROM imported.iso;
-- The SQLSTATE and message of a statement, or 'ok'.
CREATE FUNCTION iso_outcome(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- ---- row locks ---------------------------------------------------------------------------------
-- Every strength and wait policy is accepted (the last section shows them lock).
SELECT * FROM imported.iso WHERE k = 7 FOR UPDATE;
SELECT iso_outcome('SELECT * FROM imported.iso WHERE k = 7 FOR NO KEY UPDATE');
SELECT iso_outcome('SELECT * FROM imported.iso WHERE k = 7 FOR SHARE');
SELECT iso_outcome('SELECT * FROM imported.iso WHERE k = 7 FOR KEY SHARE');
SELECT iso_outcome('SELECT * FROM imported.iso FOR UPDATE NOWAIT');
SELECT iso_outcome('SELECT * FROM imported.iso FOR SHARE SKIP LOCKED');
-- A join: FOR UPDATE locks every table of it, OF names the cassette table.
SELECT iso_outcome('SELECT l.k, i.v FROM iso_local l JOIN imported.iso i USING (k) FOR UPDATE');
SELECT iso_outcome('SELECT l.k, i.v FROM iso_local l JOIN imported.iso i USING (k) FOR UPDATE OF i');
-- Through a view, a subquery, a CTE, an IN list, PL/pgSQL, a prepared statement.
SELECT iso_outcome('SELECT * FROM iso_view WHERE k = 7 FOR UPDATE');
SELECT iso_outcome('SELECT * FROM (SELECT * FROM imported.iso WHERE k = 7 FOR UPDATE) s');
SELECT iso_outcome('WITH c AS (SELECT * FROM imported.iso FOR SHARE) SELECT count(*) FROM c');
SELECT iso_outcome('SELECT * FROM iso_local WHERE k IN (SELECT k FROM imported.iso FOR KEY SHARE)');
SELECT iso_outcome('UPDATE iso_local SET note = note WHERE k IN (SELECT k FROM imported.iso FOR UPDATE)');
SELECT iso_outcome($$DO $do$ DECLARE r record;
  BEGIN SELECT * INTO r FROM imported.iso WHERE k = 7 FOR UPDATE; END $do$ $$);
PREPARE iso_locked(int) AS SELECT * FROM imported.iso WHERE k = $1 FOR UPDATE;
EXECUTE iso_locked(7);
-- Nothing was changed by any of them.
SELECT * FROM iso_local ORDER BY k;
-- Locking only the local table of a join: the cassette table's rows are only read.
SELECT l.k, l.note, i.v FROM iso_local l JOIN imported.iso i USING (k) ORDER BY l.k FOR UPDATE OF l;

-- Plain UPDATE and DELETE still work, also joined with a local table (PostgreSQL then carries
-- the other table's rows along for a recheck, which is no lock the user asked for).
UPDATE imported.iso SET v = (v::int + 1)::text WHERE k = 7;
UPDATE imported.iso i SET v = i.v || '-' || l.note FROM iso_local l WHERE l.k = i.k AND l.k = 1;
UPDATE iso_local l SET note = i.v FROM imported.iso i WHERE l.k = i.k;
SELECT * FROM imported.iso ORDER BY k;
SELECT * FROM iso_local ORDER BY k;
DELETE FROM imported.iso i USING iso_local l WHERE l.k = i.k AND l.note = 'two';
DELETE FROM iso_local l USING imported.iso i WHERE l.k = i.k AND i.v = '1';
SELECT * FROM imported.iso ORDER BY k;
SELECT * FROM iso_local ORDER BY k;

-- ---- SERIALIZABLE -------------------------------------------------------------------------------
-- Reads are allowed; every write is refused at its statement with SQLSTATE 0A000 and changes
-- nothing. EXPLAIN of a write writes nothing and passes.
CREATE TABLE iso_parted (k int, v text) PARTITION BY LIST (k);
CREATE FOREIGN TABLE iso_part PARTITION OF iso_parted FOR VALUES IN (5)
  SERVER cassette OPTIONS (table 'app.iso');
CREATE EXTENSION dblink;
SELECT dblink_connect('iso_other', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM imported.iso ORDER BY k;
-- The transaction reads one snapshot of the store, pinned at its first read: another session's
-- commit in between is not seen, by foreign scans nor by cql().
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''seen'' WHERE k = 1');
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''seen too'' WHERE k = 7');
SELECT * FROM imported.iso ORDER BY k;
SELECT cql('SELECT v FROM app.iso WHERE k = 7', 'cassette');
EXPLAIN (COSTS OFF) UPDATE imported.iso SET v = 'x' WHERE k = 1;
UPDATE imported.iso SET v = 'x' WHERE k = 1;
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT iso_outcome('INSERT INTO imported.iso VALUES (3, ''three'')');
SELECT iso_outcome('DELETE FROM imported.iso WHERE k = 1');
SELECT iso_outcome('TRUNCATE imported.iso');
SELECT iso_outcome('INSERT INTO iso_parted VALUES (5, ''five'')');
-- A local table's UPDATE that only reads the cassette table passes.
SELECT iso_outcome('UPDATE iso_local l SET note = ''y'' FROM imported.iso i WHERE l.k = i.k');
SELECT iso_outcome($q$SELECT cql('INSERT INTO app.iso (k, v) VALUES (3, ''three'')', 'cassette')$q$);
SELECT iso_outcome($q$SELECT cql('UPDATE app.iso SET v = ''z'' WHERE k = 7', 'cassette')$q$);
SELECT iso_outcome($q$SELECT cql('BEGIN BATCH DELETE FROM app.iso WHERE k = 1; APPLY BATCH', 'cassette')$q$);
COMMIT;
-- default_transaction_isolation: a statement on its own is a SERIALIZABLE transaction too, and
-- cql()'s conditional statements (which run only there) are refused as well.
SET default_transaction_isolation = serializable;
SELECT cql($$UPDATE app.iso SET v = '9' WHERE k = 7 IF v = '1'$$, 'cassette');
INSERT INTO imported.iso VALUES (3, 'three');
COPY imported.iso FROM STDIN;
4	four
\.
SELECT count(*) FROM imported.iso;
RESET default_transaction_isolation;
-- Nothing was written; REPEATABLE READ and READ COMMITTED write.
SELECT * FROM imported.iso ORDER BY k;
UPDATE imported.iso SET v = CASE k WHEN 1 THEN 'one-a' ELSE '1' END;
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO imported.iso VALUES (3, 'three');
SELECT cql($$UPDATE app.iso SET v = '2' WHERE k = 7$$, 'cassette');
COMMIT;
SELECT * FROM imported.iso ORDER BY k;
SELECT * FROM iso_local ORDER BY k;
SELECT dblink_disconnect('iso_other');
DROP EXTENSION dblink;
DROP TABLE iso_parted;

-- ---- REPEATABLE READ: one snapshot, and no lost update ------------------------------------------
-- Each store is read at one snapshot, pinned at the transaction's first read of it: another
-- session's commit between two statements is not seen, the transaction's own writes are.
CREATE EXTENSION dblink;
SELECT dblink_connect('iso_other', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM imported.iso ORDER BY k;
SELECT dblink_exec('iso_other', 'INSERT INTO imported.iso VALUES (8, ''eight'')');
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''other'' WHERE k = 1');
INSERT INTO imported.iso VALUES (9, 'nine');
SELECT * FROM imported.iso ORDER BY k;
SELECT cql('SELECT k, v FROM app.iso WHERE k IN (1, 8, 9)', 'cassette');
COMMIT;
-- After the commit, everything is seen.
SELECT * FROM imported.iso ORDER BY k;
-- READ COMMITTED reads the latest commit at each statement.
BEGIN ISOLATION LEVEL READ COMMITTED;
SELECT v FROM imported.iso WHERE k = 8;
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''ocho'' WHERE k = 8');
SELECT v FROM imported.iso WHERE k = 8;
COMMIT;

-- A write-write conflict: the transaction reads k = 7, another session changes it and commits,
-- the transaction's UPDATE of k = 7 then fails with SQLSTATE 40001 (as PostgreSQL's does, once
-- it holds the row's lock) and the transaction writes nothing (neither that row nor its other
-- writes): the other session's update is not lost. A change made by a writer outside
-- PostgreSQL after the UPDATE fails the COMMIT instead (tests/postgres/run.sh).
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM imported.iso WHERE k = 7;
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = (v::int + 1)::text WHERE k = 7');
UPDATE imported.iso SET v = (v::int + 1)::text WHERE k = 7;
INSERT INTO imported.iso VALUES (10, 'ten');
COMMIT;
SELECT * FROM imported.iso WHERE k IN (7, 10) ORDER BY k;
-- A DELETE conflicts the same way, and so does a row deleted by the other session.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM imported.iso WHERE k = 8;
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''huit'' WHERE k = 8');
DELETE FROM imported.iso WHERE k = 8;
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM imported.iso WHERE k = 9;
SELECT dblink_exec('iso_other', 'DELETE FROM imported.iso WHERE k = 9');
UPDATE imported.iso SET v = 'neuf' WHERE k = 9;
COMMIT;
SELECT * FROM imported.iso WHERE k IN (8, 9) ORDER BY k;
-- The client's retry: the same transaction again commits.
BEGIN ISOLATION LEVEL REPEATABLE READ;
UPDATE imported.iso SET v = (v::int + 1)::text WHERE k = 7;
COMMIT;
SELECT * FROM imported.iso WHERE k = 7;
-- Blind writes never conflict (Cassandra's last-write-wins): an INSERT of a row another session
-- changed after the snapshot commits.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM imported.iso WHERE k = 8;
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''acht'' WHERE k = 8');
INSERT INTO imported.iso VALUES (8, 'eight again');
COMMIT;
SELECT * FROM imported.iso WHERE k = 8;
-- A row the transaction changes that nobody else touched commits, also after another session
-- changed a different row.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM imported.iso;
SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''uno'' WHERE k = 1');
UPDATE imported.iso SET v = 'ocho' WHERE k = 8;
COMMIT;
SELECT * FROM imported.iso ORDER BY k;
-- A static row: an UPDATE of a static column conflicts with another session's change of it.
SELECT cql('CREATE TABLE app.iso_static (p int, c int, s text STATIC, v text, PRIMARY KEY (p, c))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (iso_static) FROM SERVER cassette INTO imported;
INSERT INTO imported.iso_static VALUES (1, 1, 'shared', 'a'), (1, 2, 'shared', 'b');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM imported.iso_static ORDER BY c;
SELECT dblink_exec('iso_other', 'UPDATE imported.iso_static SET s = ''theirs'' WHERE p = 1 AND c = 1');
UPDATE imported.iso_static SET s = 'mine' WHERE p = 1 AND c = 2;
COMMIT;
SELECT * FROM imported.iso_static ORDER BY c;
SELECT dblink_disconnect('iso_other');
DROP EXTENSION dblink;

-- ---- row locks ------------------------------------------------------------------------------------
-- The scan of an UPDATE or DELETE locks each row it returns until the transaction ends (advisory
-- locks in pg_locks, objsubid 3) and holds its table's lock (objsubid 4) in RowExclusiveLock;
-- past 256 rows of one table it takes the table's lock in ExclusiveLock instead of more row locks.
CREATE VIEW iso_locks AS
  SELECT objsubid, mode, count(*) FROM pg_locks
  WHERE locktype = 'advisory' AND pid = pg_backend_pid() GROUP BY 1, 2 ORDER BY 1, 2;
BEGIN;
-- Only rows that pass the WHERE clause are locked: here none (v is not pushed down).
UPDATE imported.iso SET v = 'none' WHERE v = 'no such value';
SELECT * FROM iso_locks;
UPDATE imported.iso SET v = 'locked' WHERE k IN (1, 3);
SELECT * FROM iso_locks;
INSERT INTO imported.iso SELECT g, 'many' FROM generate_series(100, 399) g;
UPDATE imported.iso SET v = 'many too' WHERE v = 'many';
SELECT * FROM iso_locks;
ROLLBACK;
-- A plain read, a user's own advisory lock and an INSERT take none of them.
BEGIN;
SELECT count(*) FROM imported.iso;
INSERT INTO imported.iso VALUES (11, 'eleven');
SELECT pg_advisory_xact_lock(7);
SELECT * FROM iso_locks;
ROLLBACK;
DROP VIEW iso_locks;

-- ---- SELECT ... FOR UPDATE / FOR SHARE lock ------------------------------------------------------
CREATE EXTENSION dblink;
SELECT dblink_connect('iso_other', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
-- Waits until another session waits for one of our row locks.
CREATE FUNCTION iso_wait_for_waiter() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..3000 LOOP
    IF EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 3 AND NOT granted)
    THEN RETURN 'waiting'; END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN 'nobody waited';
END $$;
-- FOR UPDATE: another session's UPDATE of the row waits for this transaction, then works on the
-- row as it committed (no lost update); NOWAIT fails at once with 55P03; SKIP LOCKED skips it.
BEGIN;
SELECT * FROM imported.iso WHERE k = 7 FOR UPDATE;
SELECT iso_outcome($$SELECT dblink_exec('iso_other', 'SELECT * FROM imported.iso WHERE k = 7 FOR UPDATE NOWAIT')$$);
SELECT * FROM dblink('iso_other', 'SELECT k FROM imported.iso WHERE k IN (1, 7) FOR SHARE SKIP LOCKED') AS t(k int);
SELECT dblink_send_query('iso_other', 'UPDATE imported.iso SET v = v || ''+theirs'' WHERE k = 7');
SELECT iso_wait_for_waiter();
UPDATE imported.iso SET v = v || '+mine' WHERE k = 7;
COMMIT;
SELECT * FROM dblink_get_result('iso_other') AS t(result text);
SELECT * FROM imported.iso WHERE k = 7;
-- FOR SHARE: another session shares the row at once, and its UPDATE waits.
BEGIN;
SELECT * FROM imported.iso WHERE k = 7 FOR SHARE;
SELECT * FROM dblink('iso_other', 'SELECT k FROM imported.iso WHERE k = 7 FOR SHARE NOWAIT') AS t(k int);
SELECT dblink_exec('iso_other', 'SET lock_timeout = ''50ms''');
SELECT iso_outcome($$SELECT dblink_exec('iso_other', 'UPDATE imported.iso SET v = ''x'' WHERE k = 7')$$);
SELECT dblink_exec('iso_other', 'RESET lock_timeout');
COMMIT;
SELECT * FROM imported.iso WHERE k = 7;
SELECT dblink_disconnect('iso_other');
DROP FUNCTION iso_wait_for_waiter();
DROP EXTENSION dblink;
