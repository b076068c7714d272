-- A materialized view (made and kept by cql()) imported as a foreign table: read like any table,
-- written never; the base table's own foreign-table writes are refused too (they would not keep
-- the view), while cql() writes keep it in the same commit.
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
-- writes through the foreign tables are refused
INSERT INTO viewed.people_by_city VALUES ('Rome', 3, 'Cy');
DELETE FROM viewed.people_by_city;
INSERT INTO viewed.people VALUES (3, 'Rome', 'Cy');
UPDATE viewed.people SET name = 'Eve' WHERE id = 1;
TRUNCATE viewed.people;
SELECT * FROM viewed.people ORDER BY id;
-- cql() in a transaction block: the base row and its view row commit together, or not at all
BEGIN;
SELECT cql($$INSERT INTO app.people (id, city, name) VALUES (4, 'Rome', 'Di')$$);
ROLLBACK;
SELECT count(*) FROM viewed.people_by_city WHERE city = 'Rome';
BEGIN;
SELECT cql($$INSERT INTO app.people (id, city, name) VALUES (4, 'Rome', 'Di')$$);
COMMIT;
SELECT * FROM viewed.people_by_city WHERE city = 'Rome';
SELECT cql('DROP MATERIALIZED VIEW app.people_by_city');
SELECT cql('DROP TABLE app.people');
DROP SCHEMA viewed CASCADE;
