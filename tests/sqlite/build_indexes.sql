-- cql_build_indexes(): the ANN graphs that a query would build in the background, which a
-- sqlite3 process may not live long enough for, built and saved now (the memtables flushed
-- first); returns how many were built. Every later process loads them.
.load ./cassette
.headers on
SELECT cql('CREATE KEYSPACE main WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS created_keyspace;
SELECT cql('CREATE TABLE main.items (id int PRIMARY KEY, v vector<float, 3>)') AS created;
SELECT cql('CREATE CUSTOM INDEX items_v ON main.items (v) USING ''StorageAttachedIndex''') IS NOT NULL AS indexed;
SELECT cql('INSERT INTO main.items (id, v) VALUES (1, [0.1, 0.2, 0.3])') AS inserted;
SELECT cql('INSERT INTO main.items (id, v) VALUES (2, [0.9, 0.1, 0.0])') AS inserted;
SELECT cql_build_indexes() AS built;
.print '== the graph and its .meta beside the SSTable'
.shell ls test.db.cassette/data | grep -c '\.sst\.ann\.c1\.cosine'
SELECT cql_build_indexes('main.items') AS built_again;
SELECT cql('INSERT INTO main.items (id, v) VALUES (3, [0.8, 0.2, 0.1])') AS inserted;
SELECT cql_build_indexes('main.items') AS built_for_the_new_sstable;
SELECT cql_build_indexes(NULL) AS built_all;
SELECT json FROM cql_rows('SELECT id FROM main.items ORDER BY v ANN OF [1, 0, 0] LIMIT 2');
.print '== errors'
SELECT cql_build_indexes('main.nope');
SELECT cql_build_indexes('nope');
SELECT cql_build_indexes('a', 'b');
PRAGMA query_only = 1;
SELECT cql_build_indexes();
