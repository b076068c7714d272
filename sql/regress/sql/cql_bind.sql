-- cql(statement, server, value...): the values after the server are bound to the statement's
-- markers (? and :name) in the order they are written, each converted to its marker's CQL type.
-- No quoting, no injection.
SET datestyle = ISO;
SET timezone = 'UTC';
SELECT cql($$CREATE KEYSPACE bind WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}$$, 'cassette');
SELECT cql($$CREATE TYPE bind.address (street text, zip int)$$, 'cassette');
SELECT cql($$CREATE TABLE bind.users (id int, at timestamp, name text, score double, tags set<text>,
             prefs map<text, int>, photo blob, home frozen<address>, seen list<timestamp>,
             took duration, tu timeuuid, PRIMARY KEY (id, at))$$, 'cassette');

-- Positional values, by marker order: numbers, timestamps, text, arrays, jsonb, bytea.
SELECT cql('INSERT INTO bind.users (id, at, name, score) VALUES (?, ?, ?, ?)', 'cassette',
           1, timestamptz '2024-01-02 03:04:05+00', 'it''s me', 2.5);
SELECT cql('INSERT INTO bind.users (id, at, name, tags, prefs, photo) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?', 'cassette',
           2, timestamptz '2024-01-02 03:04:05+00', 'Robert''); DROP TABLE bind.users; --',
           ARRAY['b', 'a', 'b'], '{"x": 1}'::jsonb, '\xcafe'::bytea, 3600);
SELECT cql('SELECT id, name, score, tags, prefs, photo FROM bind.users WHERE id IN (?, ?)', 'cassette', 1, 2);
-- A timestamp in another session time zone is the same instant; an interval a duration; a
-- timeuuid (or uuid) a timeuuid.
SET timezone = 'America/New_York';
SELECT cql('UPDATE bind.users SET seen = ?, took = ?, tu = ? WHERE id = ? AND at = ?', 'cassette',
           ARRAY[timestamptz '2024-05-06 07:08:09.01+00'], interval '1 day 2 hours',
           '50554d6e-29bb-11e5-b345-feff819cdc9f'::uuid, 1, timestamptz '2024-01-01 22:04:05-05');
RESET timezone;
SELECT cql('SELECT seen, took, tu FROM bind.users WHERE id = ?', 'cassette', 1);
-- A composite goes through to_json into a UDT.
CREATE TYPE bind_address AS (street text, zip int);
SELECT cql('UPDATE bind.users SET home = ? WHERE id = ? AND at = ?', 'cassette',
           ROW('Main St', 12345)::bind_address, 1, timestamptz '2024-01-02 03:04:05+00');
SELECT cql('SELECT home FROM bind.users WHERE id = ?', 'cassette', 1);
-- Named markers bind by position too; VARIADIC ARRAY[...] gives the values as one array.
SELECT cql('UPDATE bind.users SET score = :score WHERE id = :id AND at = :at', 'cassette',
           9.5, 1, timestamptz '2024-01-02 03:04:05+00');
SELECT cql('SELECT score FROM bind.users WHERE id = :id', 'cassette', VARIADIC ARRAY[1]);
-- NULL binds null; LIMIT ? and IN ? take their types from where they sit.
SELECT cql('UPDATE bind.users SET name = ? WHERE id = ? AND at = ?', 'cassette',
           NULL::text, 1, timestamptz '2024-01-02 03:04:05+00');
SELECT cql('SELECT id, name FROM bind.users WHERE id IN ? LIMIT ?', 'cassette', ARRAY[2, 1], 1);
-- A NULL server is the only cassette_fdw server (this database has two).
SELECT cql('SELECT count(*) FROM bind.users WHERE id = ?', NULL, 1);

-- Errors name the marker and change nothing.
SELECT cql('INSERT INTO bind.users (id, at, name) VALUES (?, ?, ?)', 'cassette', 3, timestamptz '2024-01-01 00:00:00+00');
SELECT cql('INSERT INTO bind.users (id, at, name) VALUES (?, ?, ?)', 'cassette', 3, timestamptz '2024-01-01 00:00:00+00', 'x', 'extra');
SELECT cql('INSERT INTO bind.users (id, at, name) VALUES (?, ?, ?)', 'cassette', 'three', timestamptz '2024-01-01 00:00:00+00', 'x');
SELECT cql('INSERT INTO bind.users (id, at, name) VALUES (?, ?, ?)', 'cassette', 5000000000, timestamptz '2024-01-01 00:00:00+00', 'x');
SELECT cql('INSERT INTO bind.users (id, at, photo) VALUES (?, ?, ?)', 'cassette', 3, timestamptz '2024-01-01 00:00:00+00', true);
SELECT cql('INSERT INTO bind.users (id, at, tags) VALUES (?, ?, ?)', 'cassette', 3, timestamptz '2024-01-01 00:00:00+00', 'not json');
SELECT cql('INSERT INTO bind.users (id, at, tu) VALUES (?, ?, ?)', 'cassette', 3, timestamptz '2024-01-01 00:00:00+00',
           '0b6e5ee4-0c6b-4c6f-9a4b-1f6b8a2d2c1e'::uuid);
SELECT cql('SELECT * FROM bind.users WHERE id = ?', 'cassette', NULL::int);
SELECT cql('SELECT count(*) FROM bind.users WHERE id = ?', 'cassette', 3);

-- Inside a transaction the bound writes join it: a rollback leaves nothing, a commit keeps them.
BEGIN;
SELECT cql('INSERT INTO bind.users (id, at, name) VALUES (?, ?, ?)', 'cassette', 4, timestamptz '2024-01-01 00:00:00+00', 'gone');
SELECT cql('SELECT name FROM bind.users WHERE id = ?', 'cassette', 4);
ROLLBACK;
SELECT cql('SELECT name FROM bind.users WHERE id = ?', 'cassette', 4);
BEGIN;
SELECT cql('INSERT INTO bind.users (id, at, name) VALUES (?, ?, ?)', 'cassette', 4, timestamptz '2024-01-01 00:00:00+00', 'kept');
COMMIT;
SELECT cql('SELECT name FROM bind.users WHERE id = ?', 'cassette', 4);
-- A read-only transaction refuses a bound write as it refuses cql()'s others.
BEGIN READ ONLY;
SELECT cql('DELETE FROM bind.users WHERE id = ?', 'cassette', 4);
ROLLBACK;

-- As cql(text, name), it is not PUBLIC's.
CREATE ROLE regress_cassette_binder;
SET ROLE regress_cassette_binder;
SELECT cql('SELECT name FROM bind.users WHERE id = ?', 'cassette', 4);
RESET ROLE;
DROP ROLE regress_cassette_binder;
