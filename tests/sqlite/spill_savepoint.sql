-- ROLLBACK TO a savepoint whose writes went to disk: past transaction_spill_bytes (64 MiB of
-- pending writes: here 300,000 rows of ~290 bytes) the log is written as sorted runs split at
-- the savepoints set inside it, so ROLLBACK TO drops the runs written after the savepoint and
-- keeps those before it, and the commit writes exactly what the savepoint left. The second
-- spill writes three runs: the rows before SAVEPOINT, the one row before the bulk INSERT's own
-- statement savepoint (SQLite sets one for a multi-row statement), and the bulk rows.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE events USING cql(source text, ts int, payload text, PRIMARY KEY (source, ts));
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
.shell ls test.db.cassette/data | grep -c 'spill' || true
SAVEPOINT rewrite;
INSERT INTO events VALUES ('kept', 1, 'before nothing');
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('undone%0244d', i) FROM n;
.shell ls test.db.cassette/data | grep -c 'spill' || true
ROLLBACK TO rewrite;
.shell ls test.db.cassette/data | grep -c 'spill' || true
INSERT INTO events VALUES ('kept', 2, 'after the rollback');
RELEASE rewrite;
COMMIT;
.shell ls test.db.cassette/data | grep -c 'spill' || true
SELECT count(*) AS committed, sum(ts) AS sum_ts, sum(payload LIKE 'undone%') AS undone FROM events;
SELECT source, ts, substr(payload, -13) AS payload_end FROM events
WHERE source IN ('kept', 's7') AND ts < 300;
