-- Storage-attached indexes read by PostgreSQL's scans: =, IN and ranges (<, <=, >, >=, BETWEEN)
-- on an indexed number or date column are index reads when the engine's planner finds them
-- cheaper than the scan (EXPLAIN: "filtered scan on indexed (...)"), the restriction then the
-- engine's; the rows are the same either way.
SET datestyle = ISO;
SELECT cql('CREATE TABLE app.people (id int PRIMARY KEY, name text, age int, born date)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (people) FROM SERVER cassette INTO imported;
INSERT INTO imported.people (id, name, age, born)
  SELECT g, 'p' || g, g % 100, '2000-01-01'::date + g FROM generate_series(1, 2000) g;
SELECT cql($$CREATE CUSTOM INDEX people_age ON app.people (age) USING 'sai'$$, 'cassette');
SELECT cql('CREATE INDEX people_born ON app.people (born)', 'cassette');
-- Equality and IN: one term per value.
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.people WHERE age = 42;
SELECT count(*), min(id), max(id) FROM imported.people WHERE age = 42;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.people WHERE age IN (7, 8);
SELECT count(*) FROM imported.people WHERE age IN (7, 8);
-- A two-sided range: one term range.
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.people WHERE age BETWEEN 10 AND 11;
SELECT count(*), min(id), max(id) FROM imported.people WHERE age BETWEEN 10 AND 11;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id, born FROM imported.people WHERE born >= '2000-02-01' AND born < '2000-02-04';
SELECT id, born FROM imported.people WHERE born >= '2000-02-01' AND born < '2000-02-04' ORDER BY id;
SELECT id FROM imported.people WHERE age > 98 AND age <= 99 AND id < 300 ORDER BY id;
-- One bound keeps a quarter of the rows (the engine's guess): the scan costs less.
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.people WHERE age > 90;
SELECT count(*) FROM imported.people WHERE age > 90;
-- An unindexed column stays PostgreSQL's filter.
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.people WHERE name = 'p7';
-- Rows written later and overwritten ones: the index re-checked against the current rows.
UPDATE imported.people SET age = 1000 WHERE id = 10;
INSERT INTO imported.people (id, name, age, born) VALUES (5000, 'late', 11, '1999-12-31');
SELECT id FROM imported.people WHERE age BETWEEN 10 AND 11 ORDER BY id LIMIT 5;
SELECT id FROM imported.people WHERE age = 1000;
-- Without the index: a scan again, the same rows.
SELECT cql('DROP INDEX app.people_age', 'cassette');
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.people WHERE age BETWEEN 10 AND 11;
SELECT count(*) FROM imported.people WHERE age BETWEEN 10 AND 11;
DROP FOREIGN TABLE imported.people;
SELECT cql('DROP TABLE app.people', 'cassette');
-- An index with text analysis (case_sensitive/normalize/ascii): = and IN read it with the values
-- analyzed as its terms are (EXPLAIN ANALYZE: "Cassette Index Reads"), and keep the rows equal
-- as written; CQL's = through the same index matches the analyzed value.
SELECT cql('CREATE TABLE app.names (id int PRIMARY KEY, name text)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (names) FROM SERVER cassette INTO imported;
INSERT INTO imported.names (id, name) SELECT g, 'name' || g FROM generate_series(1, 500) g;
INSERT INTO imported.names (id, name)
  VALUES (1001, 'Éclair'), (1002, 'ECLAIR'), (1003, 'eclair'), (1004, 'Eclair');
SELECT cql($$CREATE CUSTOM INDEX names_name ON app.names (name) USING 'sai'
  WITH OPTIONS = {'case_sensitive': 'false', 'normalize': 'true', 'ascii': 'true'}$$, 'cassette');
INSERT INTO imported.names (id, name) VALUES (1005, 'éclair');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT id FROM imported.names WHERE name = 'eclair';
SELECT id FROM imported.names WHERE name = 'eclair';
SELECT id FROM imported.names WHERE name = 'éclair';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT id FROM imported.names WHERE name IN ('ECLAIR', 'Éclair', 'name7');
SELECT id FROM imported.names WHERE name IN ('ECLAIR', 'Éclair', 'name7') ORDER BY id;
SELECT count(*) FROM imported.names WHERE name = 'ÉCLAIR';
SELECT cql($$SELECT id FROM app.names WHERE name = 'ÉCLAIR'$$, 'cassette');
DROP FOREIGN TABLE imported.names;
SELECT cql('DROP TABLE app.names', 'cassette');
