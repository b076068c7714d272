-- cql_compact(): the store's memtables are written out and each table's SSTables merged into
-- one now (all tables, or cql_compact('ks.t') one); the rows stay as they were.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE readings USING cql(sensor text, at int, value double, PRIMARY KEY (sensor, at), gc_grace_seconds = 0);
CREATE VIRTUAL TABLE other USING cql(k int PRIMARY KEY, v text);
INSERT INTO readings VALUES ('a', 1, 1.5), ('a', 2, 2.5);
INSERT INTO other VALUES (1, 'x');
SELECT cql_flush();
INSERT INTO readings VALUES ('b', 1, 10.0);
INSERT INTO other VALUES (2, 'y');
SELECT cql_flush();
DELETE FROM readings WHERE sensor = 'a' AND at = 1;
SELECT cql_flush();
.print '== SSTables per table id (0 the catalog, 1 readings, 2 other)'
.shell ls test.db.cassette/data | cut -c1-16 | uniq -c
SELECT cql_compact('main.readings');
.print "== after cql_compact('main.readings')"
.shell ls test.db.cassette/data | cut -c1-16 | uniq -c
SELECT * FROM readings ORDER BY sensor, at;
INSERT INTO other VALUES (3, 'not flushed yet');
SELECT cql_compact();
.print '== after cql_compact()'
.shell ls test.db.cassette/data | cut -c1-16 | uniq -c
SELECT * FROM readings ORDER BY sensor, at;
SELECT * FROM other ORDER BY k;
.print '== errors'
SELECT cql_compact('main.nope');
SELECT cql_compact('nope');
SELECT cql_compact('a', 'b');
