-- cql_rows() runs only statements that answer with rows (SELECT, DESCRIBE): anything else is
-- refused before it runs, and writes nothing. cql() is the function for writes.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
.print '== SELECT and DESCRIBE answer with rows'
SELECT row, json FROM cql_rows('SELECT k, v FROM main.t');
SELECT count(*) > 0 AS described FROM cql_rows('DESCRIBE TABLE main.t');
.print '== writes, schema changes and USE are refused, and change nothing'
SELECT * FROM cql_rows('INSERT INTO main.t (k, v) VALUES (3, ''c'')');
SELECT * FROM cql_rows('UPDATE main.t SET v = ''z'' WHERE k = 1');
SELECT * FROM cql_rows('DELETE FROM main.t WHERE k = 1');
SELECT * FROM cql_rows('INSERT INTO main.t (k, v) VALUES (1, ''x'') IF NOT EXISTS');
SELECT * FROM cql_rows('BEGIN BATCH DELETE FROM main.t WHERE k = 2; APPLY BATCH');
SELECT * FROM cql_rows('TRUNCATE main.t');
SELECT * FROM cql_rows('DROP TABLE main.t');
SELECT * FROM cql_rows('CREATE TABLE main.u (k int PRIMARY KEY)');
SELECT * FROM cql_rows('USE main');
SELECT k, v FROM t;
SELECT cql('SELECT * FROM main.u');
.print '== a cql_rows table takes the same statements'
CREATE VIRTUAL TABLE temp.d USING cql_rows('DESCRIBE TABLE main.t');
SELECT count(*) > 0 AS described FROM temp.d;
CREATE VIRTUAL TABLE temp.w USING cql_rows('DELETE FROM main.t WHERE k = 1');
SELECT k, v FROM t;
.print '== a bad statement is a syntax error, as in cql()'
SELECT * FROM cql_rows('SELEC * FROM main.t');
