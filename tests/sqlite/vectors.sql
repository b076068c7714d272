-- vector<float, n> columns (Cassandra 5.0): read as a JSON array, written as a JSON array or as
-- a BLOB of little-endian float32 values (sqlite-vec's format); an ANN query through cql_rows.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
SELECT cql('CREATE KEYSPACE IF NOT EXISTS main WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS created_keyspace;
CREATE VIRTUAL TABLE items USING cql(id int PRIMARY KEY, label text, v vector<float, 3>);
.print '== written as JSON arrays and as float32 BLOBs'
INSERT INTO items (id, label, v) VALUES (1, 'x', '[1.0, 0.0, 0.0]');
INSERT INTO items (id, label, v) VALUES (2, 'y', '[0, 1, 0]');
INSERT INTO items (id, label, v) VALUES (3, 'xy', X'0000803F0000803F00000000');
INSERT INTO items (id, label, v) VALUES (4, 'half', '[0.5, 0.25, -2]');
SELECT id, v, typeof(v) AS t FROM items ORDER BY id;
SELECT id, json_extract(v, '$[1]') AS second FROM items WHERE id = 4;
.print '== wrong dimension or element type: refused, nothing written'
INSERT INTO items (id, v) VALUES (5, '[1, 2]');
INSERT INTO items (id, v) VALUES (5, '["a", "b", "c"]');
INSERT INTO items (id, v) VALUES (5, X'0000803F');
INSERT INTO items (id, v) VALUES (5, 42);
SELECT count(*) AS rows FROM items;
.print '== written back after a SQL JSON edit'
UPDATE items SET v = json_set(v, '$[2]', 3) WHERE id = 2;
SELECT v FROM items WHERE id = 2;
.print '== a similarity function and an ANN query through cql_rows'
SELECT cql('CREATE CUSTOM INDEX ON main.items (v) USING ''StorageAttachedIndex''') AS created_index;
SELECT json ->> 'id' AS id, round(json ->> 'score', 4) AS score FROM cql_rows('SELECT id, similarity_cosine(v, [1, 1, 0]) AS score FROM main.items ORDER BY v ANN OF [1, 1, 0] LIMIT 2');
SELECT * FROM cql_rows('SELECT id FROM main.items ORDER BY v ANN OF [1, 1] LIMIT 2');
.print '== the ANN index over SSTables (a graph each): flushed, then a row deleted and one moved'
SELECT cql_flush() AS flushed;
DELETE FROM items WHERE id = 3;
UPDATE items SET v = '[1, 1, 0.1]' WHERE id = 4;
SELECT * FROM cql_rows('SELECT id FROM main.items ORDER BY v ANN OF [1, 1, 0] LIMIT 2');
.print '== the index checks every vector written, as CQL writes do: refused, nothing written'
INSERT INTO items (id, v) VALUES (6, '[0, 0, 0]');
UPDATE items SET v = '[0, 0, 0]' WHERE id = 1;
INSERT INTO items (id, v) VALUES (6, X'0000C07F0000803F0000803F');
INSERT INTO items (id, v) VALUES (6, X'0000803F000080FF0000803F');
INSERT INTO items (id, v) VALUES (6, '[1e18, 1, 1]');
SELECT cql('INSERT INTO main.items (id, v) VALUES (6, [0, 0, 0])');
SELECT id, v FROM items ORDER BY id;
