-- Who can reach a store. A role reaches a CQL table through a foreign table it was granted
-- (PostgreSQL's own privileges), through cql() only when granted EXECUTE on it and USAGE on the
-- server, and points a server at a directory only as a superuser or with the privileges of both
-- pg_read_server_files and pg_write_server_files (as file_fdw's filename option).
\getenv store CASSETTE_STORE
SELECT cql('CREATE TABLE app.secret (k int PRIMARY KEY, v text)', 'cassette');
SELECT cql($$INSERT INTO app.secret (k, v) VALUES (1, 'hidden')$$, 'cassette');
CREATE SCHEMA guarded;
IMPORT FOREIGN SCHEMA app LIMIT TO (secret) FROM SERVER cassette INTO guarded;
GRANT USAGE ON SCHEMA guarded TO PUBLIC;

CREATE ROLE regress_cassette_nobody;  -- granted nothing
CREATE ROLE regress_cassette_reader;  -- SELECT on the foreign table
GRANT SELECT ON guarded.secret TO regress_cassette_reader;
CREATE ROLE regress_cassette_cql;  -- EXECUTE on cql(), later USAGE on the server
GRANT EXECUTE ON FUNCTION cql(text, name) TO regress_cassette_cql;
CREATE ROLE regress_cassette_owner;  -- may create servers (USAGE on the wrapper), no file roles
CREATE ROLE regress_cassette_reads_files IN ROLE pg_read_server_files;  -- one of the two roles
CREATE ROLE regress_cassette_files IN ROLE pg_read_server_files, pg_write_server_files;
GRANT USAGE ON FOREIGN DATA WRAPPER cassette_fdw
  TO regress_cassette_owner, regress_cassette_reads_files, regress_cassette_files;
CREATE SCHEMA owned_tables AUTHORIZATION regress_cassette_owner;
CREATE SCHEMA nobody_tables AUTHORIZATION regress_cassette_nobody;

-- A role granted nothing reaches nothing, by any path.
SET ROLE regress_cassette_nobody;
SELECT * FROM guarded.secret;
INSERT INTO guarded.secret VALUES (2, 'x');
SELECT cql('SELECT * FROM app.secret', 'cassette');
SELECT cql('DROP TABLE app.secret', 'cassette');
SELECT cql('SELECT * FROM app.secret');
BEGIN READ ONLY;
SELECT cql('SELECT * FROM app.secret', 'cassette');
ROLLBACK;
CREATE FOREIGN TABLE nobody_tables.mine (k int, v text) SERVER cassette OPTIONS (table 'app.secret');
IMPORT FOREIGN SCHEMA app FROM SERVER cassette INTO nobody_tables;
CREATE USER MAPPING FOR CURRENT_USER SERVER cassette;
CREATE SERVER mine FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/tmp/mine.cassette');
ALTER SERVER cassette OPTIONS (SET store '/tmp/mine.cassette');
RESET ROLE;

-- A role granted SELECT on the foreign table reads it, and nothing more.
SET ROLE regress_cassette_reader;
SELECT * FROM guarded.secret;
INSERT INTO guarded.secret VALUES (2, 'x');
DELETE FROM guarded.secret;
SELECT cql('SELECT * FROM app.secret', 'cassette');
RESET ROLE;

-- EXECUTE on cql() alone reaches no store: the server's USAGE is needed too.
SET ROLE regress_cassette_cql;
SELECT cql('SELECT * FROM app.secret', 'cassette');
RESET ROLE;
GRANT USAGE ON FOREIGN SERVER cassette TO regress_cassette_cql;
SET ROLE regress_cassette_cql;
SELECT cql('SELECT * FROM app.secret', 'cassette');
SELECT cql($$INSERT INTO app.secret (k, v) VALUES (2, 'two')$$, 'cassette');
-- and a read-only transaction still writes nothing
BEGIN READ ONLY;
SELECT cql($$INSERT INTO app.secret (k, v) VALUES (3, 'three')$$, 'cassette');
ROLLBACK;
-- USAGE on one server is not USAGE on another
SELECT cql('SELECT * FROM app.secret', 'missing');
RESET ROLE;

-- Creating a server: USAGE on the wrapper is not enough to name a directory.
SET ROLE regress_cassette_owner;
CREATE SERVER owned FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/var/lib/postgresql');
CREATE SERVER owned FOREIGN DATA WRAPPER cassette_fdw OPTIONS (create 'true');
CREATE SERVER owned FOREIGN DATA WRAPPER cassette_fdw;
ALTER SERVER owned OPTIONS (ADD store '/var/lib/postgresql');
RESET ROLE;
-- A server a superuser pointed at a store and gave away: its owner uses it, cannot repoint it.
ALTER SERVER owned OPTIONS (ADD store :'store');
SET ROLE regress_cassette_owner;
ALTER SERVER owned OPTIONS (SET store '/var/lib/postgresql');
ALTER SERVER owned OPTIONS (ADD create 'true');
IMPORT FOREIGN SCHEMA app LIMIT TO (secret) FROM SERVER owned INTO owned_tables;
SELECT k, v FROM owned_tables.secret ORDER BY k;
DROP SERVER owned CASCADE;
RESET ROLE;
-- pg_read_server_files alone is not enough; with pg_write_server_files it is.
SET ROLE regress_cassette_reads_files;
CREATE SERVER files FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/tmp/files.cassette');
RESET ROLE;
SET ROLE regress_cassette_files;
CREATE SERVER files FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/tmp/files.cassette');
ALTER SERVER files OPTIONS (ADD create 'false');
ALTER SERVER files OPTIONS (SET create 'maybe');
DROP SERVER files;
RESET ROLE;

-- A mistyped store is not created: cql() and foreign tables name the missing directory, and
-- only a server with create 'true' makes one.
-- (The errors name the path; the test server's own directory reads as STORE.)
\set typo :store '-typo'
CREATE SERVER typo FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store :'typo');
CREATE FOREIGN TABLE typo_secret (k int, v text) SERVER typo OPTIONS (table 'app.secret');
SELECT replace(outcome(statement), :'store', 'STORE') FROM (VALUES
  ($q$SELECT cql('CREATE KEYSPACE typo WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'typo')$q$),
  ($q$SELECT cql('SELECT * FROM app.secret', 'typo')$q$),
  ('SELECT * FROM typo_secret'),
  ('IMPORT FOREIGN SCHEMA app FROM SERVER typo INTO guarded')) AS s(statement);
SELECT pg_stat_file(:'typo', true) IS NULL AS not_created;
DROP SERVER typo CASCADE;

DROP SCHEMA guarded, owned_tables, nobody_tables CASCADE;
DROP OWNED BY regress_cassette_nobody, regress_cassette_reader, regress_cassette_cql,
  regress_cassette_owner, regress_cassette_reads_files, regress_cassette_files;
DROP ROLE regress_cassette_nobody, regress_cassette_reader, regress_cassette_cql,
  regress_cassette_owner, regress_cassette_reads_files, regress_cassette_files;
