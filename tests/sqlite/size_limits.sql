-- Cassandra's size limits hold for SQL writes too: the update of one partition is at most
-- max_mutation_size (16 MiB) however many statements of a transaction make it, a key value at
-- most 65535 bytes. A write beyond them fails with Cassandra's message and writes nothing; a
-- transaction of many partitions may be larger in all.
.bail off
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int, c int, v blob, PRIMARY KEY (k, c));
.print '== one value of 17 MB'
INSERT INTO t VALUES (1, 1, zeroblob(17000000));
SELECT count(*) FROM t;
.print '== a transaction of 20 rows of 1 MB in one partition: refused at COMMIT'
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
  INSERT INTO t SELECT 1, i, zeroblob(1000000) FROM n;
COMMIT;
SELECT count(*) FROM t;
.print '== the same rows in 20 partitions: 20 MB in one transaction, 1 MB per partition'
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
  INSERT INTO t SELECT i, 1, zeroblob(1000000) FROM n;
COMMIT;
SELECT count(*), sum(length(v)) FROM t;
.print '== key values over 65535 bytes'
CREATE VIRTUAL TABLE keys USING cql(p text, c1 text, c2 int, v int, PRIMARY KEY (p, c1, c2));
INSERT INTO keys VALUES (printf('%.*c', 65536, 'x'), 'c', 1, 1);
INSERT INTO keys VALUES ('p', printf('%.*c', 65536, 'x'), 1, 1);
INSERT INTO keys VALUES ('p', printf('%.*c', 65535, 'x'), 1, 1);
SELECT length(p), length(c1), c2 FROM keys;
