-- cql(statement) runs any CQL statement and returns its result as JSON; cql_rows(statement)
-- returns the rows of a SELECT as a table.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
.print '== DDL'
SELECT cql('CREATE KEYSPACE shop WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS result;
SELECT cql('CREATE TABLE shop.orders (customer int, placed timestamp, item text, qty int, tags set<text>, PRIMARY KEY (customer, placed)) WITH CLUSTERING ORDER BY (placed DESC)') AS result;
.print '== writes, with TTL and TIMESTAMP'
SELECT cql('INSERT INTO shop.orders (customer, placed, item, qty, tags) VALUES (1, ''2024-01-01 10:00:00'', ''tea'', 2, {''hot'', ''drink''}) USING TIMESTAMP 1000') AS result;
SELECT cql('INSERT INTO shop.orders (customer, placed, item, qty) VALUES (1, ''2024-01-02 10:00:00'', ''cake'', 1) USING TTL 86400') AS result;
SELECT cql('UPDATE shop.orders SET tags = tags + {''sweet''} WHERE customer = 1 AND placed = ''2024-01-02 10:00:00''') AS result;
.print '== SELECT returns a JSON array of rows as toJson writes them'
SELECT cql('SELECT * FROM shop.orders WHERE customer = 1') AS result;
SELECT cql('SELECT item, writetime(item) FROM shop.orders WHERE customer = 1 AND placed = ''2024-01-01 10:00:00''') AS result;
SELECT cql('SELECT * FROM shop.orders WHERE customer = 2') AS no_rows;
.print '== the JSON is SQLite JSON'
SELECT value ->> 'item' AS item, value ->> 'qty' AS qty FROM json_each(cql('SELECT item, qty FROM shop.orders WHERE customer = 1'));
.print '== LWT returns the [applied] row'
SELECT cql('INSERT INTO shop.orders (customer, placed, item) VALUES (1, ''2024-01-01 10:00:00'', ''coffee'') IF NOT EXISTS') AS result;
SELECT cql('UPDATE shop.orders SET qty = 5 WHERE customer = 1 AND placed = ''2024-01-02 10:00:00'' IF qty = 1') AS result;
.print '== BATCH'
SELECT cql('BEGIN BATCH INSERT INTO shop.orders (customer, placed, item) VALUES (2, ''2024-02-01 00:00:00'', ''jam''); INSERT INTO shop.orders (customer, placed, item) VALUES (3, ''2024-02-01 00:00:00'', ''bread''); APPLY BATCH') AS result;
.print '== cql_rows: one SQL row per result row, as (row, json)'
SELECT * FROM cql_rows('SELECT customer, placed, item, qty, tags FROM shop.orders');
SELECT row, json ->> 'item' AS item, json ->> 'writetime(item)' IS NOT NULL AS has_wt FROM cql_rows('SELECT item, writetime(item) FROM shop.orders WHERE customer = 1');
SELECT json ->> 'customer' AS customer, json ->> 'n' AS n FROM cql_rows('SELECT customer, count(*) AS n FROM shop.orders GROUP BY customer');
SELECT count(*) AS no_rows FROM cql_rows('SELECT * FROM shop.orders WHERE customer = 99');
.print '== cql_rows in a join with a native table'
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO customers VALUES (1, 'ann'), (2, 'bob'), (3, 'cy');
SELECT c.name, o.json ->> 'item' AS item FROM customers AS c JOIN cql_rows('SELECT customer, item FROM shop.orders') AS o ON o.json ->> 'customer' = c.id ORDER BY c.name, item;
.print "== a cql_rows virtual table has the statement's columns, typed as the mapping says"
CREATE VIRTUAL TABLE temp.recent USING cql_rows('SELECT customer, placed, item, qty, tags FROM shop.orders');
SELECT * FROM recent;
SELECT typeof(customer), typeof(placed), typeof(qty), typeof(tags) FROM recent LIMIT 1;
SELECT name, type FROM pragma_table_info('recent');
.print '-- it re-runs the statement at each scan'
SELECT cql('DELETE FROM shop.orders WHERE customer = 3') AS result;
SELECT customer, item FROM recent;
.print '== DESCRIBE through cql()'
SELECT json_extract(cql('DESCRIBE TABLES'), '$') AS tables;
.print '== USE sets the keyspace of later cql() calls on this connection'
SELECT cql('SELECT count(*) AS n FROM orders') AS before_use;
SELECT cql('USE shop') AS result;
SELECT cql('SELECT count(*) AS n FROM orders') AS after_use;
.print '== errors'
SELECT cql('SELECT nosuchcolumn FROM shop.orders');
SELECT cql('SELEC 1');
SELECT cql('INSERT INTO shop.orders (customer, item) VALUES (1, ''x'')');
SELECT cql(NULL);
SELECT cql('SELECT * FROM shop.orders; SELECT * FROM shop.orders');
