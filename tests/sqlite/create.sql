-- CREATE VIRTUAL TABLE ... USING cql(...): every type, table options, the keyspace and store
-- arguments; the CQL table it creates, as DESCRIBE shows it.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
.print '== the events table of the issue: composite partition key, DESC clustering, a TTL option'
CREATE VIRTUAL TABLE events USING cql(source text, hour int, ts bigint, kind text, payload text, PRIMARY KEY ((source, hour), ts), CLUSTERING ORDER BY (ts DESC), default_time_to_live = 86400);
SELECT json_extract(cql('DESCRIBE TABLE main.events'), '$[0].create_statement') AS cql;
SELECT name, type, hidden FROM pragma_table_xinfo('events');
.print '== the keyspace main was created'
SELECT json_extract(cql('DESCRIBE KEYSPACE main'), '$[0].create_statement') AS cql;
.print '== every CQL type, and several options (a map option is written as a string: SQLite allows no { here)'
SELECT cql('CREATE TYPE main.point (x double, y double)') AS created_type;
CREATE VIRTUAL TABLE alltypes USING cql(k int PRIMARY KEY, a ascii, bi bigint, b blob, bo boolean, d date, dec decimal, dbl double, dur duration, f float, i inet, n int, si smallint, t text, tm time, ts timestamp, tu timeuuid, ti tinyint, u uuid, vc varchar, vi varint, l list<int>, s set<text>, m map<text, int>, fl frozen<list<int>>, tup tuple<int, text>, p frozen<point>, comment = 'all of them', gc_grace_seconds = 3600, compaction = '{''class'': ''SizeTieredCompactionStrategy'', ''min_threshold'': 6}');
CREATE VIRTUAL TABLE withstatic USING cql(k int, c int, st int STATIC, v int, PRIMARY KEY (k, c));
SELECT json_extract(cql('DESCRIBE TABLE main.withstatic'), '$[0].create_statement') AS cql;
SELECT json_extract(cql('DESCRIBE TABLE main.alltypes'), '$[0].create_statement') AS cql;
SELECT name, type FROM pragma_table_xinfo('alltypes') WHERE hidden = 0;
.print "== keyspace = 'ks' puts the table in another keyspace, created if missing"
CREATE VIRTUAL TABLE metrics USING cql(name text PRIMARY KEY, value double, keyspace = 'telemetry');
INSERT INTO metrics VALUES ('cpu', 0.5);
SELECT cql('SELECT * FROM telemetry.metrics') AS result;
SELECT json_extract(cql('DESCRIBE KEYSPACE telemetry'), '$[0].create_statement') AS cql;
.print '== the CQL table is named as the virtual table; another SQL name needs table='
SELECT cql('CREATE TABLE main.metrics (name text PRIMARY KEY, value double)') AS result;
CREATE VIRTUAL TABLE metrics_main USING cql(table = 'main.metrics');
INSERT INTO metrics_main VALUES ('mem', 0.25);
SELECT 'metrics' AS sql_table, * FROM metrics UNION ALL SELECT 'metrics_main', * FROM metrics_main;
SELECT json_extract(cql('DESCRIBE TABLES'), '$') AS tables;
.print "== store = 'path' puts the table in another store"
CREATE VIRTUAL TABLE elsewhere USING cql(k int PRIMARY KEY, v text, store = 'other.cassette');
INSERT INTO elsewhere VALUES (1, 'in the other store');
SELECT * FROM elsewhere;
.shell ls -d test.db.cassette other.cassette
.shell "$CASSETTE" other.cassette -e "SELECT * FROM main.elsewhere"
.shell "$CASSETTE" test.db.cassette -e "DESCRIBE TABLES"
.print '== the CQL table already exists'
SELECT cql('CREATE TABLE main.existing (k int PRIMARY KEY)') AS result;
CREATE VIRTUAL TABLE existing USING cql(k int PRIMARY KEY, v text);
SELECT count(*) AS existing_in_sqlite FROM sqlite_schema WHERE name = 'existing';
.print '== table= and column definitions together'
CREATE VIRTUAL TABLE events2 USING cql(source text, hour int, ts bigint, PRIMARY KEY ((source, hour), ts), table = 'main.events');
.print '== DROP TABLE drops the CQL table it created, and only that'
DROP TABLE withstatic;
DROP TABLE metrics_main;
SELECT cql('SELECT * FROM main.withstatic') AS result;
SELECT cql('SELECT * FROM main.metrics') AS result;
SELECT json_extract(cql('DESCRIBE TABLES'), '$') AS tables;
