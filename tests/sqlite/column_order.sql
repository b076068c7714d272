-- A table the virtual table creates keeps its declared column order (SELECT *, INSERT ... VALUES,
-- PRAGMA table_info), across a reopen; the same table exposed with table = '...' shows CQL's
-- order (keys, then the others by name), as cqlsh does; a column ALTER TABLE adds comes last.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE users USING cql(id int, name text, email text, age int, "Zip Code" text, PRIMARY KEY (id));
INSERT INTO users VALUES (1, 'ann', 'ann@example.com', 31, '10115');
SELECT * FROM users;
SELECT name FROM pragma_table_info('users');
CREATE VIRTUAL TABLE users_cql USING cql(table = 'main.users');
SELECT * FROM users_cql;
SELECT cql('ALTER TABLE main.users ADD nickname text');
.open test.db
.load ./cassette
INSERT INTO users VALUES (2, 'bob', 'bob@example.com', 42, '75001', 'bobby');
SELECT * FROM users ORDER BY id;
SELECT id, writetime_email > 0 AS has_writetime, ttl_age FROM users WHERE id = 2;
