-- Counter tables: increments through cql() (UPDATE ... SET c = c + n), read through SQL.
.bail off
.headers on
.nullvalue NULL
.load ./cassette
CREATE VIRTUAL TABLE page_views USING cql(page text, day date, views counter, uniques counter, PRIMARY KEY (page, day));
.print '== increments through cql()'
SELECT cql('UPDATE main.page_views SET views = views + 1, uniques = uniques + 1 WHERE page = ''/'' AND day = ''2024-01-01''') AS result;
SELECT cql('UPDATE main.page_views SET views = views + 5 WHERE page = ''/'' AND day = ''2024-01-01''') AS result;
SELECT cql('UPDATE main.page_views SET views = views - 2 WHERE page = ''/'' AND day = ''2024-01-01''') AS result;
SELECT page, day, views, uniques, typeof(views) AS type FROM page_views;
.print '== many increments from SQL rows: one cql() call per row'
SELECT count(cql(printf('UPDATE main.page_views SET views = views + %d WHERE page = ''%s'' AND day = ''2024-01-02''', n, page))) AS calls
FROM (SELECT '/a' AS page, 1 AS n UNION ALL SELECT '/b', 2 UNION ALL SELECT '/a', 3 UNION ALL SELECT '/a', 4);
SELECT page, day, views, uniques FROM page_views WHERE day = '2024-01-02' ORDER BY page;
SELECT sum(views) AS total FROM page_views;
.print '== counter writes through SQL INSERT are refused, as CQL refuses INSERT on counters'
INSERT INTO page_views (page, day, views) VALUES ('/c', '2024-01-01', 1);
SELECT count(*) AS c_rows FROM page_views WHERE page = '/c';
.print '== an SQL UPDATE of a counter adds the difference between the new and the old value'
UPDATE page_views SET views = views + 10 WHERE page = '/a' AND day = '2024-01-02';
UPDATE page_views SET views = views - 1, uniques = 5 WHERE page = '/' AND day = '2024-01-01';
SELECT page, day, views, uniques FROM page_views ORDER BY page, day;
SELECT cql('SELECT page, views, uniques FROM main.page_views') AS cql_view;
.print '== DELETE of a counter row'
DELETE FROM page_views WHERE page = '/b';
SELECT page, day, views FROM page_views ORDER BY page, day;
.print '== several increments of one counter in one transaction all count'
BEGIN;
UPDATE page_views SET views = views + 10 WHERE page = '/' AND day = '2024-01-01';
UPDATE page_views SET views = views + 10 WHERE page = '/' AND day = '2024-01-01';
UPDATE page_views SET views = views - 1, uniques = uniques + 1 WHERE page = '/' AND day = '2024-01-01';
SELECT views, uniques FROM page_views WHERE page = '/' AND day = '2024-01-01';
COMMIT;
SELECT views, uniques FROM page_views WHERE page = '/' AND day = '2024-01-01';
SELECT cql('SELECT views, uniques FROM main.page_views WHERE page = ''/'' AND day = ''2024-01-01''') AS cql_view;
.print '== a counter the row does not have yet is NULL in SQL: coalesce() starts it'
UPDATE page_views SET views = views + 1, uniques = uniques + 1 WHERE page = '/a' AND day = '2024-01-02';
UPDATE page_views SET views = views + 1, uniques = coalesce(uniques, 0) + 1 WHERE page = '/a' AND day = '2024-01-02';
SELECT views, uniques FROM page_views WHERE page = '/a' AND day = '2024-01-02';
.print '== an increment another writer commits while an UPDATE runs is kept (no lost update)'
.print '   (the cql() call commits +5 after the UPDATE read views, before it writes views + 1)'
SELECT cql('UPDATE main.page_views SET views = views + 5 WHERE page = ''/'' AND day = ''2024-01-01''') AS result;
UPDATE page_views SET views = views + 1 + 0 * length(cql('UPDATE main.page_views SET views = views + 5 WHERE page = ''/'' AND day = ''2024-01-01''')) WHERE page = '/' AND day = '2024-01-01';
SELECT views FROM page_views WHERE page = '/' AND day = '2024-01-01';
BEGIN;
UPDATE page_views SET views = views + 100 WHERE page = '/' AND day = '2024-01-01';
UPDATE page_views SET views = views + 1 + 0 * length(cql('UPDATE main.page_views SET views = views + 5 WHERE page = ''/'' AND day = ''2024-01-01''')) WHERE page = '/' AND day = '2024-01-01';
COMMIT;
SELECT views FROM page_views WHERE page = '/' AND day = '2024-01-01';
