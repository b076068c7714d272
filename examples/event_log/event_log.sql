-- An event log with TTL: Cassandra expires each cell when its time to live runs out, so old
-- events delete themselves, with no cleanup job. The table's default_time_to_live (7 days here)
-- applies to every write; the hidden column cql_ttl sets a row's own TTL (USING TTL), 0 keeping
-- it forever; ttl_<column> reads what a cell has left.
-- Run after `.load ./build/cassette`.
.headers on
.mode box
CREATE VIRTUAL TABLE events USING cql(
  app text,
  day date,
  at timestamp,
  level text,
  message text,
  PRIMARY KEY ((app, day), at),
  CLUSTERING ORDER BY (at DESC),
  default_time_to_live = 604800
);

-- Ordinary events: the table's 7 days.
INSERT INTO events (app, day, at, level, message) VALUES
  ('shop', '2024-06-01', '2024-06-01 09:00:00', 'info', 'service started'),
  ('shop', '2024-06-01', '2024-06-01 09:05:12', 'warn', 'payment provider slow (2.1 s)'),
  ('shop', '2024-06-01', '2024-06-01 09:07:40', 'error', 'order 1042: card declined');
-- Debug chatter: one hour only.
INSERT INTO events (app, day, at, level, message, cql_ttl) VALUES
  ('shop', '2024-06-01', '2024-06-01 09:00:01', 'debug', 'cache warmed: 1200 keys', 3600),
  ('shop', '2024-06-01', '2024-06-01 09:05:13', 'debug', 'retrying payment call', 3600);
-- Audit records are kept: TTL 0 overrides the table default.
INSERT INTO events (app, day, at, level, message, cql_ttl) VALUES
  ('shop', '2024-06-01', '2024-06-01 09:06:00', 'audit', 'refund 17.50 approved by ops', 0);

.print 'The log, newest first, with the time each event has left:'
SELECT at, level, message,
       CASE WHEN ttl_message IS NULL THEN 'kept'
            ELSE printf('%.1f h', ttl_message / 3600.0) END AS expires_in
FROM events WHERE app = 'shop' AND day = '2024-06-01'
ORDER BY at DESC;

-- A login session that lives for two seconds, to watch a row expire from SQL. (TTLs count
-- whole seconds: the one left reads 2 or 1 depending on where the second boundary falls.)
CREATE VIRTUAL TABLE sessions USING cql(session_id text PRIMARY KEY, user_id text);
INSERT INTO sessions (session_id, user_id, cql_ttl) VALUES ('s-1', 'ada', 2);
INSERT INTO sessions (session_id, user_id) VALUES ('s-2', 'alan');
.print 'Sessions now:'
SELECT session_id, user_id, ttl_user_id BETWEEN 1 AND 2 AS expires_soon FROM sessions ORDER BY session_id;
.shell sleep 3
.print 'Three seconds later s-1 has expired:'
SELECT session_id, user_id, ttl_user_id FROM sessions ORDER BY session_id;
