-- Page-view counters: a CQL counter table, incremented with CQL's `SET n = n + 1` through
-- cql() (counters only change by increments, so SQL INSERT/UPDATE do not apply), read from SQL.
-- Run after `.load ./build/cassette`.
.headers on
.mode box
CREATE VIRTUAL TABLE page_views USING cql(
  page text,
  day date,
  views counter,
  PRIMARY KEY (page, day)
);

-- A native SQLite table of raw hits, as a web server's log would give them: 1,000 hits over
-- three days on five pages, the front page and the docs most.
CREATE TABLE hits (at TEXT, page TEXT);
INSERT INTO hits
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
SELECT datetime('2024-03-01', '+' || (i * 259) || ' seconds'),
       json_extract('["/", "/", "/", "/docs", "/docs", "/blog", "/docs/sqlite", "/", "/pricing", "/docs"]',
                    '$[' || ((i * 7 + i / 10) % 10) || ']')
FROM n;

-- One increment per (page, day) with the day's count: a cql() call per grouped row.
SELECT count(cql(printf('UPDATE main.page_views SET views = views + %d WHERE page = %s AND day = ''%s''',
                        n, quote(page), day))) AS increments
FROM (SELECT page, date(at) AS day, count(*) AS n FROM hits GROUP BY page, day);

-- Two more hits on the pricing page arrive later: each is one increment, as a web server would
-- send them.
SELECT cql('UPDATE main.page_views SET views = views + 1 WHERE page = ''/pricing'' AND day = ''2024-03-03''') AS hit;
SELECT cql('UPDATE main.page_views SET views = views + 1 WHERE page = ''/pricing'' AND day = ''2024-03-03''') AS hit;

.print 'Views per page and day:'
SELECT page, day, views FROM page_views ORDER BY page, day;

.print 'Top pages over the three days:'
SELECT page, sum(views) AS views FROM page_views GROUP BY page ORDER BY views DESC, page;

.print 'One page, one partition read:'
SELECT day, views FROM page_views WHERE page = '/docs' ORDER BY day DESC;
