-- PRAGMA integrity_check of a database with cql virtual tables connected finds nothing wrong.
-- It counts every index of every table as a b-tree of the file, virtual tables' included
-- (SQLite 3.40): declaring a virtual table's key as PRIMARY KEY (...) gives it an index whose
-- root page is an arbitrary number, reported as "2nd reference to page N" or "invalid page
-- number N". So the declaration names no key (cql_table_create.cc).
.bail off
.load ./cassette
CREATE TABLE plain(x);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO plain SELECT randomblob(100) FROM n;
CREATE VIRTUAL TABLE compound USING cql(a text, b int, v text, PRIMARY KEY ((a, b), v));
CREATE VIRTUAL TABLE single_int USING cql(k int PRIMARY KEY, v text);
CREATE VIRTUAL TABLE single_text USING cql(k text PRIMARY KEY, v int);
SELECT count(*) FROM compound, single_int, single_text;
PRAGMA integrity_check;
PRAGMA quick_check;
