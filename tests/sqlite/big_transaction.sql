-- A transaction of over 64 MiB of entries (here 300,000 rows of ~290 bytes) commits as SSTables
-- installed by one MANIFEST change, not as a commit-log record: one new .sst file, the log
-- stays small. It reads its own writes before COMMIT, a ROLLBACK of one leaves nothing, and
-- its rows survive reopening.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE events USING cql(source text, ts int, payload text, PRIMARY KEY (source, ts));
INSERT INTO events VALUES ('small', 1, 'before');
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
SELECT count(*) AS rolled_back_inside FROM events;
ROLLBACK;
SELECT count(*) AS after_rollback FROM events;
.shell ls test.db.cassette/data | grep -c '\.sst$' || true
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
UPDATE events SET payload = 'written twice' WHERE source = 's7' AND ts = 7;
SELECT count(*) AS inside FROM events;
COMMIT;
.shell ls test.db.cassette/data | grep -c '\.sst$' || true
.shell test $(du -sb test.db.cassette/log | cut -f1) -lt 1000000 && echo log under 1 MB || echo log over 1 MB
SELECT count(*) AS committed, sum(ts) AS sum_ts, count(DISTINCT source) AS sources FROM events;
SELECT source, ts, substr(payload, -13) AS payload_end FROM events
WHERE source IN ('s7', 'small') AND ts < 200;
UPDATE events SET payload = 'after the commit' WHERE source = 's99' AND ts = 299999;
.open test.db
.load ./cassette
SELECT count(*) AS reopened, sum(length(payload)) AS payload_bytes FROM events;
SELECT source, ts, substr(payload, -16) AS payload_end FROM events
WHERE source = 's99' AND ts > 299800;
