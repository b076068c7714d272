-- Every CQL type and its PostgreSQL type (ext/postgres/README.md), both ways.
SET datestyle = ISO;
SET timezone = 'UTC';
SET extra_float_digits = 0;
SELECT cql('CREATE TYPE app.address (street text, zip int)');
SELECT cql($$CREATE TABLE app.alltypes (
  k int PRIMARY KEY,
  a ascii, bi bigint, bl blob, bo boolean, d date, de decimal, db double, du duration,
  f float, ip inet, si smallint, t text, tm time, ts timestamp, tu timeuuid, ti tinyint,
  u uuid, vc varchar, vi varint,
  li list<int>, se set<text>, ma map<text, int>, tp tuple<int, text>, fl frozen<list<double>>,
  ad frozen<address>, nested map<text, frozen<list<int>>>, tss set<timestamp>)$$);
IMPORT FOREIGN SCHEMA app LIMIT TO (alltypes) FROM SERVER cassette INTO imported;
\d imported.alltypes

-- Written by CQL, read by SQL.
SELECT cql($$INSERT INTO app.alltypes (k, a, bi, bl, bo, d, de, db, du, f, ip, si, t, tm, ts, tu,
  ti, u, vc, vi, li, se, ma, tp, fl, ad, nested, tss) VALUES (1, 'ascii', 9223372036854775807,
  0xcafe00ff, true, '2024-02-29', 12345.678901234567890, 2.718281828459045, 1mo2d3h4m5s6ms,
  1.25, '192.168.0.1', -32768, 'héllo "quoted"', '13:14:15.123456', '2024-01-02 03:04:05.678',
  50554d6e-29bb-11e5-b345-feff819cdc9f, -128, 123e4567-e89b-12d3-a456-426614174000, 'varchar',
  123456789012345678901234567890, [3, 1, 2], {'b', 'a', 'c d'}, {'x': 1, 'y': 2},
  (7, 'seven'), [1.5, -0.25], {street: 'Main St', zip: 12345}, {'a': [1, 2], 'b': []},
  {'2024-01-01 00:00:00', '1999-12-31 23:59:59.999'})$$);
SELECT cql('INSERT INTO app.alltypes (k) VALUES (2)');
SELECT * FROM imported.alltypes WHERE k = 1 \gx
SELECT * FROM imported.alltypes WHERE k = 2 \gx
SELECT pg_typeof(de), pg_typeof(du), pg_typeof(ip), pg_typeof(li), pg_typeof(ma), pg_typeof(tss)
  FROM imported.alltypes WHERE k = 1;
-- arrays and jsonb behave as such
SELECT li[2], array_length(se, 1), 'c d' = ANY(se), ma->>'y', tp->>1, ad->>'street', nested->'a'->1
  FROM imported.alltypes WHERE k = 1;

-- Written by SQL, read back by SQL and by CQL.
INSERT INTO imported.alltypes (k, a, bi, bl, bo, d, de, db, du, f, ip, si, t, tm, ts, tu, ti, u, vc, vi,
  li, se, ma, tp, fl, ad, nested, tss) VALUES (3, 'abc', -42, '\x0001', false, '1970-01-01', -0.5, -1e300,
  '1 year 2 days 00:00:00.000007', -3.5, '::1', 7, 'text ☃', '00:00:00.000001',
  '2000-01-01 00:00:00.001+00', 'd2177dd0-eaa2-11de-a572-001b779c76e3', 127,
  '00000000-0000-0000-0000-000000000000', '', -1,
  '{5,4}', '{z,y,z}', '{"k": -1}', '[8, "eight"]', '{0.5}', '{"street": "Side", "zip": null}',
  '{"q": [3]}', '{"2020-05-06 07:08:09.010+00"}');
SELECT * FROM imported.alltypes WHERE k = 3 \gx
SELECT cql('SELECT JSON * FROM app.alltypes WHERE k = 3') -> 0 ->> '[json]' AS json;
-- UPDATE of a collection replaces it; NULL deletes it
UPDATE imported.alltypes SET li = '{9}', se = NULL, ma = '{"n": 0}' WHERE k = 3;
SELECT li, se, ma FROM imported.alltypes WHERE k = 3;
SELECT cql('SELECT li, se, ma FROM app.alltypes WHERE k = 3');

-- Timestamps are milliseconds in CQL: microseconds are truncated on write, and comparisons
-- stay exact.
SELECT cql('CREATE TABLE app.times (p int, t timestamp, PRIMARY KEY (p, t))');
IMPORT FOREIGN SCHEMA app LIMIT TO (times) FROM SERVER cassette INTO imported;
INSERT INTO imported.times VALUES (1, '2024-01-01 00:00:00.001999+00'), (1, '2024-01-01 00:00:00.003+00');
SELECT t FROM imported.times WHERE p = 1;
SELECT t FROM imported.times WHERE p = 1 AND t > '2024-01-01 00:00:00.0015+00';
SELECT t FROM imported.times WHERE p = 1 AND t >= '2024-01-01 00:00:00.0015+00';
SELECT t FROM imported.times WHERE p = 1 AND t < '2024-01-01 00:00:00.0015+00';
SELECT t FROM imported.times WHERE p = 1 AND t <= '2024-01-01 00:00:00.001+00';
SELECT count(*) FROM imported.times WHERE p = 1 AND t = '2024-01-01 00:00:00.0015+00';
