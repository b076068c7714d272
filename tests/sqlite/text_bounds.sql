-- Range bounds written as short or over-precise text on timestamp, date and time clustering
-- columns are pushed down, and select exactly the rows SQLite's own text comparison of the
-- column's canonical text would: each query is run on the CQL table and on a native copy.
.bail off
.headers off
.load ./cassette
CREATE VIRTUAL TABLE o USING cql(c int, placed timestamp, d date, v text, PRIMARY KEY (c, placed));
INSERT INTO o VALUES (1, '2023-12-31 23:00:00', '2023-12-31', 'z'), (1, '2024-01-01 10:00:00', '2024-01-01', 'a'), (1, '2024-01-02 00:00:00', '2024-01-02', 'b');
CREATE TABLE n AS SELECT * FROM o;
.print '== placed >= 2024-01-01'
SELECT group_concat(v) FROM o WHERE c = 1 AND placed >= '2024-01-01';
SELECT group_concat(v) FROM n WHERE c = 1 AND placed >= '2024-01-01';
.print '== placed > 2024-01-02 (the canonical text of midnight sorts after the prefix)'
SELECT group_concat(v) FROM o WHERE c = 1 AND placed > '2024-01-02';
SELECT group_concat(v) FROM n WHERE c = 1 AND placed > '2024-01-02';
.print '== placed <= 2024-01-02'
SELECT group_concat(v) FROM o WHERE c = 1 AND placed <= '2024-01-02';
SELECT group_concat(v) FROM n WHERE c = 1 AND placed <= '2024-01-02';
.print '== placed >= and < with more digits than the column keeps'
SELECT group_concat(v) FROM o WHERE c = 1 AND placed >= '2024-01-01 10:00:00.0001';
SELECT group_concat(v) FROM n WHERE c = 1 AND placed >= '2024-01-01 10:00:00.0001';
SELECT group_concat(v) FROM o WHERE c = 1 AND placed < '2024-01-01 10:00:00.0001';
SELECT group_concat(v) FROM n WHERE c = 1 AND placed < '2024-01-01 10:00:00.0001';
.print '== the bound is pushed down'
EXPLAIN QUERY PLAN SELECT v FROM o WHERE c = 1 AND placed > '2024-01-02';
