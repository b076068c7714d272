-- cassette_fdw 1.0: Cassandra tables of a Cassette store as PostgreSQL foreign tables.
--   CREATE EXTENSION cassette_fdw;
--   CREATE SERVER s FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '/path/to/store');
--   IMPORT FOREIGN SCHEMA ks FROM SERVER s INTO public;
--   SELECT cql('SELECT * FROM ks.t WHERE k = 1');
\echo Use "CREATE EXTENSION cassette_fdw" to load this file. \quit

CREATE FUNCTION cassette_fdw_handler() RETURNS fdw_handler
  AS 'MODULE_PATHNAME' LANGUAGE C STRICT;

CREATE FUNCTION cassette_fdw_validator(text[], oid) RETURNS void
  AS 'MODULE_PATHNAME' LANGUAGE C STRICT;

CREATE FOREIGN DATA WRAPPER cassette_fdw
  HANDLER cassette_fdw_handler
  VALIDATOR cassette_fdw_validator;

-- Runs one CQL statement on the store of `server` (by default the only cassette_fdw server) and
-- returns rows as a JSON array of objects, or {"result": ...} for statements without rows.
-- The statement runs at once, outside the transaction's buffered writes.
CREATE FUNCTION cql(statement text, server name DEFAULT NULL) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'cassette_cql' LANGUAGE C VOLATILE;
-- Any CQL statement, schema changes included, on the store of a server the caller has USAGE on:
-- only superusers run it until they grant it (ext/postgres/README.md, "Who can do what").
REVOKE ALL ON FUNCTION cql(text, name) FROM PUBLIC;
