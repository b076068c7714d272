-- A transaction past the store's transaction_spill_bytes (64 MiB of pending writes: here 300,000
-- rows of ~290 bytes) writes sorted runs to disk and reads them where they are: the statements
-- after the spill see its writes (a count, a point read, UPDATE and DELETE scans, an INSERT ...
-- SELECT reading the rows of the statements before it), and the commit leaves what they read.
SELECT cql('CREATE TABLE app.spilled (source text, ts int, payload text, PRIMARY KEY (source, ts))');
IMPORT FOREIGN SCHEMA app LIMIT TO (spilled) FROM SERVER cassette INTO imported;
INSERT INTO imported.spilled VALUES ('small', 1, 'before');
BEGIN;
INSERT INTO imported.spilled
SELECT 's' || (i % 100), i, lpad(i::text, 250, '0') FROM generate_series(0, 299999) AS i;
SELECT count(*) AS in_transaction FROM imported.spilled;
SELECT source, ts, right(payload, 6) AS payload_end FROM imported.spilled
WHERE source = 's42' AND ts = 1042;
UPDATE imported.spilled SET payload = 'updated' WHERE source = 's7' AND ts < 1000;
DELETE FROM imported.spilled WHERE source = 's8';
SELECT count(*) AS after_changes, count(*) FILTER (WHERE payload = 'updated') AS updated
FROM imported.spilled;
SELECT ts, payload FROM imported.spilled WHERE source = 's7' AND ts < 300 ORDER BY ts;
-- A statement that writes what it reads.
INSERT INTO imported.spilled SELECT 'copy', ts, payload FROM imported.spilled WHERE source = 's7';
SELECT count(*) AS copies FROM imported.spilled WHERE source = 'copy';
COMMIT;
SELECT count(*) AS committed, count(*) FILTER (WHERE payload = 'updated') AS updated,
       count(DISTINCT source) AS sources
FROM imported.spilled;
DROP FOREIGN TABLE imported.spilled;
SELECT cql('DROP TABLE app.spilled');
