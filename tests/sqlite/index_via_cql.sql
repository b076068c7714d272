-- A secondary index created through cql() is used by an open virtual table at once, without
-- reopening the database: the vtab re-reads the catalog's index list when its version changes.
.bail off
.headers off
.load ./cassette
CREATE VIRTUAL TABLE ev USING cql(k int, c int, kind text, PRIMARY KEY (k, c));
INSERT INTO ev VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'b');
.print '== before the index: a scan that SQLite filters'
EXPLAIN QUERY PLAN SELECT k, c FROM ev WHERE kind = 'b';
SELECT cql('CREATE INDEX ev_kind ON main.ev (kind)');
.print '== after CREATE INDEX through cql(): the index access path'
EXPLAIN QUERY PLAN SELECT k, c FROM ev WHERE kind = 'b';
SELECT k, c FROM ev WHERE kind = 'b';
SELECT cql('DROP INDEX main.ev_kind');
.print '== after DROP INDEX: a scan again'
EXPLAIN QUERY PLAN SELECT k, c FROM ev WHERE kind = 'b';
SELECT k, c FROM ev WHERE kind = 'b';
