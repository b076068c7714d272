-- Errors: PostgreSQL errors with clear messages, Cassandra's wording for CQL errors, and
-- nothing written by a failed statement.
\set VERBOSITY default
SET datestyle = ISO;
SET timezone = 'UTC';
-- options
CREATE SERVER bad_option FOREIGN DATA WRAPPER cassette_fdw OPTIONS (path '/tmp/x');
CREATE SERVER relative FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store 'relative/path');
CREATE SERVER bad_sync FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/tmp/x', sync 'sometimes');
ALTER SERVER cassette OPTIONS (ADD sync '');
-- each sync mode is accepted (any case), and a store opened with one works
\getenv store CASSETTE_STORE
\set synced_store :store '.synced'
CREATE SERVER synced FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store :'synced_store', create 'true', sync 'NORMAL');
ALTER SERVER synced OPTIONS (SET sync 'off');
ALTER SERVER synced OPTIONS (SET sync 'full');
ALTER SERVER synced OPTIONS (SET sync 'normal');
SELECT cql($$CREATE KEYSPACE synced WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}$$, 'synced');
SELECT cql('CREATE TABLE synced.t (k int PRIMARY KEY, v text)', 'synced');
SELECT cql($$INSERT INTO synced.t (k, v) VALUES (1, 'one')$$, 'synced');
SELECT cql('SELECT * FROM synced.t', 'synced');
DROP SERVER synced;
CREATE FOREIGN TABLE no_dot (k int) SERVER cassette OPTIONS (table 'nodot');
CREATE FOREIGN TABLE bad_col_option (k int OPTIONS (name 'x')) SERVER cassette OPTIONS (table 'app.kv');
-- a missing store, keyspace, table or column is named
CREATE SERVER missing FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/nonexistent/cassette-store');
IMPORT FOREIGN SCHEMA app FROM SERVER missing INTO public;
CREATE FOREIGN TABLE on_missing (k int) SERVER missing OPTIONS (table 'app.events');
SELECT * FROM on_missing;
IMPORT FOREIGN SCHEMA nope FROM SERVER cassette INTO public;
CREATE FOREIGN TABLE no_table (k int) SERVER cassette OPTIONS (table 'app.nope');
SELECT * FROM no_table;
CREATE FOREIGN TABLE no_keyspace (k int) SERVER cassette OPTIONS (table 'nope.events');
SELECT * FROM no_keyspace;
CREATE FOREIGN TABLE wrong_column (source text, hour int, nope int) SERVER cassette OPTIONS (table 'app.events');
SELECT * FROM wrong_column;
CREATE FOREIGN TABLE no_table_option (k int) SERVER cassette;
SELECT * FROM no_table_option;
-- CQL errors through cql(), in Cassandra's words
SELECT cql('SELECT 1');
SELECT cql('SELECT * FROM app.events', 'nosuchserver');
SELECT cql('SELEC * FROM app.events', 'cassette');
SELECT cql('SELECT * FROM app.nope', 'cassette');
SELECT cql('SELECT * FROM app.events WHERE value = 1', 'cassette');
SELECT cql($$INSERT INTO app.users (id, name) VALUES ('not a uuid', 'x')$$, 'cassette');
SELECT cql('CREATE TABLE app.events (k int PRIMARY KEY)', 'cassette');
-- writes Cassandra refuses
CREATE FOREIGN TABLE loose_events (source text, hour int, ts timestamptz, value float8)
  SERVER cassette OPTIONS (table 'app.events');
INSERT INTO loose_events VALUES (NULL, 1, now(), 1);
INSERT INTO loose_events VALUES ('x', 1, NULL, 1);
INSERT INTO loose_events VALUES (repeat('x', 70000), 1, now(), 1);
UPDATE imported.events SET hour = 99 WHERE source = 'sensor-1' AND hour = 1;
INSERT INTO imported.visits VALUES ('home', '2024-01-01', 5);
SELECT cql($$UPDATE app.visits SET n = n + 1 WHERE page = 'home' AND day = '2024-01-01'$$, 'cassette');
UPDATE imported.visits SET n = n + 1 WHERE page = 'home';
SELECT * FROM imported.visits;
-- values the CQL type cannot hold
SELECT cql('CREATE TABLE app.small (k tinyint PRIMARY KEY, v text)', 'cassette');
IMPORT FOREIGN SCHEMA app LIMIT TO (small) FROM SERVER cassette INTO imported;
INSERT INTO imported.small VALUES (300, 'too big');
INSERT INTO imported.small VALUES (1, 'ok'), (2, 'fine'), (-129, 'too small');
SELECT count(*) FROM imported.small;
INSERT INTO imported.alltypes (k, ip) VALUES (10, '10.0.0.0/8');
INSERT INTO imported.alltypes (k, li) VALUES (10, '{1,NULL}');
INSERT INTO imported.alltypes (k, du) VALUES (10, '1 month -1 day');
INSERT INTO imported.alltypes (k, ma) VALUES (10, '{"k": "not a number"}');
SELECT count(*) FROM imported.alltypes WHERE k = 10;
-- a text column over a CQL int column: text is parsed with CQL's rules
CREATE FOREIGN TABLE textual (k text, v text) SERVER cassette OPTIONS (table 'app.small');
INSERT INTO textual VALUES ('abc', 'x');
INSERT INTO textual VALUES ('12', 'twelve'), ('-3', 'minus three');
SELECT * FROM textual ORDER BY k;
-- PREPARE TRANSACTION after writes
BEGIN;
INSERT INTO imported.small VALUES (3, 'three');
PREPARE TRANSACTION 'p1';
SELECT count(*) FROM imported.small WHERE k = 3;
-- a column declared with another type than the CQL one: a value it cannot take fails the read,
-- naming the column (PostgreSQL's input function alone does not); k is int over a CQL tinyint,
-- so PostgreSQL filters it
CREATE FOREIGN TABLE small_as_int (k int, v int) SERVER cassette OPTIONS (table 'app.small');
EXPLAIN (COSTS OFF) SELECT k, v FROM small_as_int WHERE k = 12;
SELECT k, v FROM small_as_int WHERE k = 12;
-- nothing thrown inside the engine reaches PostgreSQL: a DROP timestamp beyond a long fails the
-- statement with Cassandra's message (it aborted the process through std::stoll)
SELECT cql($$ALTER TABLE app.small DROP v USING TIMESTAMP 99999999999999999999$$, 'cassette');
-- a text column over a CQL timestamp column: a zone followed by a fraction is a bad timestamp,
-- not an internal error (the fraction was cut from a string position past its end)
CREATE FOREIGN TABLE textual_events (source text, hour int, ts text, value float8)
  SERVER cassette OPTIONS (table 'app.events');
INSERT INTO textual_events VALUES ('x', 1, '2024-01-02 03:04:05+00.1', 1);
INSERT INTO textual_events VALUES ('x', 1, '2024-01-02 03:04:05.123456+05:30', 1);
SELECT source, hour, ts FROM textual_events WHERE source = 'x';
