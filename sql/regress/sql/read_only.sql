-- A read-only transaction writes nothing to the store. cql() refuses every statement but
-- SELECT, DESCRIBE and USE before it runs, as PostgreSQL refuses its own writes there (SQLSTATE
-- 25006 read_only_sql_transaction, "cannot execute ... in a read-only transaction"); PostgreSQL
-- itself refuses INSERT, UPDATE and DELETE on foreign tables. Reads work.
SELECT cql('CREATE TABLE app.ro (k int PRIMARY KEY, v text)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (ro) FROM SERVER cassette INTO imported;
INSERT INTO imported.ro VALUES (1, 'one'), (2, 'two');
-- The SQLSTATE and message of a statement, or 'ok'.
CREATE FUNCTION outcome(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE statement;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

BEGIN READ ONLY;
SELECT outcome($q$SELECT cql('INSERT INTO app.ro (k, v) VALUES (3, ''three'')', 'cassette')$q$);
SELECT outcome($q$SELECT cql('UPDATE app.ro SET v = ''x'' WHERE k = 1', 'cassette')$q$);
SELECT outcome($q$SELECT cql('DELETE FROM app.ro WHERE k = 1', 'cassette')$q$);
SELECT outcome($q$SELECT cql('INSERT INTO app.ro (k, v) VALUES (4, ''four'') IF NOT EXISTS', 'cassette')$q$);
SELECT outcome($q$SELECT cql('BEGIN BATCH DELETE FROM app.ro WHERE k = 2; APPLY BATCH', 'cassette')$q$);
SELECT outcome($q$SELECT cql('TRUNCATE app.ro', 'cassette')$q$);
SELECT outcome($q$SELECT cql('DROP TABLE app.ro', 'cassette')$q$);
SELECT outcome($q$SELECT cql('CREATE TABLE app.ro2 (k int PRIMARY KEY)', 'cassette')$q$);
SELECT outcome($q$SELECT cql('ALTER TABLE app.ro ADD w int', 'cassette')$q$);
SELECT outcome($q$SELECT cql('CREATE KEYSPACE ro WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'cassette')$q$);
SELECT outcome('INSERT INTO imported.ro VALUES (5, ''five'')');
SELECT outcome('UPDATE imported.ro SET v = ''x''');
SELECT outcome('DELETE FROM imported.ro');
-- Reads: the foreign table and cql()'s SELECT, DESCRIBE and USE.
SELECT * FROM imported.ro ORDER BY k;
SELECT cql('SELECT k, v FROM app.ro WHERE k = 2', 'cassette');
SELECT jsonb_array_length(cql('DESCRIBE TABLE app.ro', 'cassette'));
SELECT cql('USE app', 'cassette');
-- A statement that does not parse is a syntax error, as anywhere.
SELECT cql('INSERT INTO', 'cassette');
ROLLBACK;

-- The same with default_transaction_read_only.
SET default_transaction_read_only = on;
SELECT cql('TRUNCATE app.ro', 'cassette');
INSERT INTO imported.ro VALUES (6, 'six');
SELECT cql('SELECT count(*) FROM app.ro', 'cassette');
RESET default_transaction_read_only;

-- Nothing was written; a read-write transaction writes again.
SELECT * FROM imported.ro ORDER BY k;
SELECT cql('INSERT INTO app.ro (k, v) VALUES (3, ''three'')', 'cassette');
SELECT * FROM imported.ro ORDER BY k;
