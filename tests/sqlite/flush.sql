-- cql_flush(): committed rows move from the commit log to SSTables and stay readable; what an
-- open transaction has buffered is not written by it.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE readings USING cql(sensor text, at int, value double, PRIMARY KEY (sensor, at));
INSERT INTO readings VALUES ('a', 1, 1.5), ('a', 2, 2.5), ('b', 1, 10.0);
.shell ls test.db.cassette/data | grep -c '\.sst$' || true
SELECT cql_flush();
.shell ls test.db.cassette/data | grep -c '\.sst$' || true
SELECT * FROM readings ORDER BY sensor, at;
BEGIN;
INSERT INTO readings VALUES ('c', 1, 7.0);
SELECT cql_flush();
ROLLBACK;
SELECT count(*) AS after_rollback FROM readings WHERE sensor = 'c';
SELECT cql_flush('extra');
.open test.db
.load ./cassette
SELECT sensor, sum(value) AS total FROM readings GROUP BY sensor;
