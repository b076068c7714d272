-- cql_open(path): the connection's main store becomes another directory, for cql(), the
-- imported tables (which record the store, so a reopened database finds it) and new tables.
.load ./cassette
.shell "$CASSETTE" shared.cassette -e "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; CREATE TABLE ks.users (id int PRIMARY KEY, name text); INSERT INTO ks.users (id, name) VALUES (1, 'ann'); INSERT INTO ks.users (id, name) VALUES (2, 'bob');"
SELECT cql_open(NULL);
SELECT cql_open('');
SELECT cql_open('no-such-dir/x.cassette');
SELECT cql_open('shared.cassette') LIKE '%/shared.cassette' AS opened;
SELECT cql('SELECT name FROM ks.users WHERE id = 2');
SELECT cql_import_schema('ks');
SELECT * FROM users ORDER BY id;
SELECT replace(sql, cql_open('shared.cassette'), '<store>') FROM sqlite_schema;
INSERT INTO users VALUES (3, 'cy');
.open test.db
.load ./cassette
SELECT * FROM users ORDER BY id;
.shell "$CASSETTE" shared.cassette -e "SELECT name FROM ks.users WHERE id = 3;"
.shell ls | grep -c 'test.db.cassette' || true
