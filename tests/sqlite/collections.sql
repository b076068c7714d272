-- Collections, tuples and user types as JSON text: read with SQLite's JSON functions, written
-- back as JSON; sets and maps in comparator order.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
SELECT cql('CREATE KEYSPACE IF NOT EXISTS main WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS created_keyspace;
SELECT cql('CREATE TYPE main.address (street text, city text, zip int)') AS created_type;
CREATE VIRTUAL TABLE c USING cql(k int PRIMARY KEY, l list<text>, s set<int>, m map<text, int>, fs frozen<set<text>>, nested map<text, frozen<list<int>>>, tup tuple<int, text, boolean>, addr frozen<address>, tl list<timestamp>, us set<uuid>);
.print '== written as JSON; sets deduplicated and sorted, maps sorted by key, lists kept in order'
INSERT INTO c (k, l, s, m, fs, nested, tup, addr, tl, us) VALUES (1, '["b", "a", "b"]', '[3, 1, 2, 3]', '{"z": 26, "a": 1}', '["pear", "apple"]', '{"x": [1, 2], "w": []}', '[1, "one", true]', '{"street": "1 Main St", "city": "Springfield", "zip": 12345}', '["2024-01-01 00:00:00.000"]', '["550e8400-e29b-41d4-a716-446655440000", "00000000-0000-0000-0000-000000000000"]');
SELECT l, s, m, fs, nested, tup, addr, tl, us FROM c WHERE k = 1;
.print '== read with json_extract and json_each'
SELECT json_extract(l, '$[1]') AS l1, json_array_length(s) AS s_len, json_extract(m, '$.z') AS m_z, json_extract(addr, '$.city') AS city, json_extract(nested, '$.x[1]') AS x1, json_extract(tup, '$[1]') AS tup1 FROM c WHERE k = 1;
SELECT key, value FROM c, json_each(c.m) WHERE k = 1;
SELECT value FROM c, json_each(c.s) WHERE k = 1 AND value > 1;
.print '== written back after SQL JSON edits'
UPDATE c SET l = json_insert(l, '$[#]', 'c'), s = json_insert(s, '$[#]', 0), m = json_set(m, '$.m', 13), addr = json_set(addr, '$.zip', 54321) WHERE k = 1;
SELECT l, s, m, addr FROM c WHERE k = 1;
.print '== a JSON array built by SQL'
INSERT INTO c (k, s, m) SELECT 2, json_group_array(value * 10), json_object('n', 1) FROM json_each('[5, 4, 5]');
SELECT k, s, m FROM c WHERE k = 2;
.print '== empty collections read as NULL, as in Cassandra'
INSERT INTO c (k, l, s, m) VALUES (3, '[]', '[]', '{}');
SELECT k, l, s, m FROM c WHERE k = 3;
.print '== collection operations through cql(): append, remove, put'
SELECT cql('UPDATE main.c SET l = l + [''d''], s = s - {1}, m[''q''] = 17 WHERE k = 1') AS result;
SELECT l, s, m FROM c WHERE k = 1;
SELECT cql('UPDATE main.c SET l = [''x''] + l WHERE k = 1') AS result;
SELECT json_extract(l, '$[0]') AS first FROM c WHERE k = 1;
.print '== values that are not valid for the element type fail and write nothing'
UPDATE c SET s = '["x"]' WHERE k = 1;
UPDATE c SET m = '{"a": "not an int"}' WHERE k = 1;
UPDATE c SET tup = '[1, "one"]' WHERE k = 1;
UPDATE c SET addr = '{"nosuchfield": 1}' WHERE k = 1;
UPDATE c SET l = '{"not": "a list"}' WHERE k = 1;
SELECT s, m, tup, addr FROM c WHERE k = 1;
.print '== finding rows by a collection element: SQLite filters the scan'
SELECT k FROM c WHERE EXISTS (SELECT 1 FROM json_each(c.s) WHERE value = 40) ORDER BY k;
.print '== decimals and varints in JSON numbers keep every digit (not read through a double)'
CREATE VIRTUAL TABLE cn USING cql(k int PRIMARY KEY, ld list<decimal>, mv map<int, varint>);
INSERT INTO cn (k, ld, mv) VALUES (1, '[-6312567890.1292233770, 0.1000000000000000055511151231257827, 1e-30]', '{"1": 123456789012345678901234567890}');
SELECT ld, mv FROM cn WHERE k = 1;
