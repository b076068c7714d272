-- A materialized view made by CQL (cql()), read in SQLite as a table; writes keep it in the
-- same commit, whether cql() or SQLite's own INSERT/UPDATE/DELETE on the base table made them,
-- inside a SQL transaction too; SQLite's writes to the view itself are refused.
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
.print '== SQLite writes to the view are refused'
INSERT INTO by_country (country, id, name) VALUES ('es', 9, 'Di');
DELETE FROM by_country;
UPDATE by_country SET name = 'Eve';
.print '== SQLite writes to the base keep it'
INSERT INTO users (id, country, name) VALUES (9, 'es', 'Di');
UPDATE users SET name = 'Eve' WHERE id = 1;
SELECT * FROM by_country ORDER BY country, id;
.print '== a view key change moves the view row; a NULL view key has none'
UPDATE users SET country = 'pt' WHERE id = 9;
SELECT * FROM by_country ORDER BY country, id;
UPDATE users SET country = NULL WHERE id = 9;
SELECT * FROM by_country ORDER BY country, id;
UPDATE users SET country = 'es' WHERE id = 9;
DELETE FROM users WHERE id = 1;
SELECT * FROM by_country ORDER BY country, id;
.print '== in a transaction: insert, then change the view key twice; read before the commit'
BEGIN;
INSERT INTO users (id, country, name) VALUES (10, 'uk', 'Fay');
UPDATE users SET country = 'ie' WHERE id = 10;
SELECT * FROM by_country ORDER BY country, id;
UPDATE users SET country = 'mt', name = 'Fay2' WHERE id = 10;
COMMIT;
SELECT * FROM by_country ORDER BY country, id;
.print '== in a transaction: delete, then insert again with the same and with another view key'
BEGIN;
DELETE FROM users WHERE id = 9;
INSERT INTO users (id, country, name) VALUES (9, 'es', 'Di2');
DELETE FROM users WHERE id = 10;
INSERT INTO users (id, country, name) VALUES (10, 'nl', 'Fay3');
COMMIT;
SELECT * FROM by_country ORDER BY country, id;
.print '== ROLLBACK: base and view unchanged'
BEGIN;
INSERT INTO users (id, country, name) VALUES (11, 'se', 'Gus');
UPDATE users SET country = 'fi' WHERE id = 9;
DELETE FROM users WHERE id = 10;
SELECT * FROM by_country ORDER BY country, id;
ROLLBACK;
SELECT * FROM users ORDER BY id;
SELECT * FROM by_country ORDER BY country, id;
.print '== ROLLBACK TO a savepoint undoes the view rows with their base rows'
BEGIN;
UPDATE users SET country = 'be' WHERE id = 9;
SAVEPOINT s;
UPDATE users SET country = 'lu' WHERE id = 9;
INSERT INTO users (id, country, name) VALUES (12, 'at', 'Hal');
ROLLBACK TO s;
COMMIT;
SELECT * FROM by_country ORDER BY country, id;
.print '== INSERT OR IGNORE: an existing row changes neither table'
INSERT OR IGNORE INTO users (id, country, name) VALUES (9, 'zz', 'No'), (13, 'ch', 'Ivy');
SELECT * FROM by_country ORDER BY country, id;
.print '== the view as CQL reads it agrees'
SELECT cql('SELECT country, id, name FROM shop.by_country WHERE country = ''be''') AS result;
SELECT cql('SELECT count(*) FROM shop.by_country') AS result;
.print '== timestamped writes (cql_timestamp) and deletes (cql() USING TIMESTAMP) keep the view as Cassandra 5.0 does'
SELECT cql('CREATE TABLE shop.stamped (k int, c int, a int, b int, e int, PRIMARY KEY (k, c))') AS result;
SELECT cql('CREATE MATERIALIZED VIEW shop.stamped_v AS SELECT a, b, c, k FROM shop.stamped WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (k, c)') AS result;
SELECT cql('CREATE MATERIALIZED VIEW shop.stamped_by_a AS SELECT * FROM shop.stamped WHERE k IS NOT NULL AND c IS NOT NULL AND a IS NOT NULL PRIMARY KEY (a, k, c)') AS result;
CREATE VIRTUAL TABLE stamped USING cql(table = 'shop.stamped');
CREATE VIRTUAL TABLE stamped_v USING cql(table = 'shop.stamped_v');
CREATE VIRTUAL TABLE stamped_by_a USING cql(table = 'shop.stamped_by_a');
.print '-- a row alive only by an unselected cell, which a delete at the same timestamp removes'
SELECT cql('UPDATE shop.stamped USING TIMESTAMP 18 SET e = 1 WHERE k = 1 AND c = 1') AS result;
SELECT * FROM stamped_v;
UPDATE stamped SET e = NULL, cql_timestamp = 18 WHERE k = 1 AND c = 1;
SELECT count(*) AS base_rows FROM stamped;
SELECT count(*) AS view_rows FROM stamped_v;
.print '-- an older write after it shows in both (no row tombstone in the view)'
INSERT INTO stamped (k, c, a, cql_timestamp) VALUES (1, 1, 7, 16);
SELECT k, c, a, b, writetime_a FROM stamped;
SELECT k, c, a, b, writetime_a FROM stamped_v;
SELECT a, k, c, b FROM stamped_by_a;
.print '-- a base row deleted at a newer timestamp than a later write: no view row'
SELECT cql('DELETE FROM shop.stamped USING TIMESTAMP 30 WHERE k = 2 AND c = 2') AS result;
INSERT INTO stamped (k, c, a, cql_timestamp) VALUES (2, 2, 5, 20);
SELECT count(*) AS base_rows FROM stamped WHERE k = 2;
SELECT count(*) AS view_rows FROM stamped_v WHERE k = 2;
SELECT count(*) AS view_rows FROM stamped_by_a WHERE a = 5;
.print '-- the view key moves and comes back: the cells keep their write times'
BEGIN;
UPDATE stamped SET a = 8, cql_timestamp = 40 WHERE k = 1 AND c = 1;
UPDATE stamped SET a = 7, cql_timestamp = 41 WHERE k = 1 AND c = 1;
COMMIT;
INSERT INTO stamped (k, c, b, cql_timestamp) VALUES (1, 1, 3, 17);
SELECT k, c, a, b, writetime_b FROM stamped;
SELECT a, k, c, b, writetime_b FROM stamped_by_a;
SELECT count(*) AS moved_away FROM stamped_by_a WHERE a = 8;
