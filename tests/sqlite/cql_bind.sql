-- cql(statement, value...): the values after the statement are bound to its markers (? and
-- :name) in the order they are written, each converted to its marker's CQL type as a value
-- written to a column of that type is. No quoting, no injection.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
SELECT cql('CREATE KEYSPACE app WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS result;
SELECT cql('CREATE TABLE app.users (id int, at timestamp, name text, score double, tags set<text>, prefs map<text, int>, photo blob, PRIMARY KEY (id, at))') AS result;
.print '== positional values, by marker order'
SELECT cql('INSERT INTO app.users (id, at, name, score) VALUES (?, ?, ?, ?)', 1, '2024-01-02 03:04:05', 'it''s me', 2.5) AS result;
SELECT cql('INSERT INTO app.users (id, at, name, tags, prefs, photo) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?', 2, 1704164645000, 'Robert''); DROP TABLE app.users; --', '["a", "b"]', '{"x": 1}', x'cafe', 3600) AS result;
SELECT cql('SELECT id, name, score, tags, prefs, photo FROM app.users WHERE id IN (?, ?)', 1, 2) AS result;
.print '== named markers bind by position too'
SELECT cql('UPDATE app.users SET score = :score WHERE id = :id AND at = :at', 9.5, 1, '2024-01-02 03:04:05') AS result;
SELECT cql('SELECT score FROM app.users WHERE id = :id', 1) AS result;
.print '== NULL binds null; LIMIT ? and IN ? take their types from where they sit'
SELECT cql('UPDATE app.users SET name = ? WHERE id = ? AND at = ?', NULL, 1, '2024-01-02 03:04:05') AS result;
SELECT cql('SELECT id, name FROM app.users WHERE id IN ? LIMIT ?', '[2, 1]', 1) AS result;
.print '== errors change nothing'
SELECT cql('INSERT INTO app.users (id, at, name) VALUES (?, ?, ?)', 3, 0) AS result;
SELECT cql('INSERT INTO app.users (id, at, name) VALUES (?, ?, ?)', 3, 0, 'x', 'extra') AS result;
SELECT cql('INSERT INTO app.users (id, at, name) VALUES (?, ?, ?)', 'three', 0, 'x') AS result;
SELECT cql('INSERT INTO app.users (id, at, tags) VALUES (?, ?, ?)', 3, 0, 'not json') AS result;
SELECT cql('SELECT * FROM app.users WHERE id = ?', NULL) AS result;
SELECT cql('SELECT count(*) FROM app.users WHERE id = 3') AS result;
.print '== without values, a marker is an error as before'
SELECT cql('SELECT * FROM app.users WHERE id = ?') AS result;
