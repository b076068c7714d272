-- cql() reads Cassandra's system tables, generated from the connection's store (engine/cql/
-- system_tables.h); writes to them are refused.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
SELECT cql('CREATE KEYSPACE shop WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}') AS result;
SELECT cql('CREATE TABLE shop.orders (customer int, placed timestamp, item text, PRIMARY KEY (customer, placed)) WITH CLUSTERING ORDER BY (placed DESC)') AS result;
SELECT cql('SELECT release_version, cluster_name, tokens FROM system.local') AS local;
SELECT length(cql('SELECT now() FROM system.local')) AS now_json_length;
SELECT cql('SELECT keyspace_name, table_name FROM system_schema.tables WHERE keyspace_name = ''shop''') AS tables;
SELECT value ->> 'column_name' AS column_name, value ->> 'kind' AS kind, value ->> 'clustering_order' AS clustering_order, value ->> 'type' AS type
  FROM json_each(cql('SELECT * FROM system_schema.columns WHERE keyspace_name = ''shop'' AND table_name = ''orders'''));
SELECT cql('UPDATE system.local SET cluster_name = ''x'' WHERE key = ''local''') AS refused;
