-- Every SQL example of ext/sqlite/README.md, in the order the page shows them, with what it
-- prints: a change that breaks an example breaks this session.
.bail off
.headers on
.load ./cassette
.print '== the first example'
CREATE VIRTUAL TABLE events USING cql(
  source text, hour int, ts bigint, kind text, payload text,
  PRIMARY KEY ((source, hour), ts), CLUSTERING ORDER BY (ts DESC), default_time_to_live = 86400);
INSERT INTO events (source, hour, ts, kind, payload) VALUES ('web', 7, 1000, 'click', '{}');
SELECT ts, kind, writetime_kind > 0 AS has_writetime, ttl_kind > 86000 AS ttl_kind FROM events
 WHERE source = 'web' AND hour = 7 ORDER BY ts DESC LIMIT 50;
SELECT cql('SELECT * FROM main.events WHERE source = ''web'' AND hour = 7');
.print '== table options: a map option is written as a string'
CREATE VIRTUAL TABLE opts USING cql(k int PRIMARY KEY, v text, default_time_to_live = 86400, gc_grace_seconds = 0, comment = 'x', compression = '{''class'': ''ZstdCompressor'', ''compression_level'': 6}');
SELECT json_extract(cql('DESCRIBE TABLE main.opts'), '$[0].create_statement') LIKE '%''compression_level'': ''6''%' AS compression_level_6;
.print '== a column added through cql() appears in the next statement'
SELECT cql('ALTER TABLE main.events ADD referrer text');
SELECT name FROM pragma_table_info('events');
.print '== the key is in the CQL description'
SELECT instr(json_extract(cql('DESCRIBE TABLE main.events'), '$[0].create_statement'), 'PRIMARY KEY ((source, hour), ts)') > 0 AS has_key;
.print '== a bad value names the column'
INSERT INTO events (source, hour, ts) VALUES ('web', 'abc', 1);
.print '== GROUP BY grouped by the store, and the idxStr examples'
INSERT INTO events (source, hour, ts, kind, payload) VALUES ('web', 7, 1001, 'view', '/docs'), ('app', 7, 1000, 'view', '/');
EXPLAIN QUERY PLAN SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind DESC;
SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind DESC;
EXPLAIN QUERY PLAN SELECT * FROM events WHERE source = 'web' AND hour = 7 AND ts < 2000 ORDER BY ts DESC LIMIT 5;
EXPLAIN QUERY PLAN SELECT * FROM events WHERE token >= 0 AND token < 100;
EXPLAIN QUERY PLAN SELECT * FROM events;
.print '== counters: UPDATE needs coalesce(c, 0) for a counter the row does not have yet'
CREATE VIRTUAL TABLE visits USING cql(page text PRIMARY KEY, n counter);
SELECT cql('UPDATE main.visits SET n = n + 1 WHERE page = ''/''');
UPDATE visits SET n = coalesce(n, 0) + 1 WHERE page = '/';
SELECT * FROM visits;
.print '== a write of the static columns alone'
CREATE VIRTUAL TABLE teams USING cql(team text, member text, coach text STATIC, PRIMARY KEY (team, member));
INSERT INTO teams (team, coach) VALUES ('red', 'Ann');
SELECT * FROM teams;
.print '== transactions: a schema change rolled back'
CREATE VIRTUAL TABLE orders USING cql(id int PRIMARY KEY, item text);
INSERT INTO orders VALUES (1, 'tea');
BEGIN;
CREATE VIRTUAL TABLE orders_v2 USING cql(id int PRIMARY KEY, item text, qty int);
INSERT INTO orders_v2 SELECT id, item, 1 FROM orders;
DROP TABLE orders;
ROLLBACK;
SELECT * FROM orders;
SELECT cql('SELECT * FROM main.orders_v2') AS orders_v2;
.print '== transactions: cql() joins the transaction'
CREATE VIRTUAL TABLE stock USING cql(item text PRIMARY KEY, qty int);
BEGIN;
INSERT INTO stock VALUES ('tea', 10);
SELECT cql('UPDATE main.stock SET qty = 9 WHERE item = ''tea''');
SELECT cql('SELECT qty FROM main.stock WHERE item = ''tea''');
ROLLBACK;
SELECT count(*) FROM stock;
.print '== read-only connections'
PRAGMA query_only = 1;
SELECT cql('TRUNCATE main.events');
PRAGMA query_only = 0;
.print '== cql() results'
CREATE VIRTUAL TABLE kv USING cql(k int PRIMARY KEY, v text);
INSERT INTO kv VALUES (1, 'a');
SELECT cql('SELECT k, v FROM main.kv') AS rows, cql('INSERT INTO main.kv (k, v) VALUES (1, ''a'') IF NOT EXISTS') AS lwt;
SELECT cql('INSERT INTO main.kv (k, v) VALUES (2, ''b'')') AS write, cql('CREATE TABLE main.x (k int PRIMARY KEY)') AS ddl, cql('USE main') AS use;
.print '== cql_rows'
SELECT * FROM cql_rows('SELECT k, v FROM main.kv');
SELECT json_extract(json, '$.v') AS v FROM cql_rows('SELECT k, v FROM main.kv');
CREATE VIRTUAL TABLE temp.recent USING cql_rows('SELECT k, v FROM main.kv');
SELECT v FROM recent;
.print '== cql_open and cql_import_schema'
.shell mkdir -p data
SELECT cql_open('data/shop.cassette') LIKE '%/data/shop.cassette' AS opened;
SELECT cql('CREATE KEYSPACE shop WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}');
SELECT cql('CREATE TABLE shop.products (id int PRIMARY KEY, name text)');
SELECT cql_import_schema('shop');
INSERT INTO products VALUES (1, 'pen');
SELECT * FROM products;
.print '== cql_flush and cql_compact'
CREATE VIRTUAL TABLE readings USING cql(sensor text, at int, value double, PRIMARY KEY (sensor, at));
INSERT INTO readings VALUES ('a', 1, 1.5);
SELECT cql_flush();
DELETE FROM readings WHERE sensor = 'a';
SELECT cql_compact('main.readings');
SELECT count(*) AS readings FROM readings;
.print '== a store path whose parent is missing'
CREATE VIRTUAL TABLE lost USING cql(k int PRIMARY KEY, store = 'no-such-dir/x.cassette');
.print '== a database file someone else wrote'
.shell sqlite3 download.db "CREATE VIEW report AS SELECT cql('TRUNCATE main.events') AS r"
ATTACH 'download.db' AS d;
SELECT * FROM d.report;
