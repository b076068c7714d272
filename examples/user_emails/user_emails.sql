-- A user with a set of email addresses: a CQL set<text> column, seen from SQL as a JSON array
-- (sorted and without duplicates, as a Cassandra set is), read with SQLite's JSON functions and
-- changed either as a whole from SQL or element by element through cql().
-- Run after `.load ./build/cassette`.
.headers on
.mode box
CREATE VIRTUAL TABLE users USING cql(
  user_id text PRIMARY KEY,
  name text,
  emails set<text>
);

-- A set is written as a JSON array: duplicates collapse and the elements sort.
INSERT INTO users VALUES
  ('ada', 'Ada Lovelace', '["ada@example.org", "countess@example.com", "ada@example.org"]'),
  ('alan', 'Alan Turing', '["alan@example.org"]'),
  ('grace', 'Grace Hopper', NULL);

.print 'The users and their emails:'
SELECT user_id, name, emails, json_array_length(emails) AS how_many FROM users ORDER BY user_id;

-- Add and remove single elements with CQL's set operations (no read-modify-write needed) ...
SELECT cql('BEGIN BATCH
  UPDATE main.users SET emails = emails + {''a.lovelace@example.net''} WHERE user_id = ''ada'';
  UPDATE main.users SET emails = emails - {''countess@example.com''} WHERE user_id = ''ada'';
APPLY BATCH') AS cql_result;
-- ... or rewrite the whole set from SQL, here by adding an element with json_insert.
UPDATE users SET emails = json_insert(coalesce(emails, '[]'), '$[#]', 'grace@navy.mil') WHERE user_id = 'grace';

.print 'After the changes:'
SELECT user_id, emails FROM users ORDER BY user_id;

.print 'One row per address (json_each), and who owns an address:'
SELECT users.user_id, addresses.value AS email
FROM users, json_each(users.emails) AS addresses
ORDER BY email;
SELECT user_id FROM users WHERE EXISTS (SELECT 1 FROM json_each(emails) WHERE value = 'alan@example.org');

.print 'The same rows through CQL (cql() returns JSON; rows come in token order):'
.mode list
SELECT cql('SELECT user_id, emails FROM main.users');
