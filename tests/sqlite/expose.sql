-- Exposing CQL tables that already exist: table='ks.t' for one, cql_import_schema('ks') for a
-- whole keyspace. Dropping such a virtual table leaves the CQL table alone.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
SELECT cql('CREATE KEYSPACE shop WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS result;
SELECT cql('CREATE TABLE shop.orders (customer int, id int, item text, PRIMARY KEY (customer, id)) WITH CLUSTERING ORDER BY (id DESC)') AS result;
SELECT cql('CREATE TABLE shop.stock (item text PRIMARY KEY, qty int)') AS result;
SELECT cql('CREATE TABLE shop.views (page text PRIMARY KEY, hits counter)') AS result;
SELECT cql('INSERT INTO shop.orders (customer, id, item) VALUES (1, 1, ''tea'')') AS result;
SELECT cql('INSERT INTO shop.orders (customer, id, item) VALUES (1, 2, ''cake'')') AS result;
SELECT cql('INSERT INTO shop.stock (item, qty) VALUES (''tea'', 10)') AS result;
SELECT cql('UPDATE shop.views SET hits = hits + 3 WHERE page = ''/''') AS result;
.print "== table='ks.t' exposes one table under any SQL name"
CREATE VIRTUAL TABLE my_orders USING cql(table = 'shop.orders');
SELECT * FROM my_orders;
SELECT name, type FROM pragma_table_xinfo('my_orders') WHERE hidden = 0;
INSERT INTO my_orders VALUES (2, 1, 'jam');
SELECT cql('SELECT * FROM shop.orders WHERE customer = 2') AS result;
.print "== cql_import_schema('ks') exposes every table of a keyspace under its own name"
SELECT cql_import_schema('shop') AS imported;
SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name;
SELECT * FROM orders ORDER BY customer, id;
SELECT * FROM stock;
SELECT * FROM views;
.print '-- importing again adds nothing and fails nothing'
SELECT cql_import_schema('shop') AS imported_again;
.print '-- a name taken by another CQL table (shop.stock here) fails the import, which creates nothing'
SELECT cql('CREATE KEYSPACE depot WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS result;
SELECT cql('CREATE TABLE depot.aisles (n int PRIMARY KEY)') AS result;
SELECT cql('CREATE TABLE depot.stock (sku text PRIMARY KEY, bin int)') AS result;
SELECT cql_import_schema('depot');
SELECT name FROM sqlite_schema WHERE name IN ('aisles', 'stock');
.print '-- a table created with column definitions in that keyspace counts as imported'
CREATE VIRTUAL TABLE shelves USING cql(n int PRIMARY KEY, keyspace = 'depot');
DROP TABLE stock;
SELECT cql_import_schema('depot') AS imported;
SELECT name FROM sqlite_schema WHERE name IN ('aisles', 'stock', 'shelves') ORDER BY name;
DROP TABLE stock;
CREATE VIRTUAL TABLE stock USING cql(table = 'shop.stock');
.print '-- a keyspace that does not exist'
SELECT cql_import_schema('nosuchkeyspace');
.print '== DROP TABLE of an exposed table keeps the CQL table and its data'
DROP TABLE my_orders;
DROP TABLE stock;
SELECT cql('SELECT * FROM shop.stock') AS still_there;
SELECT count(*) AS orders_rows FROM orders;
.print '== a table created later through cql() can be exposed too'
SELECT cql('CREATE TABLE shop.later (k int PRIMARY KEY, v text)') AS result;
CREATE VIRTUAL TABLE later USING cql(table = 'shop.later');
INSERT INTO later VALUES (1, 'x');
SELECT * FROM later;
