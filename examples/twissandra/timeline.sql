-- A home timeline, newest first: one partition read from its head, no sort (the plan shows
-- no "TEMP B-TREE"), stopping after 50 rows.
.parameter set @user 'user042'
.print 'Home timeline of user042, newest first (50 of 195):'
.mode box
SELECT * FROM timeline WHERE user_id = @user ORDER BY posted_at DESC LIMIT 50;
.mode list
.print
.print 'The plan:'
EXPLAIN QUERY PLAN
SELECT * FROM timeline WHERE user_id = @user ORDER BY posted_at DESC LIMIT 50;
.print
.print 'Who writes most of what user042 reads:'
.mode box
SELECT author, count(*) AS tweets, max(posted_at) AS latest
FROM timeline WHERE user_id = @user
GROUP BY author ORDER BY tweets DESC, author LIMIT 5;
