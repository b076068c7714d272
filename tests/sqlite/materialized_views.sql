-- A materialized view made and kept by CQL (cql()), read in SQLite as a table; SQLite's own
-- writes refuse the view and its base table (they would not keep the view), while cql() writes,
-- inside a SQL transaction too, keep it in the same commit.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
SELECT cql('CREATE KEYSPACE shop WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS result;
SELECT cql('CREATE TABLE shop.users (id int PRIMARY KEY, country text, name text)') AS result;
SELECT cql('INSERT INTO shop.users (id, country, name) VALUES (1, ''fr'', ''Ada'')') AS result;
SELECT cql('CREATE MATERIALIZED VIEW shop.by_country AS SELECT * FROM shop.users WHERE country IS NOT NULL AND id IS NOT NULL PRIMARY KEY (country, id)') AS result;
CREATE VIRTUAL TABLE by_country USING cql(table = 'shop.by_country');
CREATE VIRTUAL TABLE users USING cql(table = 'shop.users');
.print '== the view, filled by its CREATE'
SELECT * FROM by_country;
.print '== writes through cql() keep it'
SELECT cql('INSERT INTO shop.users (id, country, name) VALUES (2, ''fr'', ''Bob'')') AS result;
SELECT cql('UPDATE shop.users SET country = ''de'' WHERE id = 1') AS result;
SELECT * FROM by_country WHERE country = 'fr';
SELECT * FROM by_country ORDER BY id;
.print '== inside a SQL transaction: one commit, or none'
BEGIN;
SELECT cql('INSERT INTO shop.users (id, country, name) VALUES (3, ''it'', ''Cy'')') AS result;
SELECT * FROM by_country WHERE country = 'it';
ROLLBACK;
SELECT count(*) AS after_rollback FROM by_country WHERE country = 'it';
BEGIN;
SELECT cql('DELETE FROM shop.users WHERE id = 2') AS result;
COMMIT;
SELECT * FROM by_country;
.print '== SQLite writes to the view or its base are refused'
INSERT INTO by_country (country, id, name) VALUES ('es', 9, 'Di');
DELETE FROM by_country;
INSERT INTO users (id, country, name) VALUES (9, 'es', 'Di');
UPDATE users SET name = 'Eve' WHERE id = 1;
SELECT * FROM users;
SELECT * FROM by_country;
