-- A transaction past transaction_spill_bytes (64 MiB of pending writes: here 300,000 rows of
-- ~290 bytes, then rows written again) writes sorted runs to data/ (tmp-<pid>-spill-<n>.run)
-- and commits by merging them into SSTables: the rows written twice keep the later write, a
-- ROLLBACK removes the runs, and nothing is visible or left on disk before or after.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE events USING cql(source text, ts int, payload text, PRIMARY KEY (source, ts));
INSERT INTO events VALUES ('small', 1, 'before');
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
.shell ls test.db.cassette/data | grep -c 'spill' || true
ROLLBACK;
.shell ls test.db.cassette/data | grep -c 'spill' || true
SELECT count(*) AS after_rollback FROM events;
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
SELECT 's7', i * 100 + 7, 'written twice' FROM n;
.shell ls test.db.cassette/data | grep -c 'spill' || true
COMMIT;
.shell ls test.db.cassette/data | grep -c 'spill' || true
.shell test $(du -sb test.db.cassette/log | cut -f1) -lt 1000000 && echo log under 1 MB || echo log over 1 MB
SELECT count(*) AS committed, sum(ts) AS sum_ts, count(DISTINCT source) AS sources FROM events;
SELECT count(*) AS written_twice FROM events WHERE payload = 'written twice';
SELECT source, ts, substr(payload, -13) AS payload_end FROM events
WHERE source IN ('s7', 's8', 'small') AND ts < 300;
.open test.db
.load ./cassette
SELECT count(*) AS reopened, sum(length(payload)) AS payload_bytes FROM events;
