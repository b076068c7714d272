-- A database file someone else wrote cannot make this connection's store act through its views
-- and triggers: the functions with side effects are SQLITE_DIRECTONLY (as SQLite's own
-- load_extension and fts3_tokenizer), cql_rows too, and a cql virtual table in a view or trigger
-- reaches only its database's own store (README "Views, triggers and database files you did not
-- write"). Plain queries still run them.
.bail off
.headers on
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'a'), (2, 'b');
.print '== hostile.db, written without the extension: views and a trigger that call the functions'
.shell sqlite3 hostile.db "CREATE TABLE notes (x); CREATE VIEW truncating AS SELECT cql('TRUNCATE main.t') AS r; CREATE VIEW reading AS SELECT json FROM cql_rows('SELECT * FROM main.t'); CREATE VIEW opening AS SELECT cql_open('elsewhere.cassette'); CREATE VIEW flushing AS SELECT cql_flush(); CREATE VIEW compacting AS SELECT cql_compact(); CREATE VIEW importing AS SELECT cql_import_schema('main'); CREATE TRIGGER on_note AFTER INSERT ON notes BEGIN SELECT cql('TRUNCATE main.t'); END;"
.print '== ... and a cql table of its own naming this store, used by a view and a trigger'
.shell sqlite3 hostile.db "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES ('table', 'evil', 'evil', 0, 'CREATE VIRTUAL TABLE evil USING cql(table = ''main.t'', store = ''test.db.cassette'')'); CREATE TABLE marks (x); CREATE VIEW evil_rows AS SELECT * FROM evil; CREATE TRIGGER on_mark AFTER INSERT ON marks BEGIN DELETE FROM evil; END;"
ATTACH 'hostile.db' AS hostile;
SELECT * FROM hostile.truncating;
SELECT * FROM hostile.reading;
SELECT * FROM hostile.opening;
SELECT * FROM hostile.flushing;
SELECT * FROM hostile.compacting;
SELECT * FROM hostile.importing;
INSERT INTO hostile.notes VALUES (1);
SELECT * FROM hostile.evil_rows;
INSERT INTO hostile.marks VALUES (1);
.print '== the rows are intact'
SELECT k, v FROM t;
.shell ls -d elsewhere.cassette 2>/dev/null || echo 'no elsewhere.cassette'
.print '== a direct query may use them'
SELECT count(*) AS direct FROM hostile.evil;
SELECT count(*) AS rows FROM cql_rows('SELECT * FROM main.t');
DETACH hostile;
.print "== views over the database's own cql tables work, unless PRAGMA trusted_schema = OFF"
CREATE VIEW mine AS SELECT k, v FROM t WHERE k = 2;
SELECT * FROM mine;
CREATE TABLE log (x);
CREATE TRIGGER logged AFTER INSERT ON log BEGIN INSERT INTO t VALUES (new.x, 'from a trigger'); END;
INSERT INTO log VALUES (3);
SELECT k, v FROM t WHERE k = 3;
PRAGMA trusted_schema = OFF;
SELECT * FROM mine;
INSERT INTO log VALUES (4);
PRAGMA trusted_schema = ON;
.print "== a table in another store is used directly only, unless cql_open() opened that store"
CREATE VIRTUAL TABLE other USING cql(k int PRIMARY KEY, v text, store = 'other.cassette');
INSERT INTO other VALUES (1, 'other');
CREATE VIEW other_rows AS SELECT * FROM other;
SELECT * FROM other;
SELECT * FROM other_rows;
.open test.db
.load ./cassette
SELECT cql_open('other.cassette') LIKE '%/other.cassette' AS opened;
SELECT * FROM other_rows;
