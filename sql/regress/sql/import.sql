-- cassette_fdw: the extension, a server on a store, IMPORT FOREIGN SCHEMA and CREATE FOREIGN TABLE.
-- The store path comes from the environment (tests/postgres/run.sh sets CASSETTE_STORE).
\getenv store CASSETTE_STORE
SET datestyle = ISO;
SET timezone = 'UTC';
CREATE EXTENSION cassette_fdw;
\dx cassette_fdw
CREATE SERVER cassette FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store :'store', create 'true');

-- A keyspace with a few tables, made through cql().
SELECT cql($$CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}$$);
SELECT cql($$CREATE TABLE app.events (source text, hour int, ts timestamp, value double, note text,
                                      PRIMARY KEY ((source, hour), ts))
             WITH CLUSTERING ORDER BY (ts DESC)$$);
SELECT cql('CREATE TABLE app.users (id uuid PRIMARY KEY, name text, emails set<text>, scores map<text, int>)');
SELECT cql('CREATE TABLE app.visits (page text, day date, n counter, PRIMARY KEY (page, day))');
SELECT cql('CREATE TABLE app."MixedCase" ("Key" int PRIMARY KEY, "Value" text)');

-- One foreign table per CQL table, with the mapped types; key columns are NOT NULL.
CREATE SCHEMA imported;
IMPORT FOREIGN SCHEMA app FROM SERVER cassette INTO imported;
\det+ imported.*
\d imported.events
\d imported.users
\d imported.visits
\d imported."MixedCase"

-- LIMIT TO and EXCEPT.
CREATE SCHEMA limited;
IMPORT FOREIGN SCHEMA app LIMIT TO (users, visits) FROM SERVER cassette INTO limited;
\det limited.*
CREATE SCHEMA excepted;
IMPORT FOREIGN SCHEMA app EXCEPT (users, visits) FROM SERVER cassette INTO excepted;
\det excepted.*

-- Data written by CQL is read by SQL.
SELECT cql($$INSERT INTO app.events (source, hour, ts, value, note)
             VALUES ('sensor-1', 10, '2024-01-02 10:00:00', 1.5, 'first')$$);
SELECT cql($$INSERT INTO app.events (source, hour, ts, value)
             VALUES ('sensor-1', 10, '2024-01-02 10:30:00', 2.5)$$);
SELECT cql($$INSERT INTO app."MixedCase" ("Key", "Value") VALUES (1, 'one')$$);
SELECT * FROM imported.events;
SELECT * FROM imported."MixedCase";

-- A hand-written foreign table: columns match by name, or by the column_name option; a
-- subset of the columns is fine, and other PostgreSQL types go through text.
CREATE FOREIGN TABLE public.readings (
  source text,
  hour bigint,
  at timestamptz OPTIONS (column_name 'ts'),
  value text
) SERVER cassette OPTIONS (table 'app.events');
SELECT source, hour, at, value FROM public.readings ORDER BY at;
CREATE FOREIGN TABLE public.mixed ("Key" int, "Value" text) SERVER cassette OPTIONS (table 'app."MixedCase"');
SELECT * FROM public.mixed;
