-- Loads Twissandra: 200 users, each followed by 12 others, and 3,000 tweets, each written to
-- the tweets table and fanned out to the timeline of every follower of its author (and of the
-- author), 39,000 timeline rows in all. Pure SQL: recursive CTEs make the rows and
-- INSERT ... SELECT writes them; the transaction commits everything as one store commit.
-- Deterministic, so the timelines it prints are the same on every run.

BEGIN;

INSERT INTO users (user_id, name, joined)
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
SELECT printf('user%03d', i),
       json_extract('["Ada","Alan","Barbara","Claude","Donald","Edsger","Frances","Grace",'
                    || '"John","Ken","Leslie","Margaret"]', '$[' || (i % 12) || ']') || ' ' || i,
       datetime('2023-01-01', '+' || i || ' hours')
FROM n;

-- user i is followed by users i+1, i+4, i+9, ..., i+144 (mod 200): 12 distinct followers.
INSERT INTO followers (user_id, follower_id, since)
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199),
               k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 12)
SELECT printf('user%03d', i), printf('user%03d', (i + j * j) % 200),
       datetime('2023-06-01', '+' || (i * 12 + j) || ' minutes')
FROM n, k;

-- Tweet i is posted by user (i * 37) % 200 at 2024-01-01 00:00:00 + 61 s * i. Its id is a
-- version-1 (time) UUID built as Cassandra builds them: the time in 100 ns units since
-- 1582-10-15 split over the first three fields, then a clock sequence and a node id.
INSERT INTO tweets (tweet_id, author, body, posted_at)
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999),
  t(i, ms) AS (SELECT i, (1704067200 + 61 * i) * 1000 FROM n),
  g(i, ms, ticks) AS (SELECT i, ms, (ms + 12219292800000) * 10000 FROM t)
SELECT printf('%08x-%04x-1%03x-%04x-%012x', ticks & 0xffffffff, (ticks >> 32) & 0xffff,
              (ticks >> 48) & 0xfff, 0x8000 | (i & 0x3fff), 0xc0ffee000000 + i),
       printf('user%03d', (i * 37) % 200),
       json_extract('["Just","Finally","Today I","Still","Again,"]', '$[' || (i % 5) || ']')
         || ' ' || json_extract('["shipped","rewrote","benchmarked","compacted","tuned",'
                                || '"profiled","fixed"]', '$[' || (i % 7) || ']')
         || ' ' || json_extract('["the LSM tree","a memtable","my timeline","the bloom filters",'
                                || '"a tombstone","the commit log","an SSTable","our schema",'
                                || '"the partitioner","a query plan","the token ring"]',
                                '$[' || (i % 11) || ']')
         || printf(' (#%d)', i),
       strftime('%Y-%m-%d %H:%M:%f', ms / 1000.0, 'unixepoch')
FROM g;

-- The fan-out: every tweet goes to the timeline of each follower of its author, and to the
-- author's own. The join reads the followers partition of each tweet's author (a partition
-- lookup); its rows are staged in a temporary native table, then written with one
-- INSERT ... SELECT. (Staging keeps the join's reads apart from the transaction's growing
-- write buffer, which the extension overlays on every read.)
CREATE TEMP TABLE fanout AS
SELECT f.follower_id AS user_id, t.tweet_id, t.author, t.body, t.posted_at
FROM tweets AS t JOIN followers AS f ON f.user_id = t.author
UNION ALL
SELECT author, tweet_id, author, body, posted_at FROM tweets;

INSERT INTO timeline (user_id, tweet_id, author, body, posted_at)
SELECT user_id, tweet_id, author, body, posted_at FROM fanout;

COMMIT;
