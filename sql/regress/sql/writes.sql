-- INSERT, UPDATE, DELETE, TRUNCATE as Cassandra mutations, applied when the transaction commits.
SET datestyle = ISO;
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT cql('CREATE TABLE app.items (shop text, id int, name text, price decimal, tags set<text>, PRIMARY KEY (shop, id))');
IMPORT FOREIGN SCHEMA app LIMIT TO (items) FROM SERVER cassette INTO imported;

INSERT INTO imported.items VALUES ('north', 1, 'apple', 1.20, '{fruit}'), ('north', 2, 'bread', 2.50, NULL);
INSERT INTO imported.items (shop, id, name) VALUES ('south', 1, 'cheese') RETURNING *;
SELECT * FROM imported.items ORDER BY shop, id;
SELECT cql('SELECT shop, id, name, price, tags FROM app.items WHERE shop = ''north''');

-- INSERT is an upsert; a NULL leaves the column as it was (unset).
INSERT INTO imported.items VALUES ('north', 1, 'green apple', NULL, NULL);
SELECT * FROM imported.items WHERE shop = 'north' AND id = 1;

-- UPDATE sets the columns it names; NULL deletes the cell.
UPDATE imported.items SET price = price * 2 WHERE shop = 'north';
UPDATE imported.items SET tags = NULL, name = upper(name) WHERE shop = 'north' AND id = 1;
SELECT * FROM imported.items WHERE shop = 'north' ORDER BY id;
UPDATE imported.items SET price = 3.33 WHERE shop = 'north' AND id = 2 RETURNING *;
-- UPDATE over a full scan, and one that matches nothing.
UPDATE imported.items SET tags = '{sale}' WHERE price > 3;
UPDATE imported.items SET name = 'nothing' WHERE shop = 'west';
SELECT shop, id, tags FROM imported.items ORDER BY shop, id;

-- DELETE by key and by scan.
DELETE FROM imported.items WHERE shop = 'north' AND id = 2;
DELETE FROM imported.items WHERE name = 'cheese' RETURNING shop, id;
SELECT * FROM imported.items ORDER BY shop, id;

-- Batch insert: many rows, one atomic write at commit.
INSERT INTO imported.items SELECT 'bulk', g, 'item ' || g, g / 10.0, NULL FROM generate_series(1, 2500) g;
SELECT count(*), sum(price), min(name), max(id) FROM imported.items WHERE shop = 'bulk';

-- COPY FROM into a foreign table.
COPY imported.items (shop, id, name, price, tags) FROM stdin;
copied	1	first copied	1.5	{a,b}
copied	2	second copied	\N	\N
\.
SELECT * FROM imported.items WHERE shop = 'copied' ORDER BY id;

-- Nothing is written until COMMIT; ROLLBACK writes nothing.
BEGIN;
INSERT INTO imported.items VALUES ('tx', 1, 'rolled back', 1, NULL);
DELETE FROM imported.items WHERE shop = 'bulk';
ROLLBACK;
SELECT count(*) FROM imported.items WHERE shop = 'tx';
SELECT count(*) FROM imported.items WHERE shop = 'bulk';
-- A failing statement aborts the transaction and everything before it.
BEGIN;
INSERT INTO imported.items VALUES ('tx', 2, 'lost', 1, NULL);
SELECT 1 / 0;
COMMIT;
SELECT count(*) FROM imported.items WHERE shop = 'tx';
-- Savepoints: a rolled back savepoint drops only its own writes.
BEGIN;
INSERT INTO imported.items VALUES ('tx', 3, 'kept', 3, NULL);
SAVEPOINT s1;
INSERT INTO imported.items VALUES ('tx', 4, 'dropped', 4, NULL);
ROLLBACK TO SAVEPOINT s1;
SAVEPOINT s2;
INSERT INTO imported.items VALUES ('tx', 5, 'kept too', 5, NULL);
RELEASE SAVEPOINT s2;
COMMIT;
SELECT shop, id, name FROM imported.items WHERE shop = 'tx' ORDER BY id;
-- Later statements of a transaction win over earlier ones on the same row.
BEGIN;
INSERT INTO imported.items VALUES ('tx', 6, 'first', 6, '{a}');
UPDATE imported.items SET name = 'second' WHERE shop = 'tx' AND id = 3;
INSERT INTO imported.items VALUES ('tx', 3, 'third', NULL, NULL);
DELETE FROM imported.items WHERE shop = 'tx' AND id = 5;
INSERT INTO imported.items (shop, id, name) VALUES ('tx', 5, 'reborn');
COMMIT;
SELECT * FROM imported.items WHERE shop = 'tx' ORDER BY id;

-- Static columns go to the partition's static row.
INSERT INTO imported.stat VALUES (3, 1, 'static three', 'x'), (3, 2, NULL, 'y');
UPDATE imported.stat SET s = 'new static' WHERE p = 3 AND c = 2;
SELECT * FROM imported.stat WHERE p = 3 ORDER BY c;

-- TRUNCATE, also transactional.
BEGIN;
TRUNCATE imported.items;
SELECT count(*) FROM imported.items;
ROLLBACK;
SELECT count(*) > 0 AS still_there FROM imported.items;
TRUNCATE imported.items;
SELECT count(*) FROM imported.items;
SELECT cql('SELECT count(*) FROM app.items');

-- A partition's static columns alone, without clustering values, as CQL allows: the static
-- row only (the partition reads as one row with a NULL clustering column). Anything else
-- without clustering values is refused, and nothing of the statement is written.
INSERT INTO imported.stat (p, s) VALUES (4, 'static only');
SELECT * FROM imported.stat WHERE p = 4;
SELECT cql('SELECT p, c, s, v FROM app.stat WHERE p = 4');
UPDATE imported.stat SET s = 'static updated' WHERE p = 4;
SELECT * FROM imported.stat WHERE p = 4;
INSERT INTO imported.stat (p, c, s, v) VALUES (4, 1, NULL, 'row one');
SELECT * FROM imported.stat WHERE p = 4 ORDER BY c;
INSERT INTO imported.stat (p, s, v) VALUES (5, 'static', 'a row needs c');
INSERT INTO imported.stat (p) VALUES (5);
UPDATE imported.stat SET v = 'no row to update' WHERE p = 4 AND c IS NULL;
SELECT count(*) FROM imported.stat WHERE p = 5;

-- A DELETE of a partition that has only its static row deletes the static row, as CQL's DELETE
-- of the partition would leave it (issue 22).
INSERT INTO imported.stat (p, s) VALUES (6, 'static alone');
DELETE FROM imported.stat WHERE p = 6 RETURNING *;
SELECT count(*) FROM imported.stat WHERE p = 6;
SELECT cql('SELECT p, s FROM app.stat WHERE p = 6');

-- RETURNING reports the row as a SELECT reads it back, not the values as given: a timestamp
-- keeps milliseconds, a set its distinct elements in order, an empty collection is NULL
-- (issue 22).
SELECT cql('CREATE TABLE app.stored (k int, ts timestamp, at timestamp, tags set<text>, marks list<int>, PRIMARY KEY (k, ts))');
IMPORT FOREIGN SCHEMA app LIMIT TO (stored) FROM SERVER cassette INTO imported;
INSERT INTO imported.stored (k, ts, at, tags, marks)
  VALUES (1, '2024-01-01 10:00:00.123456+00', '2024-01-01 10:00:00.987654+00', '{b,a,b}', '{}')
  RETURNING *;
SELECT * FROM imported.stored;
UPDATE imported.stored SET at = '2024-02-02 00:00:00.000999+00', tags = '{}', marks = '{3,3}'
  WHERE k = 1 RETURNING *;
SELECT * FROM imported.stored;
