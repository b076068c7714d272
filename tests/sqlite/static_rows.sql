-- Writes of a partition's static columns alone, as CQL allows: an INSERT naming only the
-- partition key and static columns, and an UPDATE of a partition SQL sees as a static-only row
-- (clustering columns NULL). A NULL clustering column anywhere else is Cassandra's error.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE teams USING cql(team text, member text, coach text static, role text, PRIMARY KEY (team, member));
INSERT INTO teams (team, coach) VALUES ('red', 'Ann');
SELECT * FROM teams;
SELECT cql('SELECT * FROM main.teams') AS cql_view;
UPDATE teams SET coach = 'Bob' WHERE team = 'red';
SELECT * FROM teams;
INSERT INTO teams (team, member, role) VALUES ('red', 'max', 'lead');
SELECT * FROM teams;
.print '== errors: a regular column without clustering key, a partial clustering key, a table without statics'
INSERT INTO teams (team, coach, role) VALUES ('blue', 'Cy', 'lead');
UPDATE teams SET member = NULL WHERE team = 'red';
CREATE VIRTUAL TABLE plain USING cql(k int, c int, v int, PRIMARY KEY (k, c));
INSERT INTO plain (k, v) VALUES (1, 2);
INSERT INTO plain (k) VALUES (1);
CREATE VIRTUAL TABLE two USING cql(k int, c int, d int, s int static, PRIMARY KEY (k, c, d));
INSERT INTO two (k, c, s) VALUES (1, 1, 5);
SELECT count(*) AS written FROM two;
SELECT * FROM teams WHERE team = 'blue';
.print '== DELETE of a static-only row clears the statics'
INSERT INTO teams (team, coach) VALUES ('green', 'Dee');
DELETE FROM teams WHERE team = 'green';
SELECT * FROM teams WHERE team = 'green';
