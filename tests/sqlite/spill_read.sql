-- A transaction past transaction_spill_bytes (64 MiB of pending writes: here 300,000 rows of
-- ~290 bytes) reads its own writes where they are, in the sorted runs on disk: a count, a point
-- read, a slice both ways, an UPDATE and a DELETE of spilled rows, and reads after them. The runs
-- stay on disk through the reads (the spill file count does not drop to 0) until the COMMIT,
-- which leaves what the reads showed; before it, another connection sees none of it.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE events USING cql(source text, ts int, payload text, PRIMARY KEY (source, ts));
INSERT INTO events VALUES ('small', 1, 'before');
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
.shell ls test.db.cassette/data | grep -c 'spill' || true
SELECT count(*) AS in_transaction FROM events;
SELECT source, ts, substr(payload, -6) AS payload_end FROM events WHERE source = 's42' AND ts = 1042;
SELECT ts FROM events WHERE source = 's7' AND ts < 500;
SELECT ts FROM events WHERE source = 's7' AND ts > 299500 ORDER BY ts DESC;
UPDATE events SET payload = 'updated' WHERE source = 's7' AND ts < 1000;
DELETE FROM events WHERE source = 's8';
DELETE FROM events WHERE source = 'small';
.shell ls test.db.cassette/data | grep -c 'spill' || true
SELECT count(*) AS after_changes, sum(payload = 'updated') AS updated FROM events;
SELECT count(*) AS s8_rows FROM events WHERE source = 's8';
SELECT ts, payload FROM events WHERE source = 's7' AND ts < 300;
SELECT count(*) AS small_rows FROM events WHERE source = 'small';
.shell echo "SELECT count(*) AS seen_by_another FROM events;" | sqlite3 -cmd '.load ./cassette' test.db
COMMIT;
.shell ls test.db.cassette/data | grep -c 'spill' || true
SELECT count(*) AS committed, sum(payload = 'updated') AS updated, count(DISTINCT source) AS sources
FROM events;
SELECT ts, payload FROM events WHERE source = 's7' AND ts < 300;
