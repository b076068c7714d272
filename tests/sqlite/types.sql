-- Every CQL type: how it reads in SQL (typeof and value), that the same form writes back and
-- round-trips exactly, and that CQL sees the values SQL wrote.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE ty USING cql(k int PRIMARY KEY, a ascii, bi bigint, b blob, bo boolean, d date, dec decimal, dbl double, dur duration, f float, i inet, n int, si smallint, t text, tm time, ts timestamp, tu timeuuid, ti tinyint, u uuid, vc varchar, vi varint);
INSERT INTO ty (k, a, bi, b, bo, d, dec, dbl, dur, f, i, n, si, t, tm, ts, tu, ti, u, vc, vi) VALUES (1, 'abc', 9223372036854775807, x'00ff10', 1, '2024-02-29', '123.4500', 0.1, '1h30m', 1.5, '192.168.0.1', 2147483647, -32768, 'héllo ☃', '12:34:56.123456789', '2024-01-01 12:00:00.000', 'd2177dd0-eaa2-11de-a572-001b779c76e3', 127, '550e8400-e29b-41d4-a716-446655440000', 'varchar', 42);
INSERT INTO ty (k, a, bi, b, bo, d, dec, dbl, dur, f, i, n, si, t, tm, ts, tu, ti, u, vc, vi) VALUES (2, '', -9223372036854775808, x'', 0, '1970-01-01', '-0.001', -2.5e-300, '1y2mo3d4h5m6s7ms8us9ns', 0.1, '::1', -2147483648, 32767, '', '00:00:00.000000000', '1969-12-31 23:59:59.999', '00000000-0000-1000-8000-000000000000', -128, '00000000-0000-0000-0000-000000000000', '', '12345678901234567890123');
INSERT INTO ty (k) VALUES (3);
.mode line
.print '== values and their SQLite types'
SELECT k, a, bi, hex(b), bo, d, dec, dbl, dur, f, i, n, si, t, tm, ts, tu, ti, u, vc, vi FROM ty WHERE k = 1;
SELECT typeof(a), typeof(bi), typeof(b), typeof(bo), typeof(d), typeof(dec), typeof(dbl), typeof(dur), typeof(f), typeof(i), typeof(n), typeof(si), typeof(t), typeof(tm), typeof(ts), typeof(tu), typeof(ti), typeof(u), typeof(vc), typeof(vi) FROM ty WHERE k = 1;
SELECT k, a, bi, hex(b), bo, d, dec, dbl, dur, f, i, n, si, t, tm, ts, tu, ti, u, vc, vi FROM ty WHERE k = 2;
SELECT length(b) AS length_b, typeof(vi) AS typeof_vi, f = 0.1 AS f_is_double_01, f = CAST(CAST(0.1 AS REAL) AS TEXT) AS f_text FROM ty WHERE k = 2;
.print '== unset columns are NULL'
SELECT k, a, bi, hex(b), bo, d, dec, dbl, dur, f, i, n, si, t, tm, ts, tu, ti, u, vc, vi FROM ty WHERE k = 3;
.mode list
.print '== what CQL sees'
SELECT cql('SELECT JSON * FROM main.ty WHERE k = 1') AS row1;
SELECT cql('SELECT JSON * FROM main.ty WHERE k = 2') AS row2;
SELECT cql('SELECT k, vi, dbl, f FROM main.ty WHERE k = 2') AS row2;
.print '== round trip: every value read and written back into a second table compares equal'
CREATE VIRTUAL TABLE ty2 USING cql(k int PRIMARY KEY, a ascii, bi bigint, b blob, bo boolean, d date, dec decimal, dbl double, dur duration, f float, i inet, n int, si smallint, t text, tm time, ts timestamp, tu timeuuid, ti tinyint, u uuid, vc varchar, vi varint);
INSERT INTO ty2 SELECT * FROM ty;
SELECT count(*) AS rows_equal FROM ty JOIN ty2 USING (k)
 WHERE ty.a IS ty2.a AND ty.bi IS ty2.bi AND ty.b IS ty2.b AND ty.bo IS ty2.bo AND ty.d IS ty2.d
   AND ty.dec IS ty2.dec AND ty.dbl IS ty2.dbl AND ty.dur IS ty2.dur AND ty.f IS ty2.f
   AND ty.i IS ty2.i AND ty.n IS ty2.n AND ty.si IS ty2.si AND ty.t IS ty2.t AND ty.tm IS ty2.tm
   AND ty.ts IS ty2.ts AND ty.tu IS ty2.tu AND ty.ti IS ty2.ti AND ty.u IS ty2.u
   AND ty.vc IS ty2.vc AND ty.vi IS ty2.vi;
SELECT (SELECT cql('SELECT JSON * FROM main.ty')) = (SELECT cql('SELECT JSON * FROM main.ty2')) AS cql_equal;
.print '== timestamps, dates and times work with SQLite date functions'
SELECT datetime(ts, '+1 day') AS next_day, strftime('%s', ts) AS epoch, date(d, '+1 day') AS d_plus_1, time(tm) AS tm_seconds FROM ty WHERE k = 1;
.print '== other accepted input forms'
.print '-- a number too big for INTEGER is a REAL in SQL, which a varint does not take; its text does'
INSERT INTO ty (k, vi) VALUES (5, 12345678901234567890123);
INSERT INTO ty (k, ts, d, bo, vi, dec) VALUES (4, '2024-01-01T12:00:00Z', '2024-03-01', 'true', '99', 5);
SELECT ts, d, bo, vi, typeof(vi), dec FROM ty WHERE k = 4;
.print '== keys of other types: text, blob, uuid, timestamp, composite'
CREATE VIRTUAL TABLE keys USING cql(t text, b blob, u uuid, ts timestamp, v int, PRIMARY KEY ((t, b), u, ts));
INSERT INTO keys (t, b, u, ts, v) VALUES ('a', x'01', '550e8400-e29b-41d4-a716-446655440000', '2024-01-01 00:00:00.000', 1);
INSERT INTO keys (t, b, u, ts, v) VALUES ('a', x'01', '550e8400-e29b-41d4-a716-446655440000', '2023-01-01 00:00:00.000', 2);
SELECT t, hex(b), u, ts, v FROM keys WHERE t = 'a' AND b = x'01';
SELECT v FROM keys WHERE t = 'a' AND b = x'01' AND u = '550e8400-e29b-41d4-a716-446655440000' AND ts = '2023-01-01 00:00:00.000';
.print '== timestamps past year 9999 read in the same SQL form and write back'
CREATE VIRTUAL TABLE far USING cql(k int PRIMARY KEY, ts timestamp);
INSERT INTO far VALUES (1, 253402300800000), (2, 253402300799999);
INSERT INTO far SELECT k + 10, ts FROM far;
SELECT k, ts FROM far ORDER BY k;
.print '== boolean text in any case, as CQL reads its literals; other text is refused'
CREATE VIRTUAL TABLE flags USING cql(k int PRIMARY KEY, on_ boolean);
INSERT INTO flags VALUES (1, 'TRUE'), (2, 'False'), (3, 'tRuE'), (4, TRUE);
INSERT INTO flags VALUES (5, 'yes');
SELECT k, on_ FROM flags ORDER BY k;

.print '== IN keeps values equal as decimals but different as text: both rows are keys of their own'
CREATE VIRTUAL TABLE prices USING cql(k decimal, p int, c decimal, v int, PRIMARY KEY (k, c));
INSERT INTO prices VALUES ('3.14', 1, '3.14', 1), ('3.140', 1, '3.140', 2), ('3.14', 1, '3.140', 3);
SELECT k, c, v FROM prices WHERE k IN (3.14, '3.140') ORDER BY v;
SELECT k, c, v FROM prices WHERE k = '3.14' AND c IN ('3.140', 3.14) ORDER BY v;
SELECT k, c, v FROM prices WHERE k IN ('3.14') AND k IN ('3.140');
