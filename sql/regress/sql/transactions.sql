-- Reads inside a transaction see its own buffered writes, exactly as the commit will write them:
-- scans, partition lookups, pushed-down aggregates, joins and the scans of UPDATE and DELETE.
-- A statement does not see its own writes (PostgreSQL's command semantics); other sessions see
-- nothing until COMMIT; ROLLBACK (TO SAVEPOINT) takes the writes back out of the reads too.
SET datestyle = ISO;
SET timezone = 'UTC';
SELECT cql('CREATE TABLE app.txn (k text, c int, v text, n int, PRIMARY KEY (k, c))');
SELECT cql('CREATE TABLE app.txn_kv (id int PRIMARY KEY, v text)');
SELECT cql('CREATE TABLE app.txn_static (p int, c int, s text static, v text, PRIMARY KEY (p, c))');
SELECT cql('CREATE TABLE app.txn_coll (id int PRIMARY KEY, tags set<text>, items list<int>)');
IMPORT FOREIGN SCHEMA app LIMIT TO (txn, txn_kv, txn_static, txn_coll) FROM SERVER cassette INTO imported;
INSERT INTO imported.txn (k, c, v, n) VALUES ('a', 1, 'committed', 10), ('a', 2, 'committed', 20), ('b', 1, 'committed', 30);

-- Another session, to look from outside the transaction.
CREATE EXTENSION dblink;
SELECT dblink_connect('other', format('dbname=%s port=%s host=%s', current_database(),
                      current_setting('port'), split_part(current_setting('unix_socket_directories'), ',', 1)));
CREATE FUNCTION other_count(what text) RETURNS bigint LANGUAGE sql AS
  $$ SELECT n FROM dblink('other', 'SELECT count(*) FROM ' || what) AS t(n bigint) $$;

-- Read after INSERT: lookup, full scan, pushed-down count(*).
BEGIN;
INSERT INTO imported.txn (k, c, v, n) VALUES ('k', 1, 'x', 1);
SELECT * FROM imported.txn WHERE k = 'k';
SELECT * FROM imported.txn ORDER BY k, c;
EXPLAIN (COSTS OFF) SELECT count(*) FROM imported.txn;
SELECT count(*) FROM imported.txn;
SELECT other_count('imported.txn') AS other_session;
-- UPDATE of a row inserted earlier in the transaction: the UPDATE's scan finds it.
UPDATE imported.txn SET v = 'y' WHERE k = 'k' AND c = 1;
SELECT * FROM imported.txn WHERE k = 'k';
UPDATE imported.txn SET n = n + 100 WHERE k = 'k' RETURNING *;
-- UPDATE and DELETE of committed rows.
UPDATE imported.txn SET v = 'changed' WHERE k = 'a' AND c = 1;
DELETE FROM imported.txn WHERE k = 'a' AND c = 2;
SELECT * FROM imported.txn ORDER BY k, c;
SELECT count(*), sum(n), max(c) FROM imported.txn WHERE k = 'a';
-- DELETE then INSERT of one row: the new row only, its unset columns null.
DELETE FROM imported.txn WHERE k = 'b' AND c = 1;
SELECT * FROM imported.txn WHERE k = 'b';
INSERT INTO imported.txn (k, c, v) VALUES ('b', 1, 'reborn');
SELECT * FROM imported.txn WHERE k = 'b';
-- A row deleted by a scan the DELETE itself runs over pending rows.
INSERT INTO imported.txn (k, c, v, n) VALUES ('d', 1, 'doomed', 1), ('d', 2, 'doomed', 2);
DELETE FROM imported.txn WHERE v = 'doomed' RETURNING k, c;
SELECT count(*) FROM imported.txn WHERE k = 'd';
-- Savepoints: ROLLBACK TO takes the writes out of the reads again.
SAVEPOINT s1;
INSERT INTO imported.txn (k, c, v, n) VALUES ('k', 2, 'in s1', 2);
UPDATE imported.txn SET v = 'changed in s1' WHERE k = 'k' AND c = 1;
DELETE FROM imported.txn WHERE k = 'a' AND c = 1;
SELECT * FROM imported.txn ORDER BY k, c;
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM imported.txn ORDER BY k, c;
SAVEPOINT s2;
INSERT INTO imported.txn (k, c, v, n) VALUES ('k', 3, 'in s2', 3);
RELEASE SAVEPOINT s2;
SELECT * FROM imported.txn WHERE k = 'k' ORDER BY c;
-- A join from a native table: one partition lookup per outer row, each seeing pending rows.
CREATE TEMP TABLE wanted (k text);
INSERT INTO wanted VALUES ('k'), ('b'), ('zz');
ANALYZE wanted;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT w.k, t.c, t.v FROM wanted w JOIN imported.txn t ON t.k = w.k ORDER BY 1, 2;
SELECT w.k, t.c, t.v FROM wanted w JOIN imported.txn t ON t.k = w.k ORDER BY 1, 2;
-- UPDATE through a join: the lookups find pending and committed rows.
UPDATE imported.txn t SET n = coalesce(t.n, 0) + 1000 FROM wanted w WHERE t.k = w.k;
-- A statement does not read its own writes: with 'k' twice outside, the second lookup of this
-- INSERT ... SELECT (one lookup per outer row) does not see the rows it has just written.
INSERT INTO wanted VALUES ('k');
EXPLAIN (COSTS OFF) INSERT INTO imported.txn (k, c, v, n)
  SELECT t.k, t.c + 10, t.v, t.n
  FROM wanted w, LATERAL (SELECT * FROM imported.txn t WHERE t.k = w.k OFFSET 0) t RETURNING k, c;
INSERT INTO imported.txn (k, c, v, n)
  SELECT t.k, t.c + 10, t.v, t.n
  FROM wanted w, LATERAL (SELECT * FROM imported.txn t WHERE t.k = w.k OFFSET 0) t RETURNING k, c;
RESET enable_hashjoin;
RESET enable_mergejoin;
SELECT * FROM imported.txn ORDER BY k, c;
SELECT other_count('imported.txn') AS other_session;
COMMIT;
-- Committed: the store holds what the transaction read.
SELECT * FROM imported.txn ORDER BY k, c;
SELECT other_count('imported.txn') AS other_session;

-- Static columns: the partition's static row, pending.
BEGIN;
INSERT INTO imported.txn_static VALUES (1, 1, 'static one', 'a'), (1, 2, NULL, 'b');
SELECT * FROM imported.txn_static ORDER BY c;
UPDATE imported.txn_static SET s = 'static changed' WHERE p = 1 AND c = 2;
SELECT * FROM imported.txn_static ORDER BY c;
COMMIT;
SELECT * FROM imported.txn_static ORDER BY c;

-- Collections: a pending collection written again replaces the elements of the older value.
INSERT INTO imported.txn_coll (id, tags, items) VALUES (2, '{x}', '{9}');
BEGIN;
INSERT INTO imported.txn_coll (id, tags, items) VALUES (1, '{a,b}', '{1,2}');
SELECT * FROM imported.txn_coll ORDER BY id;
UPDATE imported.txn_coll SET tags = '{c}', items = '{3}' WHERE id = 1;
UPDATE imported.txn_coll SET tags = '{y}', items = '{8,7}' WHERE id = 2;
SELECT * FROM imported.txn_coll ORDER BY id;
UPDATE imported.txn_coll SET tags = NULL, items = '{4,5}' WHERE id = 1;
UPDATE imported.txn_coll SET tags = '{y,z}' WHERE id = 2;
SELECT * FROM imported.txn_coll ORDER BY id;
COMMIT;
SELECT * FROM imported.txn_coll ORDER BY id;

-- TRUNCATE in a transaction: the table reads empty, then holds the rows inserted after it.
BEGIN;
TRUNCATE imported.txn;
SELECT count(*) FROM imported.txn;
SELECT * FROM imported.txn WHERE k = 'k';
INSERT INTO imported.txn (k, c, v, n) VALUES ('t', 1, 'after truncate', 1);
SELECT * FROM imported.txn ORDER BY k, c;
SELECT count(*) FROM imported.txn;
SELECT count(*) FROM imported.txn_static;
-- (another session would wait here: TRUNCATE holds PostgreSQL's ACCESS EXCLUSIVE lock)
ROLLBACK;
SELECT count(*) FROM imported.txn;
-- Rows written before the TRUNCATE go with it; a rolled-back TRUNCATE brings back what was.
BEGIN;
INSERT INTO imported.txn (k, c, v, n) VALUES ('gone', 1, 'before truncate', 1);
TRUNCATE imported.txn;
INSERT INTO imported.txn (k, c, v, n) VALUES ('t', 1, 'after truncate', 1);
SELECT * FROM imported.txn ORDER BY k, c;
SAVEPOINT s3;
TRUNCATE imported.txn;
SELECT count(*) FROM imported.txn;
INSERT INTO imported.txn (k, c, v, n) VALUES ('t', 2, 'in s3', 2);
SELECT * FROM imported.txn ORDER BY k, c;
ROLLBACK TO SAVEPOINT s3;
SELECT * FROM imported.txn ORDER BY k, c;
UPDATE imported.txn SET v = 'updated after truncate' WHERE k = 't';
COMMIT;
SELECT * FROM imported.txn ORDER BY k, c;

-- ROLLBACK leaves nothing.
BEGIN;
INSERT INTO imported.txn_kv VALUES (1, 'one'), (2, 'two');
UPDATE imported.txn_kv SET v = 'uno' WHERE id = 1;
SELECT * FROM imported.txn_kv ORDER BY id;
ROLLBACK;
SELECT * FROM imported.txn_kv ORDER BY id;
SELECT cql('SELECT count(*) FROM app.txn_kv');

-- Many pending rows, read after every write (PL/pgSQL: each statement sees the ones before).
BEGIN;
DO $$
DECLARE
  seen bigint;
BEGIN
  FOR i IN 1..300 LOOP
    INSERT INTO imported.txn_kv VALUES (i, 'v' || i);
    SELECT count(*) INTO seen FROM imported.txn_kv;
    IF seen <> i - (i - 1) / 3 THEN RAISE EXCEPTION 'saw % rows after % inserts', seen, i; END IF;
    IF i % 3 = 0 THEN
      UPDATE imported.txn_kv SET v = 'u' || i WHERE id = i - 1;
      DELETE FROM imported.txn_kv WHERE id = i - 2;
      SELECT count(*) INTO seen FROM imported.txn_kv;
      IF seen <> i - i / 3 THEN RAISE EXCEPTION 'saw % rows after % writes', seen, i; END IF;
    END IF;
  END LOOP;
END $$;
SELECT count(*), min(id), max(id), count(*) FILTER (WHERE v LIKE 'u%') AS updated FROM imported.txn_kv;
SELECT * FROM imported.txn_kv WHERE id IN (1, 2, 3, 299, 300) ORDER BY id;
SELECT other_count('imported.txn_kv') AS other_session;
COMMIT;
SELECT count(*), min(id), max(id), count(*) FILTER (WHERE v LIKE 'u%') AS updated FROM imported.txn_kv;
SELECT other_count('imported.txn_kv') AS other_session;

SELECT dblink_disconnect('other');
DROP FUNCTION other_count(text);
DROP EXTENSION dblink;
