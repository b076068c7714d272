-- The timeuuid type (cassette_fdw 1.1): a version-1 uuid in Cassandra's timeuuid order, so that
-- a Twissandra-style timeline sorts by time and its ORDER BY goes down to the store.
SET datestyle = ISO;
SET timezone = 'UTC';
\getenv store CASSETTE_STORE

-- Text input takes a uuid and refuses any version but 1; casts to and from uuid.
SELECT '50554d6e-29bb-11e5-b345-feff819cdc9f'::timeuuid;
SELECT '{50554d6e-29bb-11e5-b345-feff819cdc9f}'::timeuuid;
SELECT '0b6e5ee4-0c6b-4c6f-9a4b-1f6b8a2d2c1e'::timeuuid;
SELECT '00000000-0000-0000-0000-000000000000'::timeuuid;
SELECT 'not a uuid'::timeuuid;
SELECT '50554d6e-29bb-11e5-b345-feff819cdc9f'::uuid::timeuuid;
SELECT '0b6e5ee4-0c6b-4c6f-9a4b-1f6b8a2d2c1e'::uuid::timeuuid;
SELECT pg_typeof('50554d6e-29bb-11e5-b345-feff819cdc9f'::timeuuid::uuid);

-- Cassandra's order: the timestamp first (time_hi, time_mid, time_low), then the clock sequence
-- and node as signed bytes. These four sort in the reverse of their byte order:
--   a < b < c by time, though b < c < a by bytes (time_low wraps into time_mid);
--   c < d at the same time, though d < c by bytes (clock sequence 0x80.. is negative, 0x7f.. not).
CREATE TEMP TABLE ids (name text, id timeuuid);
INSERT INTO ids VALUES ('c', '80000000-29bc-11e5-8000-000000000001'),
                       ('a', 'ffffff00-29bb-11e5-8000-000000000001'),
                       ('d', '80000000-29bc-11e5-7fff-000000000001'),
                       ('b', '00000100-29bc-11e5-8000-000000000001');
SELECT name, id, timeuuid_timestamp(id) FROM ids ORDER BY id;
SELECT name FROM ids ORDER BY id::uuid;
SELECT x.name, y.name, x.id < y.id AS lt, x.id <= y.id AS le, x.id = y.id AS eq,
       x.id <> y.id AS ne, x.id >= y.id AS ge, x.id > y.id AS gt
  FROM ids x, ids y WHERE x.name IN ('a', 'c') ORDER BY 1, 2;
-- A btree index and a hash (join, DISTINCT) agree.
CREATE INDEX ON ids (id);
SET enable_seqscan = off;
SELECT name FROM ids WHERE id > 'ffffff00-29bb-11e5-8000-000000000001' ORDER BY id DESC;
RESET enable_seqscan;
SET enable_sort = off;
SELECT count(DISTINCT id), count(*) FROM (SELECT id FROM ids UNION ALL SELECT id FROM ids) u;
SELECT x.name FROM ids x JOIN ids y USING (id) ORDER BY 1;
RESET enable_sort;
-- The time of the uuid, as CQL's toTimestamp has it (to the millisecond there).
SELECT timeuuid_timestamp('50554d6e-29bb-11e5-b345-feff819cdc9f');
SELECT cql('SELECT toTimestamp(50554d6e-29bb-11e5-b345-feff819cdc9f) AS t FROM system.local', 'cassette');

-- A Twissandra timeline: a user's tweets, newest first.
SELECT cql($$CREATE KEYSPACE twissandra WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}$$, 'cassette');
SELECT cql($$CREATE TABLE twissandra.timeline (username text, tweet_id timeuuid, body text,
                                               PRIMARY KEY (username, tweet_id))
             WITH CLUSTERING ORDER BY (tweet_id DESC)$$, 'cassette');
CREATE SCHEMA twissandra;
IMPORT FOREIGN SCHEMA twissandra FROM SERVER cassette INTO twissandra;
\d twissandra.timeline
INSERT INTO twissandra.timeline (username, tweet_id, body)
  SELECT u, id, u || ' says ' || name FROM ids, (VALUES ('alice'), ('bob')) v(u);
-- The store's own order is the type's.
SELECT cql($$SELECT tweet_id, body FROM twissandra.timeline WHERE username = 'alice'$$, 'cassette');

-- ORDER BY on the clustering column inside a partition: no Sort, the LIMIT goes down, both ways.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT body FROM twissandra.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
SELECT body FROM twissandra.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT body FROM twissandra.timeline WHERE username = 'alice' ORDER BY tweet_id LIMIT 3;
SELECT body FROM twissandra.timeline WHERE username = 'alice' ORDER BY tweet_id LIMIT 3;
-- A slice in time order goes down too.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT body FROM twissandra.timeline
 WHERE username = 'bob' AND tweet_id > 'ffffff00-29bb-11e5-8000-000000000001' ORDER BY tweet_id DESC;
SELECT body FROM twissandra.timeline
 WHERE username = 'bob' AND tweet_id > 'ffffff00-29bb-11e5-8000-000000000001' ORDER BY tweet_id DESC;
SELECT body FROM twissandra.timeline
 WHERE username = 'bob' AND tweet_id = '80000000-29bc-11e5-7fff-000000000001';
-- Sorted as a uuid (by bytes) or without a partition: PostgreSQL sorts.
EXPLAIN (COSTS OFF)
SELECT body FROM twissandra.timeline WHERE username = 'alice' ORDER BY tweet_id::uuid DESC;
SELECT body FROM twissandra.timeline WHERE username = 'alice' ORDER BY tweet_id::uuid DESC;
EXPLAIN (COSTS OFF)
SELECT username, body FROM twissandra.timeline ORDER BY tweet_id DESC, username LIMIT 3;
SELECT username, body FROM twissandra.timeline ORDER BY tweet_id DESC, username LIMIT 3;
-- A non-version-1 uuid never reaches the store.
INSERT INTO twissandra.timeline (username, tweet_id, body)
  VALUES ('alice', '0b6e5ee4-0c6b-4c6f-9a4b-1f6b8a2d2c1e', 'nope');
SELECT count(*) FROM twissandra.timeline;

-- From cassette_fdw 1.0: IMPORT declared timeuuid columns uuid (byte order, sorted by
-- PostgreSQL); after ALTER EXTENSION ... UPDATE such a table still reads and writes, and a new
-- IMPORT declares them timeuuid.
\set regress_db :DBNAME
CREATE DATABASE cassette_upgrade;
\c cassette_upgrade
SET timezone = 'UTC';
CREATE EXTENSION cassette_fdw VERSION '1.0';
CREATE SERVER cassette FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store :'store');
CREATE SCHEMA v10;
IMPORT FOREIGN SCHEMA twissandra FROM SERVER cassette INTO v10;
\d v10.timeline
EXPLAIN (COSTS OFF)
SELECT body FROM v10.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
ALTER EXTENSION cassette_fdw UPDATE TO '1.1';
\dx cassette_fdw
SELECT body FROM v10.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
-- Declared timeuuid by hand, it sorts by time in the store.
ALTER FOREIGN TABLE v10.timeline ALTER COLUMN tweet_id TYPE timeuuid;
EXPLAIN (COSTS OFF)
SELECT body FROM v10.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
SELECT body FROM v10.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
CREATE SCHEMA v11;
IMPORT FOREIGN SCHEMA twissandra FROM SERVER cassette INTO v11;
\d v11.timeline
SELECT body FROM v11.timeline WHERE username = 'alice' ORDER BY tweet_id DESC LIMIT 3;
\c :regress_db
DROP DATABASE cassette_upgrade;
