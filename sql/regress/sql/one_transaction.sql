-- Foreign-table writes and cql() writes are one transaction of the engine: a later statement
-- wins on the same cell whichever side wrote it, a foreign-table TRUNCATE also removes the rows
-- cql() wrote before it, and a statement (a foreign scan) does not see the cql() writes of its
-- own command, only those of the commands before it.
SELECT cql('CREATE TABLE app.one (k int PRIMARY KEY, v text, n int)');
SELECT cql('CREATE TABLE app.one_rows (p int, c int, s text static, v text, n int, PRIMARY KEY (p, c))');
IMPORT FOREIGN SCHEMA app LIMIT TO (one, one_rows) FROM SERVER cassette INTO imported;

-- The same cell through cql() then the foreign table, and the other way round: the later wins.
BEGIN;
SELECT cql('INSERT INTO app.one (k, v, n) VALUES (1, ''cql first'', 1)');
UPDATE imported.one SET v = 'foreign second' WHERE k = 1;
INSERT INTO imported.one (k, v, n) VALUES (2, 'foreign first', 2);
SELECT cql('UPDATE app.one SET v = ''cql second'' WHERE k = 2');
INSERT INTO imported.one (k, v, n) VALUES (3, 'foreign first', 3);
SELECT cql('DELETE FROM app.one WHERE k = 3');
SELECT cql('INSERT INTO app.one (k, v) VALUES (4, ''cql first'')');
DELETE FROM imported.one WHERE k = 4;
INSERT INTO imported.one (k, v) VALUES (4, 'foreign after cql delete');
SELECT * FROM imported.one ORDER BY k;
COMMIT;
SELECT * FROM imported.one ORDER BY k;
SELECT cql('SELECT k, v, n FROM app.one');

-- A foreign-table TRUNCATE removes the committed rows and every row the transaction wrote
-- before it, cql()'s too; rows written after it stay.
BEGIN;
SELECT cql('INSERT INTO app.one (k, v) VALUES (10, ''cql before truncate'')');
INSERT INTO imported.one (k, v, n) VALUES (11, 'foreign before truncate', 11);
TRUNCATE imported.one;
SELECT count(*) FROM imported.one;
SELECT cql('SELECT k, v FROM app.one');
SELECT cql('INSERT INTO app.one (k, v) VALUES (12, ''cql after truncate'')');
INSERT INTO imported.one (k, v, n) VALUES (13, 'foreign after truncate', 13);
SELECT * FROM imported.one ORDER BY k;
COMMIT;
SELECT * FROM imported.one ORDER BY k;

-- A foreign scan sees the cql() writes of earlier commands, not those of its own statement
-- (the scalar subquery's scan opens after cql() ran, in the same command).
BEGIN;
SELECT cql('INSERT INTO app.one (k, v) VALUES (20, ''earlier command'')');
SELECT r.result, (SELECT count(*) FROM imported.one) AS seen
  FROM (SELECT cql('INSERT INTO app.one (k, v) VALUES (21, ''same command'')') AS result OFFSET 0) r;
SELECT count(*) FROM imported.one;
COMMIT;
SELECT * FROM imported.one ORDER BY k;

-- Deleted, then updated without being inserted again (cql()'s UPDATE is an upsert): the row
-- holds the updated cells, its other columns null. Statics belong to the partition: the later
-- statement wins, whichever row or side set them.
INSERT INTO imported.one_rows (p, c, s, v, n) VALUES (1, 1, 'static', 'a', 1), (1, 2, NULL, 'b', 2);
BEGIN;
DELETE FROM imported.one_rows WHERE p = 1 AND c = 1;
SELECT cql('UPDATE app.one_rows SET v = ''updated after delete'' WHERE p = 1 AND c = 1');
UPDATE imported.one_rows SET s = 'static by row 2' WHERE p = 1 AND c = 2;
SELECT * FROM imported.one_rows ORDER BY p, c;
SELECT cql('UPDATE app.one_rows SET s = ''static by cql'' WHERE p = 1');
SELECT * FROM imported.one_rows ORDER BY p, c;
COMMIT;
SELECT * FROM imported.one_rows ORDER BY p, c;
DROP FOREIGN TABLE imported.one, imported.one_rows;
