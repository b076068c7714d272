-- Hidden columns: token, writetime_<col>, ttl_<col> (read-only), cql_ttl and cql_timestamp
-- (write-only: USING TTL / USING TIMESTAMP for the row written).
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE h USING cql(k int, c int, v text, n bigint, l list<int>, fl frozen<list<int>>, PRIMARY KEY (k, c));
.print '== SELECT * shows only the real columns'
INSERT INTO h (k, c, v) VALUES (1, 1, 'x');
SELECT * FROM h;
.print '== the hidden columns by name'
SELECT name, type, hidden FROM pragma_table_xinfo('h') WHERE hidden <> 0 ORDER BY cid;
.print '== token is the Murmur3 token of the partition key, as CQL token() computes it'
INSERT INTO h (k, c, v) VALUES (0, 1, 'a'), (2, 1, 'b'), (3, 1, 'c');
SELECT k, token FROM h ORDER BY token;
SELECT json FROM cql_rows('SELECT k, token(k) FROM main.h');
.print '== cql_timestamp sets the write time; writetime_<col> reads it'
INSERT INTO h (k, c, v, n, fl, cql_timestamp) VALUES (5, 1, 'ts', 7, '[1,2]', 1000);
SELECT k, c, writetime_v, writetime_n, writetime_fl, ttl_v FROM h WHERE k = 5;
.print '-- a write with an older timestamp loses (last write wins)'
INSERT INTO h (k, c, v, cql_timestamp) VALUES (5, 1, 'older', 999);
SELECT v, writetime_v FROM h WHERE k = 5;
.print '-- a newer one wins, and only its columns get the new time'
UPDATE h SET v = 'newer', cql_timestamp = 2000 WHERE k = 5 AND c = 1;
SELECT v, writetime_v, n, writetime_n FROM h WHERE k = 5;
.print '-- the hidden write-only columns read as NULL'
SELECT cql_ttl, cql_timestamp FROM h WHERE k = 5;
.print '== writetime and ttl are NULL for a column with no cell, and for a non-frozen collection'
INSERT INTO h (k, c, v, l) VALUES (6, 1, 'no n', '[1]');
SELECT n, writetime_n, ttl_n, l, writetime_l, ttl_l, writetime_v IS NOT NULL AS v_has_writetime FROM h WHERE k = 6;
.print '== cql_ttl sets the TTL; ttl_<col> reads what remains'
INSERT INTO h (k, c, v, n, cql_ttl) VALUES (7, 1, 'ttl', 1, 3600);
SELECT ttl_v BETWEEN 3590 AND 3600 AS v_ttl_ok, ttl_n BETWEEN 3590 AND 3600 AS n_ttl_ok FROM h WHERE k = 7;
SELECT json ->> 'ttl(v)' BETWEEN 3590 AND 3600 AS cql_ttl_ok FROM cql_rows('SELECT ttl(v) FROM main.h WHERE k = 7');
.print '-- both together, as USING TTL 100 AND TIMESTAMP 5000'
INSERT INTO h (k, c, v, cql_ttl, cql_timestamp) VALUES (8, 1, 'both', 100, 5000);
SELECT writetime_v, ttl_v BETWEEN 90 AND 100 AS ttl_ok FROM h WHERE k = 8;
.print '== the write time agrees with CQL writetime()'
SELECT json_extract(cql('SELECT writetime(v) AS w FROM main.h WHERE k = 5 AND c = 1'), '$[0].w') = writetime_v AS agrees FROM h WHERE k = 5;
.print '== a token range is a scan of that range'
SELECT k FROM h WHERE token >= -4000000000000000000 AND token < 0 ORDER BY token;
