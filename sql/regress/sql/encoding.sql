-- Text in a database whose encoding is not UTF-8: the engine's text is UTF-8, and every text
-- that crosses the wrapper (values, text inside collections and JSON, pushed-down constants,
-- cql()'s statement and result, error messages, imported names) is converted both ways.
\getenv store CASSETTE_STORE
-- Written from this UTF-8 database: a character LATIN1 has (é) and one it has not (€).
SELECT cql($$CREATE KEYSPACE enc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}$$, 'cassette');
SELECT cql('CREATE TABLE enc.words (k text, n int, w text, "café" text, tags list<text>,
                                    info map<text, text>, b blob, PRIMARY KEY (k, n))', 'cassette');
SELECT cql($$INSERT INTO enc.words (k, n, w, "café", tags, info, b)
             VALUES ('héllo', 1, 'crème', 'brûlée', ['à', 'ö'], {'clé': 'valeur é'}, 0xc3a9)$$, 'cassette');
SELECT cql($$INSERT INTO enc.words (k, n, w) VALUES ('euro', 1, '5 €')$$, 'cassette');

CREATE DATABASE latin TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C';
\c latin
SET client_encoding = 'UTF8';
SELECT current_setting('server_encoding') AS server_encoding;
CREATE EXTENSION cassette_fdw;
CREATE SERVER cassette FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store :'store');
-- IMPORT: the column "café" keeps its name.
IMPORT FOREIGN SCHEMA enc LIMIT TO (words) FROM SERVER cassette INTO public;
\d words
-- Values read back as written; bytes (blob) are not converted.
SELECT k, n, w, "café", tags, info, b FROM words WHERE k = 'héllo';
SELECT length(w), octet_length(w) FROM words WHERE k = 'héllo';
-- A pushed-down constant and a write through the table.
EXPLAIN (COSTS OFF) SELECT n FROM words WHERE k = 'héllo';
INSERT INTO words (k, n, w, "café", tags) VALUES ('naïve', 2, 'façade', 'über', ARRAY['ç']);
SELECT k, n, w, "café", tags FROM words WHERE k = 'naïve';
-- cql(): the statement goes in as UTF-8, the JSON comes back in LATIN1.
SELECT cql($$SELECT k, w, "café", tags FROM enc.words WHERE k = 'naïve'$$);
SELECT cql($$UPDATE enc.words SET w = 'déjà' WHERE k = 'naïve' AND n = 2$$);
SELECT w FROM words WHERE k = 'naïve';
-- An error of the engine names the table in the database's encoding.
SELECT cql('SELECT * FROM enc."tâble"');
-- A message whose text the encoding cannot show (here a lexer error quoting the first byte of
-- 'â') keeps the message, with '?' for what cannot be shown.
SELECT cql('SELECT * FROM enc.tâble');
-- A character LATIN1 cannot represent: PostgreSQL's own conversion error.
SELECT w FROM words WHERE k = 'euro';
SELECT cql($$SELECT w FROM enc.words WHERE k = 'euro'$$);
\c cassette_regress
-- What the LATIN1 database wrote reads as UTF-8 here.
SELECT cql($$SELECT k, w, "café", tags FROM enc.words WHERE k = 'naïve'$$, 'cassette');
DROP DATABASE latin WITH (FORCE);
