-- vector<float, n> (Cassandra 5.0) as real[]: IMPORT FOREIGN SCHEMA, reads, writes, dimensions.
SET extra_float_digits = 0;
SELECT cql($$CREATE TABLE app.embeddings (id int PRIMARY KEY, label text, v vector<float, 3>)$$);
IMPORT FOREIGN SCHEMA app LIMIT TO (embeddings) FROM SERVER cassette INTO imported;
\d imported.embeddings
-- Written by CQL, read by SQL.
SELECT cql($$INSERT INTO app.embeddings (id, label, v) VALUES (1, 'x', [1.0, 0.0, 0.0])$$);
SELECT id, v, pg_typeof(v), v[3] FROM imported.embeddings;
-- Written by SQL, read by CQL.
INSERT INTO imported.embeddings (id, label, v) VALUES (2, 'y', '{0, 1, 0.5}');
INSERT INTO imported.embeddings (id, label, v) VALUES (3, 'z', ARRAY[0.25, -2, 3]::real[]);
SELECT cql('SELECT id, v FROM app.embeddings WHERE id IN (2, 3)');
-- A wrong dimension or a NULL element is refused and writes nothing.
INSERT INTO imported.embeddings (id, v) VALUES (4, '{1, 2}');
INSERT INTO imported.embeddings (id, v) VALUES (4, '{1, NULL, 2}');
UPDATE imported.embeddings SET v = '{1, 2, 3, 4}' WHERE id = 1;
SELECT id, v FROM imported.embeddings ORDER BY id;
-- An ANN query through cql().
SELECT cql($$CREATE CUSTOM INDEX ON app.embeddings (v) USING 'StorageAttachedIndex'
  WITH OPTIONS = {'similarity_function': 'euclidean'}$$);
SELECT cql('SELECT id FROM app.embeddings ORDER BY v ANN OF [0, 1, 0] LIMIT 2');
-- The index checks every vector written, as CQL's writes: finite elements of at most 1e17 in
-- magnitude; a zero vector only under cosine similarity. Refused writes change nothing.
INSERT INTO imported.embeddings (id, v) VALUES (5, '{NaN, 1, 2}');
INSERT INTO imported.embeddings (id, v) VALUES (5, '{1, -Infinity, 2}');
UPDATE imported.embeddings SET v = '{1e18, 1, 2}' WHERE id = 1;
INSERT INTO imported.embeddings (id, v) VALUES (5, '{0, 0, 0}');
SELECT cql('SELECT id, v FROM app.embeddings WHERE id = 5');
DELETE FROM imported.embeddings WHERE id = 5;
SELECT cql('DROP INDEX app.embeddings_v_idx');
SELECT cql($$CREATE CUSTOM INDEX ON app.embeddings (v) USING 'StorageAttachedIndex'$$) IS NOT NULL AS created;
INSERT INTO imported.embeddings (id, v) VALUES (6, '{0, 0, 0}');
UPDATE imported.embeddings SET v = '{0, 0, 0}' WHERE id = 1;
SELECT cql('INSERT INTO app.embeddings (id, v) VALUES (6, [0, 0, 0])');
SELECT id, v FROM imported.embeddings ORDER BY id;
DROP FOREIGN TABLE imported.embeddings;
SELECT cql('DROP TABLE app.embeddings');
