-- cassette_fdw 1.1: the timeuuid type, a version-1 uuid in Cassandra's timeuuid order, and
-- cql() with values bound to the statement's markers.
--   ALTER EXTENSION cassette_fdw UPDATE TO '1.1';   -- from 1.0; CREATE EXTENSION installs 1.1
-- IMPORT FOREIGN SCHEMA declares CQL timeuuid columns with it, and ORDER BY, <, <=, >, >= on
-- such a clustering column go down to the store (ext/postgres/fdw_timeuuid.c).
\echo Use "ALTER EXTENSION cassette_fdw UPDATE TO '1.1'" to load this file. \quit

CREATE TYPE timeuuid;

-- Text and binary input take a uuid and refuse any version but 1; output is uuid's.
CREATE FUNCTION timeuuid_in(cstring) RETURNS timeuuid
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_out(timeuuid) RETURNS cstring
  AS 'uuid_out' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_recv(internal) RETURNS timeuuid
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_send(timeuuid) RETURNS bytea
  AS 'uuid_send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE timeuuid (
  INPUT = timeuuid_in, OUTPUT = timeuuid_out, RECEIVE = timeuuid_recv, SEND = timeuuid_send,
  LIKE = uuid, CATEGORY = 'U');

-- The same bytes as uuid: a timeuuid is a uuid as it is; a uuid becomes a timeuuid once its
-- version is checked.
CREATE FUNCTION timeuuid(uuid) RETURNS timeuuid
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_from_uuid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (timeuuid AS uuid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (uuid AS timeuuid) WITH FUNCTION timeuuid(uuid) AS ASSIGNMENT;

-- The time the uuid was made (its 60-bit timestamp, to the microsecond).
CREATE FUNCTION timeuuid_timestamp(timeuuid) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_timestamp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Comparison in Cassandra's TimeUUIDType order: the timestamp, then the clock sequence and node
-- as signed bytes. Equality is byte equality, uuid's own.
CREATE FUNCTION timeuuid_cmp(timeuuid, timeuuid) RETURNS integer
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_lt(timeuuid, timeuuid) RETURNS boolean
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_le(timeuuid, timeuuid) RETURNS boolean
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_ge(timeuuid, timeuuid) RETURNS boolean
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_gt(timeuuid, timeuuid) RETURNS boolean
  AS 'MODULE_PATHNAME', 'cassette_timeuuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_eq(timeuuid, timeuuid) RETURNS boolean
  AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_ne(timeuuid, timeuuid) RETURNS boolean
  AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_hash(timeuuid) RETURNS integer
  AS 'uuid_hash' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_hash_extended(timeuuid, bigint) RETURNS bigint
  AS 'uuid_hash_extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR < (LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_lt,
  COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_le,
  COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR = (LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR <> (LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR >= (LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_ge,
  COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_gt,
  COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);

CREATE OPERATOR CLASS timeuuid_ops DEFAULT FOR TYPE timeuuid USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 timeuuid_cmp(timeuuid, timeuuid);
CREATE OPERATOR CLASS timeuuid_ops DEFAULT FOR TYPE timeuuid USING hash AS
  OPERATOR 1 =,
  FUNCTION 1 timeuuid_hash(timeuuid),
  FUNCTION 2 timeuuid_hash_extended(timeuuid, bigint);

-- cql(statement, server, value...): the statement with each value after the server bound to its
-- bind markers (? or :name), in the order they are written, converted to the marker's CQL type
-- (a composite through its to_json). No quoting, no injection. A NULL server is the only one.
-- The server comes second, as in cql(statement, server): a call with values has at least three
-- arguments, so it never meets the two-argument form.
CREATE FUNCTION cql(statement text, server name, VARIADIC "any") RETURNS jsonb
  AS 'MODULE_PATHNAME', 'cassette_cql_bind' LANGUAGE C VOLATILE;
-- Reaches the store as cql(text, name) does: only superusers run it until they grant it.
REVOKE ALL ON FUNCTION cql(text, name, "any") FROM PUBLIC;
