-- Text read from a cql table is handed to SQLite NUL-terminated (so SQLite need not copy it
-- again to add a terminator); these check that every text value still arrives whole: the empty
-- string (not NULL), an embedded NUL (kept with its explicit length), values around and past
-- the extension's 256-byte buffer, non-ASCII UTF-8, text made by the extension (uuid, JSON), and
-- text kept across rows by aggregates and sorts.
.load ./cassette
.headers on
.nullvalue NULL
CREATE VIRTUAL TABLE t USING cql(k int, c int, v text, a ascii, u uuid, l list<text>, PRIMARY KEY (k, c));
INSERT INTO t (k, c, v, a) VALUES (1, 1, '', '');
INSERT INTO t (k, c, v) VALUES (1, 2, 'a' || char(0) || 'b');
INSERT INTO t (k, c, v, a) VALUES (1, 3, printf('%.300c', 'x') || 'end', printf('%.255c', 'y'));
INSERT INTO t (k, c, v, a) VALUES (1, 4, 'héllo wörld ✓', printf('%.256c', 'z'));
INSERT INTO t (k, c, u, l) VALUES (1, 5, 'f47ac10b-58cc-4372-a567-0e02b2c3d479', '["p", "q\u0000r"]');
SELECT c, typeof(v), length(v), length(CAST(v AS BLOB)), typeof(a), length(a), substr(a, 1, 1) AS a1, replace(a, substr(a, 1, 1), '') = '' AS a_whole FROM t WHERE k = 1;
SELECT c, hex(v) FROM t WHERE k = 1 AND c IN (1, 2);
SELECT substr(v, 1, 3), substr(v, -4), v = printf('%.300c', 'x') || 'end' AS v_whole FROM t WHERE k = 1 AND c = 3;
SELECT v FROM t WHERE k = 1 AND c = 4;
SELECT u, l, length(l) FROM t WHERE k = 1 AND c = 5;
SELECT max(length(v)), quote(min(v)), substr(max(v), -4), count(v) FROM t;
SELECT group_concat(quote(substr(v, 1, 5)), '|') FROM (SELECT v FROM t WHERE k = 1 AND c <> 2 ORDER BY v DESC);
