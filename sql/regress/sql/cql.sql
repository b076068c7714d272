-- cql(statement [, server]): any CQL statement, its result as jsonb.
SET datestyle = ISO;
SET timezone = 'UTC';
SELECT cql('CREATE TABLE app.kv (k int PRIMARY KEY, v text, tags list<text>)');
SELECT cql($$INSERT INTO app.kv (k, v, tags) VALUES (1, 'one', ['a', 'b'])$$);
SELECT cql($$INSERT INTO app.kv (k, v) VALUES (2, 'two')$$);
SELECT cql('SELECT * FROM app.kv WHERE k = 1');
SELECT jsonb_array_length(cql('SELECT * FROM app.kv'));
SELECT cql('SELECT k, v FROM app.kv WHERE k IN (1, 2)', 'cassette');
SELECT r->>'v' AS v FROM jsonb_array_elements(cql('SELECT v FROM app.kv')) AS r ORDER BY 1;
SELECT cql('SELECT count(*) FROM app.kv');
SELECT cql('SELECT JSON k, v FROM app.kv WHERE k = 2');
-- lightweight transactions answer [applied]
SELECT cql($$INSERT INTO app.kv (k, v) VALUES (1, 'again') IF NOT EXISTS$$);
SELECT cql($$UPDATE app.kv SET v = 'uno' WHERE k = 1 IF v = 'one'$$);
SELECT split_part(cql('DESCRIBE TABLE app.kv') -> 0 ->> 'create_statement', E'\n', 2) AS describe;
SELECT cql('USE app');
-- NULL in, NULL out
SELECT cql(NULL);
-- the new table is importable at once
IMPORT FOREIGN SCHEMA app LIMIT TO (kv) FROM SERVER cassette INTO imported;
SELECT * FROM imported.kv ORDER BY k;
SELECT cql('DROP TABLE app.kv');
-- NaN and infinities: null, as Cassandra's FloatType/DoubleType.toJSONString write them (JSON has
-- no such numbers); the foreign table reads the values themselves.
SELECT cql('CREATE TABLE app.specials (k int PRIMARY KEY, f float, d double)');
SELECT cql($$INSERT INTO app.specials (k, f, d) VALUES (1, NaN, Infinity)$$);
SELECT cql($$INSERT INTO app.specials (k, f, d) VALUES (2, -Infinity, 1.5)$$);
SELECT cql('SELECT k, f, d FROM app.specials');
SELECT cql('SELECT JSON k, f, d FROM app.specials WHERE k = 1');
IMPORT FOREIGN SCHEMA app LIMIT TO (specials) FROM SERVER cassette INTO imported;
SELECT * FROM imported.specials ORDER BY k;
SELECT cql('DROP TABLE app.specials');
-- a foreign table whose CQL table is gone says so
SELECT * FROM imported.kv;
