-- A materialized view (made by cql()) imported as a foreign table: read like any table, written
-- never; writes keep it in the same commit, whether cql() or the base table's own foreign table
-- made them, in a transaction block too.
SET datestyle = ISO;
SET timezone = 'UTC';
SELECT cql('CREATE TABLE app.people (id int PRIMARY KEY, city text, name text)');
SELECT cql($$INSERT INTO app.people (id, city, name) VALUES (1, 'Oslo', 'Ada')$$);
SELECT cql($$CREATE MATERIALIZED VIEW app.people_by_city AS SELECT * FROM app.people
             WHERE city IS NOT NULL AND id IS NOT NULL PRIMARY KEY (city, id)$$);
CREATE SCHEMA viewed;
IMPORT FOREIGN SCHEMA app LIMIT TO (people, people_by_city) FROM SERVER cassette INTO viewed;
\d viewed.people_by_city
SELECT * FROM viewed.people_by_city;
SELECT cql($$INSERT INTO app.people (id, city, name) VALUES (2, 'Oslo', 'Bob')$$);
SELECT cql($$UPDATE app.people SET city = 'Bergen' WHERE id = 1$$);
SELECT * FROM viewed.people_by_city ORDER BY city, id;
SELECT * FROM viewed.people_by_city WHERE city = 'Oslo';
-- writes through the view's foreign table are refused
INSERT INTO viewed.people_by_city VALUES ('Rome', 3, 'Cy');
DELETE FROM viewed.people_by_city;
UPDATE viewed.people_by_city SET name = 'Eve';
TRUNCATE viewed.people_by_city;
-- the base table's foreign-table writes keep the view
INSERT INTO viewed.people VALUES (3, 'Rome', 'Cy');
UPDATE viewed.people SET name = 'Eve' WHERE id = 1;
SELECT * FROM viewed.people_by_city ORDER BY city, id;
UPDATE viewed.people SET city = 'Milan' WHERE id = 3;
DELETE FROM viewed.people WHERE id = 2;
SELECT * FROM viewed.people_by_city ORDER BY city, id;
UPDATE viewed.people SET city = NULL WHERE id = 3;
SELECT * FROM viewed.people_by_city ORDER BY city, id;
-- in a transaction block: several writes to one row, read before the commit
BEGIN;
INSERT INTO viewed.people VALUES (5, 'Paris', 'Fay');
UPDATE viewed.people SET city = 'Lyon' WHERE id = 5;
DELETE FROM viewed.people WHERE id = 3;
INSERT INTO viewed.people VALUES (3, 'Turin', 'Cy2');
SELECT * FROM viewed.people_by_city ORDER BY city, id;
UPDATE viewed.people SET city = 'Nantes', name = 'Fay2' WHERE id = 5;
COMMIT;
SELECT * FROM viewed.people_by_city ORDER BY city, id;
-- ROLLBACK leaves the base table and the view as they were
BEGIN;
UPDATE viewed.people SET city = 'Nice' WHERE id = 5;
INSERT INTO viewed.people VALUES (6, 'Oslo', 'Gus');
DELETE FROM viewed.people WHERE id = 1;
SELECT * FROM viewed.people_by_city ORDER BY city, id;
ROLLBACK;
SELECT * FROM viewed.people ORDER BY id;
SELECT * FROM viewed.people_by_city ORDER BY city, id;
-- cql() in a transaction block: the base row and its view row commit together, or not at all
BEGIN;
SELECT cql($$INSERT INTO app.people (id, city, name) VALUES (4, 'Rome', 'Di')$$);
ROLLBACK;
SELECT count(*) FROM viewed.people_by_city WHERE city = 'Rome';
BEGIN;
SELECT cql($$INSERT INTO app.people (id, city, name) VALUES (4, 'Rome', 'Di')$$);
COMMIT;
SELECT * FROM viewed.people_by_city WHERE city = 'Rome';
-- TRUNCATE of the base table empties its view too
TRUNCATE viewed.people;
SELECT count(*) FROM viewed.people_by_city;
SELECT cql('SELECT count(*) FROM app.people_by_city');
-- timestamped writes and deletes (cql() USING TIMESTAMP, in a transaction block with the
-- foreign tables' writes, and outside one) keep the view as Cassandra 5.0 does
SELECT cql('CREATE TABLE app.stamped (p int PRIMARY KEY, v1 int, v2 int)');
SELECT cql($$CREATE MATERIALIZED VIEW app.stamped_by_v1 AS SELECT * FROM app.stamped
             WHERE p IS NOT NULL AND v1 IS NOT NULL PRIMARY KEY (v1, p)$$);
IMPORT FOREIGN SCHEMA app LIMIT TO (stamped, stamped_by_v1) FROM SERVER cassette INTO viewed;
SELECT cql('INSERT INTO app.stamped (p, v1, v2) VALUES (1, 1, 1) USING TIMESTAMP 1');
INSERT INTO viewed.stamped VALUES (2, 2, 2);
-- a write older than the row's deletion leaves no view row, in a transaction block too
BEGIN;
SELECT cql('DELETE FROM app.stamped USING TIMESTAMP 5 WHERE p = 1');
SELECT cql('INSERT INTO app.stamped (p, v1) VALUES (1, 3) USING TIMESTAMP 3');
SELECT * FROM viewed.stamped_by_v1 ORDER BY v1, p;
COMMIT;
SELECT * FROM viewed.stamped ORDER BY p;
SELECT * FROM viewed.stamped_by_v1 ORDER BY v1, p;
-- the view row moves and comes back; a cell written later with a timestamp older than the
-- moves shows in it as in the base table, with its own write time
SELECT cql('UPDATE app.stamped USING TIMESTAMP 6 SET v1 = 4 WHERE p = 1');
SELECT cql('UPDATE app.stamped USING TIMESTAMP 7 SET v1 = 9 WHERE p = 1');
SELECT cql('UPDATE app.stamped USING TIMESTAMP 8 SET v1 = 4 WHERE p = 1');
BEGIN;
SELECT cql('UPDATE app.stamped USING TIMESTAMP 6 SET v2 = 6 WHERE p = 1');
UPDATE viewed.stamped SET v2 = 7 WHERE p = 2;
COMMIT;
SELECT cql('SELECT v1, p, v2, writetime(v2) FROM app.stamped WHERE p = 1');
SELECT cql('SELECT v1, p, v2, writetime(v2) FROM app.stamped_by_v1 WHERE v1 = 4 AND p = 1');
SELECT * FROM viewed.stamped_by_v1 ORDER BY v1, p;
SELECT cql('DROP MATERIALIZED VIEW app.stamped_by_v1');
SELECT cql('DROP TABLE app.stamped');
SELECT cql('DROP MATERIALIZED VIEW app.people_by_city');
SELECT cql('DROP TABLE app.people');
DROP SCHEMA viewed CASCADE;
