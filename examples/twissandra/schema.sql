-- Twissandra: the tweets-and-timelines model from the Cassandra data-modeling guides, as
-- SQLite virtual tables over CQL tables (run after `.load ./build/cassette`).
--
-- Each table answers one query with one partition read:
--   users      a user by name
--   followers  who follows a user (the fan-out list), one partition per followed user
--   tweets     a tweet by id
--   timeline   a user's home timeline, newest first: one partition per reader, clustered by
--              the tweet's time (then its timeuuid) in descending order, so "the latest 50" is
--              the head of the partition and needs no sort. (SQL orders a timeuuid by its text,
--              not by its time, so ORDER BY tweet_id would not give the newest first.)

CREATE VIRTUAL TABLE users USING cql(
  user_id text PRIMARY KEY,
  name text,
  joined timestamp
);

CREATE VIRTUAL TABLE followers USING cql(
  user_id text,
  follower_id text,
  since timestamp,
  PRIMARY KEY (user_id, follower_id)
);

CREATE VIRTUAL TABLE tweets USING cql(
  tweet_id timeuuid PRIMARY KEY,
  author text,
  body text,
  posted_at timestamp
);

CREATE VIRTUAL TABLE timeline USING cql(
  user_id text,
  tweet_id timeuuid,
  author text,
  body text,
  posted_at timestamp,
  PRIMARY KEY (user_id, posted_at, tweet_id),
  CLUSTERING ORDER BY (posted_at DESC, tweet_id DESC)
);
