-- TTL: default_time_to_live, cql_ttl per row, ttl_<col> counting down, expiry seen from SQL (2 s
-- TTLs: a 1 s one may expire before the first read, across a second boundary) and from the shell.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE ev USING cql(k int, c int, v text, w text, PRIMARY KEY (k, c), default_time_to_live = 100);
.print '== the table default applies to every write'
INSERT INTO ev (k, c, v) VALUES (1, 1, 'default');
SELECT v, ttl_v BETWEEN 95 AND 100 AS ttl_default, ttl_w FROM ev WHERE k = 1;
.print '== cql_ttl overrides it; 0 means no TTL'
INSERT INTO ev (k, c, v, cql_ttl) VALUES (1, 2, 'ten thousand', 10000), (1, 3, 'forever', 0);
SELECT c, v, ttl_v BETWEEN 9990 AND 10000 AS ttl_10000, ttl_v IS NULL AS no_ttl FROM ev WHERE k = 1 AND c > 1;
.print '== UPDATE with cql_ttl sets the TTL of the columns it writes only'
UPDATE ev SET w = 'updated', cql_ttl = 5000 WHERE k = 1 AND c = 3;
SELECT v, ttl_v, w, ttl_w BETWEEN 4990 AND 5000 AS ttl_5000 FROM ev WHERE k = 1 AND c = 3;
.print '== the same TTLs through CQL ttl()'
SELECT json ->> 'c' AS c, json ->> 'ttl(v)' IS NULL AS no_ttl FROM cql_rows('SELECT c, ttl(v) FROM main.ev WHERE k = 1');
.print '== a cql_ttl that is not a valid TTL'
INSERT INTO ev (k, c, v, cql_ttl) VALUES (1, 9, 'x', -1);
INSERT INTO ev (k, c, v, cql_ttl) VALUES (1, 9, 'x', 630720001);
INSERT INTO ev (k, c, v, cql_ttl) VALUES (1, 9, 'x', 'soon');
SELECT count(*) AS rows_c9 FROM ev WHERE k = 1 AND c = 9;
.print '== expiry: a 2-second TTL, three seconds later'
INSERT INTO ev (k, c, v, cql_ttl) VALUES (2, 1, 'short', 2), (2, 2, 'long', 10000);
INSERT INTO ev (k, c, v, w, cql_ttl) VALUES (2, 3, 'row stays', NULL, 10000);
UPDATE ev SET w = 'cell goes', cql_ttl = 2 WHERE k = 2 AND c = 3;
SELECT c, v, w FROM ev WHERE k = 2;
.shell sleep 3
SELECT c, v, w FROM ev WHERE k = 2;
.print '== a clock 2 hours ahead (the cassette shell on the same store): the 100-second rows are gone'
.shell "$CASSETTE" test.db.cassette --format csv --clock "$(date -u -d '+2 hours' '+%Y-%m-%d %H:%M:%S')" -e "SELECT k, c, v, w FROM main.ev"
.print '== and 3 hours ahead: only the rows without TTL'
.shell "$CASSETTE" test.db.cassette --format csv --clock "$(date -u -d '+3 hours' '+%Y-%m-%d %H:%M:%S')" -e "SELECT k, c, v, w FROM main.ev"
