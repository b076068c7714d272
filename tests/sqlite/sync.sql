-- The sync = '...' argument: the commit log's sync mode for the store the table opens (full,
-- normal or off, any case). A bad value is refused, naming the three; tables of one store must
-- agree, since a store is opened once per process with one mode.
.load ./cassette
.headers on
CREATE VIRTUAL TABLE quick USING cql(k int PRIMARY KEY, v text, store = 'quick.cassette', sync = 'normal');
INSERT INTO quick VALUES (1, 'one'), (2, 'two');
CREATE VIRTUAL TABLE loose USING cql(k int PRIMARY KEY, v text, store = 'loose.cassette', sync = OFF);
INSERT INTO loose VALUES (3, 'three');
CREATE VIRTUAL TABLE careful USING cql(k int PRIMARY KEY, v text, sync = 'Full');
INSERT INTO careful VALUES (4, 'four');
CREATE VIRTUAL TABLE bad USING cql(k int PRIMARY KEY, v text, sync = 'sometimes');
CREATE VIRTUAL TABLE quick2 USING cql(k int PRIMARY KEY, v text, store = 'quick.cassette', sync = 'full');
CREATE VIRTUAL TABLE quick3 USING cql(k int PRIMARY KEY, v text, store = 'quick.cassette');
INSERT INTO quick3 VALUES (5, 'five');
.open test.db
.load ./cassette
SELECT * FROM quick ORDER BY k;
SELECT * FROM loose;
SELECT * FROM careful;
SELECT * FROM quick3;
SELECT name FROM sqlite_schema WHERE name IN ('bad', 'quick2');
