-- Cassandra's size limits through the wrapper: a transaction's update of one partition is at
-- most 16 MiB (max_mutation_size), a key value at most 65535 bytes. A write beyond them fails
-- with Cassandra's message and writes nothing; a transaction of many partitions may be larger.
\set VERBOSITY default
SELECT cql('CREATE TABLE app.sized (k int, c text, v blob, PRIMARY KEY (k, c))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (sized) FROM SERVER cassette INTO public;
-- one value of 17 MB
INSERT INTO sized VALUES (1, 'a', decode(repeat('00', 17000000), 'hex'));
SELECT count(*) FROM sized;
-- 20 rows of 1 MB in one partition, in one transaction: refused at COMMIT
BEGIN;
INSERT INTO sized SELECT 1, i::text, decode(repeat('00', 1000000), 'hex') FROM generate_series(1, 20) i;
COMMIT;
SELECT count(*) FROM sized;
-- the same rows in 20 partitions: 20 MB in one transaction, 1 MB per partition
INSERT INTO sized SELECT i, 'a', decode(repeat('00', 1000000), 'hex') FROM generate_series(1, 20) i;
SELECT count(*), sum(length(v)) FROM sized;
-- key values over 65535 bytes
INSERT INTO sized VALUES (1, repeat('x', 65536), NULL);
INSERT INTO sized VALUES (1, repeat('x', 65535), NULL);
SELECT count(*) FROM sized WHERE k = 1;
DROP FOREIGN TABLE sized;
SELECT cql('DROP TABLE app.sized', 'cassette');
