-- Edge cases a PostgreSQL user meets: values beyond a CQL type's range in restrictions, ties
-- with FETCH FIRST, ON CONFLICT, the ends of PostgreSQL's and CQL's time ranges, and interval
-- arrays under any DateStyle and IntervalStyle.
SET datestyle = ISO;
SET timezone = 'UTC';
SET intervalstyle = postgres;
SELECT cql('CREATE TABLE app.edges (p int, c int, t tinyint, v text, PRIMARY KEY (p, c))', 'cassette');
SELECT cql('CREATE TABLE app.tiny (p int, c tinyint, v text, PRIMARY KEY (p, c))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (edges, tiny) FROM SERVER cassette INTO imported;
INSERT INTO imported.edges SELECT 1, g, g, 'v' || g FROM generate_series(-2, 2) g;
INSERT INTO imported.tiny VALUES (1, -128, 'min'), (1, 0, 'zero'), (1, 127, 'max');

-- A bound the column's type cannot hold: a slice that bounds nothing, or that keeps nothing,
-- and an equality that matches nothing (as the same comparison would in PostgreSQL).
SELECT c FROM imported.edges WHERE p = 1 AND c < 5000000000 ORDER BY c;
SELECT c FROM imported.edges WHERE p = 1 AND c >= -5000000000 AND c <= 0 ORDER BY c;
SELECT c FROM imported.edges WHERE p = 1 AND c > 5000000000;
SELECT c FROM imported.edges WHERE p = 1 AND c <= -5000000000;
SELECT c FROM imported.edges WHERE p = 1 AND c IN (1, 5000000000);
SELECT c FROM imported.edges WHERE p = 5000000000;
SELECT c FROM imported.tiny WHERE p = 1 AND c < 200::int2 ORDER BY c;
SELECT c FROM imported.tiny WHERE p = 1 AND c > -200 ORDER BY c;
SELECT c FROM imported.tiny WHERE p = 1 AND c >= 128;
SELECT c FROM imported.tiny WHERE p = 1 AND c = 300;
SET plan_cache_mode = force_generic_plan;
PREPARE below(bigint) AS SELECT count(*) FROM imported.edges WHERE p = 1 AND c < $1;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE below(10000000000);
EXECUTE below(10000000000);
EXECUTE below(-10000000000);
EXECUTE below(1);
RESET plan_cache_mode;

-- FETCH FIRST ... WITH TIES: the rows tying with the last one come too, so no limit goes down.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT p, c FROM imported.edges WHERE p = 1 ORDER BY p FETCH FIRST 2 ROWS WITH TIES;
SELECT p, c FROM imported.edges WHERE p = 1 ORDER BY p FETCH FIRST 2 ROWS WITH TIES;

-- ON CONFLICT DO NOTHING: a row whose primary key exists (committed, written earlier in the
-- transaction, or earlier in the same statement) is skipped instead of upserted.
INSERT INTO imported.edges VALUES (1, 0, 0, 'overwritten?') ON CONFLICT DO NOTHING;
INSERT INTO imported.edges VALUES (1, 0, 0, 'overwritten?'), (1, 9, 9, 'new'),
  (1, 9, 9, 'second in the statement') ON CONFLICT DO NOTHING RETURNING c, v;
INSERT INTO imported.edges SELECT 1, g, g, 'batch ' || g FROM generate_series(1, 11) g
  ON CONFLICT DO NOTHING;
BEGIN;
DELETE FROM imported.edges WHERE p = 1 AND c = 10;
INSERT INTO imported.edges VALUES (1, 10, 10, 'reinserted') ON CONFLICT DO NOTHING;
INSERT INTO imported.edges VALUES (1, 10, 10, 'again') ON CONFLICT DO NOTHING;
COMMIT;
SELECT c, v FROM imported.edges WHERE p = 1 ORDER BY c;
INSERT INTO imported.edges VALUES (1, 0, 0, 'x') ON CONFLICT (p, c) DO UPDATE SET v = 'y';
DELETE FROM imported.edges WHERE p = 1 AND c > 2;

-- Timestamps and dates at the ends of PostgreSQL's range are stored exactly; CQL values beyond
-- it are an error, not a wrapped-around value.
SELECT cql('CREATE TABLE app.far (k int PRIMARY KEY, ts timestamp, d date, tm time)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (far) FROM SERVER cassette INTO imported;
INSERT INTO imported.far (k, ts, d) VALUES (1, '294276-12-31 23:59:59.999999+00', '5874897-12-31'),
  (2, '4714-11-24 00:00:00+00 BC', '4714-11-24 BC');
SELECT k, ts, d FROM imported.far ORDER BY k;
SELECT cql('SELECT k, ts, d FROM app.far', 'cassette');
SELECT cql('INSERT INTO app.far (k, ts) VALUES (3, 9223372036854775807)', 'cassette');
SELECT ts FROM imported.far WHERE k = 3;
SELECT cql($$INSERT INTO app.far (k, d) VALUES (4, '-5877641-06-23')$$, 'cassette');
SELECT d FROM imported.far WHERE k = 4;
SELECT count(*) FROM imported.far WHERE k <= 2;
-- PostgreSQL's time 24:00:00 has no CQL equivalent.
INSERT INTO imported.far (k, tm) VALUES (5, '24:00:00');
INSERT INTO imported.far (k, tm) VALUES (5, '23:59:59.999999');
SELECT tm FROM imported.far WHERE k = 5;

-- Arrays of intervals and timestamps, written back whatever the session's styles.
SELECT cql('CREATE TABLE app.spans (k int PRIMARY KEY, ds list<duration>, ts list<timestamp>, dt set<date>)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (spans) FROM SERVER cassette INTO imported;
INSERT INTO imported.spans (k, ds, ts, dt) VALUES (1, ARRAY['1 year 2 mons 3 days 04:05:06.007'::interval,
  '-1 day -01:00:00', '0', '00:00:00.000001'], ARRAY['2024-02-29 13:14:15.678+00'::timestamptz],
  ARRAY['2024-01-02'::date]);
SELECT ds, ts, dt FROM imported.spans WHERE k = 1;
SELECT cql('SELECT ds, ts, dt FROM app.spans WHERE k = 1', 'cassette');
SET datestyle = 'SQL, DMY';
SET intervalstyle = 'iso_8601';
UPDATE imported.spans SET ds = ds || '-2 hours'::interval, ts = ts || '2024-03-01 00:00:00+00'::timestamptz,
  dt = dt || '2024-12-25'::date WHERE k = 1;
SET datestyle = ISO;
SET intervalstyle = postgres;
SELECT ds, ts, dt FROM imported.spans WHERE k = 1;
SELECT cql('SELECT ds, ts, dt FROM app.spans WHERE k = 1', 'cassette');
INSERT INTO imported.spans (k, ds) VALUES (2, ARRAY['1 mon -1 day'::interval]);

-- Keys whose PostgreSQL equality is not CQL's identity are filtered by PostgreSQL, not looked
-- up: -0 = 0 for floats (two keys in CQL), 1.5 = 1.50 for numeric.
SELECT cql('CREATE TABLE app.fkeys (p double, c double, de decimal, v int, PRIMARY KEY (p, c, de))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (fkeys) FROM SERVER cassette INTO imported;
INSERT INTO imported.fkeys VALUES (0, 0, 1.5, 1), ('-0', '-0', 1.50, 2), ('-0', 1, 1.5, 3),
  ('NaN', 'NaN', 1, 4), (0, '-0', 2, 5);
EXPLAIN (VERBOSE, COSTS OFF) SELECT v FROM imported.fkeys WHERE p = 0 AND c >= 0 AND de = 1.5;
SELECT v FROM imported.fkeys WHERE p = 0 ORDER BY v;
SELECT v FROM imported.fkeys WHERE p = 0 AND c >= 0 AND de = 1.5 ORDER BY v;
SELECT v FROM imported.fkeys WHERE p = 'NaN' AND c = 'NaN';
SELECT p, count(*) FROM imported.fkeys GROUP BY p ORDER BY p;

-- CQL text may hold a NUL character, PostgreSQL text cannot: an error, not a cut value.
SELECT cql('CREATE TABLE app.nul (k int PRIMARY KEY, t text, lt list<text>)', 'cassette');
SELECT cql('INSERT INTO app.nul (k, t) VALUES (1, blobAsText(0x610062))', 'cassette');
SELECT cql($$INSERT INTO app.nul (k, lt) VALUES (2, ['x', blobAsText(0x0062)])$$, 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (nul) FROM SERVER cassette INTO imported;
SELECT t FROM imported.nul WHERE k = 1;
SELECT lt FROM imported.nul WHERE k = 2;
SELECT k FROM imported.nul ORDER BY k;

-- A CQL column name longer than a PostgreSQL identifier: IMPORT clips it and keeps the CQL name
-- as the column_name option.
SELECT cql('CREATE TABLE app.longcols (k int PRIMARY KEY, a_very_long_column_name_that_goes_beyond_sixty_three_characters_limit int)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (longcols) FROM SERVER cassette INTO imported;
SELECT attname, attfdwoptions FROM pg_attribute WHERE attrelid = 'imported.longcols'::regclass AND attnum > 0 ORDER BY attnum;
INSERT INTO imported.longcols VALUES (1, 2);
SELECT * FROM imported.longcols;
-- Two CQL columns that share their first 63 bytes: the second gets a unique clipped name and a
-- WARNING names both; each keeps its CQL name as its column_name option.
SELECT cql('CREATE TABLE app.twins (k int PRIMARY KEY, a_very_long_column_name_that_goes_beyond_sixty_three_characters_one int, a_very_long_column_name_that_goes_beyond_sixty_three_characters_two int)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (twins) FROM SERVER cassette INTO imported;
SELECT attname, attfdwoptions FROM pg_attribute WHERE attrelid = 'imported.twins'::regclass AND attnum > 0 ORDER BY attnum;
INSERT INTO imported.twins VALUES (1, 10, 20);
SELECT cql('SELECT a_very_long_column_name_that_goes_beyond_sixty_three_characters_one AS one, a_very_long_column_name_that_goes_beyond_sixty_three_characters_two AS two FROM app.twins', 'cassette');

-- A boolean key column: the planner turns  b = true  into  b  and  b = false  into  NOT b,
-- both still partition lookups.
SELECT cql('CREATE TABLE app.flags (region text, active boolean, id int, PRIMARY KEY ((region, active), id))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (flags) FROM SERVER cassette INTO imported;
INSERT INTO imported.flags VALUES ('eu', true, 1), ('eu', true, 2), ('eu', false, 3);
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.flags WHERE region = 'eu' AND active = true ORDER BY id DESC LIMIT 1;
SELECT id FROM imported.flags WHERE region = 'eu' AND active = true ORDER BY id DESC LIMIT 1;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM imported.flags WHERE region = 'eu' AND NOT active;
SELECT id FROM imported.flags WHERE region = 'eu' AND NOT active;
SELECT id FROM imported.flags WHERE region = 'eu' AND active IS NOT FALSE ORDER BY id;

-- Timestamp arrays are written whatever the session's time zone, even one whose offset has
-- seconds (Amsterdam's local mean time before 1909: +00:19:32).
SET timezone = 'Europe/Amsterdam';
INSERT INTO imported.spans (k, ts) VALUES (3, ARRAY['1800-01-01 00:00:00+00'::timestamptz, '2024-06-01 12:00:00.5+00']);
SET timezone = 'UTC';
SELECT ts FROM imported.spans WHERE k = 3;
SELECT cql('SELECT ts FROM app.spans WHERE k = 3', 'cassette');

-- 'infinity' and '-infinity' in a restriction compare as in PostgreSQL (CQL has no such values,
-- so they are still refused on write).
SELECT cql('CREATE TABLE app.inf (p int, t timestamp, PRIMARY KEY (p, t))', 'cassette');
SELECT cql('CREATE TABLE app.infd (p int, d date, PRIMARY KEY (p, d))', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (inf, infd) FROM SERVER cassette INTO imported;
INSERT INTO imported.inf VALUES (1, '2024-01-01 00:00:00+00');
INSERT INTO imported.infd VALUES (1, '2024-01-01');
EXPLAIN (VERBOSE, COSTS OFF) SELECT t FROM imported.inf WHERE p = 1 AND t < 'infinity';
SELECT t FROM imported.inf WHERE p = 1 AND t < 'infinity';
SELECT t FROM imported.inf WHERE p = 1 AND t > '-infinity';
SELECT t FROM imported.inf WHERE p = 1 AND t >= 'infinity';
SELECT t FROM imported.inf WHERE p = 1 AND t IN ('infinity', '2024-01-01 00:00:00+00');
SELECT d FROM imported.infd WHERE p = 1 AND d < 'infinity';
SELECT d FROM imported.infd WHERE p = 1 AND d = '-infinity';
INSERT INTO imported.infd VALUES (1, 'infinity');
