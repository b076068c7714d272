-- An indexed column read through the index's storage-attached components: the plan says
-- "index", and cql_index_reads() counts the reads the components answered. Rows written after
-- the flush (memtable) and values overwritten after it (stale index entries) come out right.
.bail off
.headers off
.load ./cassette
CREATE VIRTUAL TABLE users USING cql(id int PRIMARY KEY, email text, age int);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO users SELECT i, 'user' || i || '@example.com', i % 90 FROM n;
SELECT cql('CREATE INDEX users_email ON main.users (email)');
SELECT cql_flush();
.print '== the plan reads the index'
EXPLAIN QUERY PLAN SELECT id FROM users WHERE email = 'user1234@example.com';
CREATE TEMP TABLE before AS SELECT cql_index_reads() AS n;
SELECT id, age FROM users WHERE email = 'user1234@example.com';
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
.print '== a row in the memtable, a value overwritten since the flush'
INSERT INTO users VALUES (5000, 'new@example.com', 1);
UPDATE users SET email = 'moved@example.com' WHERE id = 7;
SELECT id FROM users WHERE email = 'new@example.com';
SELECT count(*) FROM users WHERE email = 'user7@example.com';
SELECT id FROM users WHERE email = 'moved@example.com';
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
.print '== the same through cql(): CQL SELECT reads the index too'
SELECT cql('SELECT id FROM main.users WHERE email = ''user99@example.com''');
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
.print '== IN on the indexed column: one index read, a term per value (SQLite hands the list over)'
EXPLAIN QUERY PLAN SELECT id FROM users WHERE email IN ('user5@example.com', 'new@example.com');
DELETE FROM before;
INSERT INTO before SELECT cql_index_reads();
SELECT id FROM users WHERE email IN ('user5@example.com', 'new@example.com', 'user7@example.com', 'none') ORDER BY id;
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
.print '== ranges on the indexed number column: BETWEEN reads the index (a term range), one bound scans'
SELECT cql('CREATE INDEX users_age ON main.users (age)');
EXPLAIN QUERY PLAN SELECT id FROM users WHERE age BETWEEN 10 AND 11;
EXPLAIN QUERY PLAN SELECT id FROM users WHERE age > 10;
DELETE FROM before;
INSERT INTO before SELECT cql_index_reads();
SELECT count(*), min(id), max(id) FROM users WHERE age BETWEEN 10 AND 11;
SELECT count(*) FROM users WHERE age >= 88 AND age < 89;
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
SELECT count(*) FROM users WHERE age > 80;
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
.print '== an index with text analysis: SQL = reads it with the value analyzed, and keeps exact matches'
CREATE VIRTUAL TABLE names USING cql(id int PRIMARY KEY, name text);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO names SELECT i, 'name' || i FROM n;
INSERT INTO names VALUES (1001, 'Éclair'), (1002, 'ECLAIR'), (1003, 'eclair'), (1004, 'Eclair');
SELECT cql('CREATE CUSTOM INDEX names_name ON main.names (name) USING ''sai'' WITH OPTIONS = {''case_sensitive'': ''false'', ''normalize'': ''true'', ''ascii'': ''true''}');
SELECT cql_flush();
INSERT INTO names VALUES (1005, 'éclair');
EXPLAIN QUERY PLAN SELECT id FROM names WHERE name = 'eclair';
DELETE FROM before;
INSERT INTO before SELECT cql_index_reads();
SELECT id FROM names WHERE name = 'eclair';
SELECT id FROM names WHERE name = 'éclair';
SELECT id FROM names WHERE name IN ('ECLAIR', 'Éclair', 'name7') ORDER BY id;
SELECT count(*) FROM names WHERE name = 'ÉCLAIR';
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
.print '== CQL = on the same index matches the analyzed value (Cassandra 5.0)'
SELECT cql('SELECT id FROM main.names WHERE name = ''ÉCLAIR''');
.print '== indexed columns of three tables read in turn, each column 1 of its table: each read with its own type and analysis'
CREATE VIRTUAL TABLE codes USING cql(id int PRIMARY KEY, code int);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
INSERT INTO codes SELECT i, i * 7 FROM n;
SELECT cql('CREATE INDEX codes_code ON main.codes (code)');
SELECT cql_flush();
DELETE FROM before;
INSERT INTO before SELECT cql_index_reads();
SELECT id FROM codes WHERE code = 707;
SELECT id FROM users WHERE email = 'user1234@example.com';
SELECT id FROM names WHERE name = 'ECLAIR';
SELECT id FROM codes WHERE code = 1400;
SELECT id FROM names WHERE name = 'eclair';
SELECT id FROM users WHERE email = 'user99@example.com';
SELECT cql_index_reads() - (SELECT n FROM before) AS index_reads;
