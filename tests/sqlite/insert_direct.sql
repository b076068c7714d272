-- INSERT into a table of plain columns (no static, counter or non-frozen collection column):
-- each row is encoded straight into storage form. It must store what CQL's INSERT stores and
-- reject bad input exactly as the general path does, writing nothing of a failed statement.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE d USING cql(k text, c int, zeta text, alpha bigint, f frozen<list<int>>, b blob, u uuid, PRIMARY KEY (k, c));
.print '== a row with every kind of value, and one with NULLs'
INSERT INTO d (k, c, zeta, alpha, f, b, u) VALUES ('a', 1, 'z', 42, '[3, 1, 2]', x'00ff', '123e4567-e89b-12d3-a456-426614174000');
INSERT INTO d (k, c, zeta, alpha) VALUES ('a', 2, NULL, -1);
SELECT k, c, zeta, alpha, f, hex(b) AS b, u, writetime_zeta IS NOT NULL AS wt_zeta, writetime_f IS NOT NULL AS wt_f, ttl_alpha FROM d ORDER BY c;
.print '== the same row through CQL and through SQL, at the same timestamp: the same cells'
SELECT cql('INSERT INTO main.d (k, c, zeta, alpha, f, b) VALUES (''cql'', 1, ''z'', 7, [1, 2], 0x01) USING TIMESTAMP 1000');
INSERT INTO d (k, c, zeta, alpha, f, b, cql_timestamp) VALUES ('sql', 1, 'z', 7, '[1, 2]', x'01', 1000);
SELECT k, c, zeta, alpha, f, hex(b) AS b, u, writetime_zeta, writetime_alpha, writetime_f, writetime_b, writetime_u, ttl_zeta FROM d WHERE k IN ('cql', 'sql') ORDER BY k;
SELECT cql('SELECT k, writetime(zeta), writetime(u), ttl(u) FROM main.d WHERE k IN (''cql'', ''sql'')') AS cql_view;
.print '== TTL: cql_ttl, and USING TTL through CQL'
SELECT cql('INSERT INTO main.d (k, c, zeta, alpha) VALUES (''cqlttl'', 1, ''z'', NULL) USING TTL 3600');
INSERT INTO d (k, c, zeta, alpha, cql_ttl) VALUES ('sqlttl', 1, 'z', NULL, 3600);
SELECT k, zeta, alpha, ttl_zeta BETWEEN 3599 AND 3600 AS ttl_zeta_ok, ttl_alpha, writetime_alpha IS NULL AS alpha_absent FROM d WHERE k IN ('cqlttl', 'sqlttl') ORDER BY k;
.print '== bad input: each statement fails and writes nothing'
INSERT INTO d (k, c, zeta) VALUES (NULL, 1, 'x');
INSERT INTO d (k, c, zeta) VALUES ('b', NULL, 'x');
INSERT INTO d (k, c, zeta) VALUES ('', 1, 'x');
INSERT INTO d (k, c, zeta) VALUES (hex(zeroblob(32768)), 1, 'x');
INSERT INTO d (k, c, alpha) VALUES ('b', 1, 'many');
INSERT INTO d (k, c, alpha) VALUES ('b', 1, 1.5);
INSERT INTO d (k, c, zeta) VALUES ('b', 1, x'ff');
INSERT INTO d (k, c, f) VALUES ('b', 1, '[1, 2');
INSERT INTO d (k, c, f) VALUES ('b', 1, '["x"]');
INSERT INTO d (k, c, u) VALUES ('b', 1, 'not-a-uuid');
INSERT INTO d (k, c, zeta, alpha, f) VALUES ('b', 1, x'00', 'many', 'nope');
INSERT INTO d (k, c, cql_ttl) VALUES ('b', 1, -1);
INSERT INTO d (k, c, alpha) SELECT 'b', value, CASE value WHEN 3 THEN 'bad' ELSE value END FROM json_each('[1,2,3,4]');
INSERT INTO d (k, c, zeta) SELECT CASE value WHEN 1000 THEN NULL ELSE 'p' || (value % 7) END, value, 'x' FROM generate_series(1, 2000);
SELECT count(*) AS rows_of_b_or_p FROM d WHERE k = 'b' OR k LIKE 'p%';
.print '== a failed statement inside a transaction leaves the others'
BEGIN;
INSERT INTO d (k, c, zeta) VALUES ('tx', 1, 'kept');
INSERT INTO d (k, c, alpha) VALUES ('tx', 2, 'bad');
INSERT INTO d (k, c, zeta) VALUES ('tx', 3, 'kept too');
COMMIT;
SELECT k, c, zeta FROM d WHERE k = 'tx' ORDER BY c;
.print '== INSERT OR IGNORE keeps an existing row; a later INSERT of the row overrides an earlier one'
INSERT OR IGNORE INTO d (k, c, zeta) VALUES ('tx', 1, 'ignored');
BEGIN;
INSERT INTO d (k, c, zeta, alpha) VALUES ('twice', 1, 'first', 1);
INSERT INTO d (k, c, zeta) VALUES ('twice', 1, 'second');
COMMIT;
SELECT k, c, zeta, alpha FROM d WHERE k IN ('tx', 'twice') ORDER BY k, c;
.print '== a bulk INSERT ... SELECT'
INSERT INTO d (k, c, zeta, alpha) SELECT 'bulk' || (value % 10), value, 'v' || value, value * 3 FROM generate_series(1, 5000);
SELECT count(*) AS n, sum(alpha) AS sum_alpha, min(zeta) AS min_zeta, max(c) AS max_c FROM d WHERE k LIKE 'bulk%';
SELECT c, zeta, alpha FROM d WHERE k = 'bulk3' ORDER BY c DESC LIMIT 2;
