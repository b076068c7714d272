// Tests of statement_kind.h: which statements a read-only host may run and cql_rows() accepts.
#include "engine/cql/statement_kind.h"

#include <doctest/doctest.h>

#include "engine/cql/parser.h"

using namespace cassette;
using namespace cassette::cql;

namespace {

struct Kind {
  std::string name;
  bool writes;
  bool returns_rows;
};

Kind kind_of(std::string_view text) {
  Result<Statement> parsed = parse_statement(text);
  REQUIRE_MESSAGE(parsed.is_ok(), parsed.status().message());
  return {std::string(statement_name(*parsed)), statement_writes(*parsed),
          statement_returns_rows(*parsed)};
}

}  // namespace

TEST_CASE("statement_kind: reads, writes and rows") {
  struct Case {
    const char* statement;
    const char* name;
    bool writes;
    bool returns_rows;
  };
  const Case cases[] = {
      {"SELECT * FROM ks.t", "SELECT", false, true},
      {"SELECT JSON k FROM ks.t WHERE k = 1", "SELECT", false, true},
      {"DESCRIBE KEYSPACES", "DESCRIBE", false, true},
      {"DESCRIBE TABLE ks.t", "DESCRIBE", false, true},
      {"USE ks", "USE", false, false},
      {"INSERT INTO ks.t (k) VALUES (1)", "INSERT", true, false},
      {"INSERT INTO ks.t (k) VALUES (1) IF NOT EXISTS", "INSERT", true, false},
      {"UPDATE ks.t SET v = 1 WHERE k = 1", "UPDATE", true, false},
      {"DELETE FROM ks.t WHERE k = 1", "DELETE", true, false},
      {"BEGIN BATCH INSERT INTO ks.t (k) VALUES (1); APPLY BATCH", "BATCH", true, false},
      {"TRUNCATE ks.t", "TRUNCATE", true, false},
      {"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
       "'replication_factor': 1}",
       "CREATE KEYSPACE", true, false},
      {"DROP KEYSPACE ks", "DROP KEYSPACE", true, false},
      {"CREATE TABLE ks.t (k int PRIMARY KEY)", "CREATE TABLE", true, false},
      {"ALTER TABLE ks.t ADD v int", "ALTER TABLE", true, false},
      {"DROP TABLE ks.t", "DROP TABLE", true, false},
      {"CREATE INDEX ON ks.t (v)", "CREATE INDEX", true, false},
      {"DROP INDEX ks.i", "DROP INDEX", true, false},
      {"CREATE TYPE ks.a (x int)", "CREATE TYPE", true, false},
      {"ALTER TYPE ks.a ADD y int", "ALTER TYPE", true, false},
      {"DROP TYPE ks.a", "DROP TYPE", true, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.statement);
    Kind k = kind_of(c.statement);
    CHECK(k.name == c.name);
    CHECK(k.writes == c.writes);
    CHECK(k.returns_rows == c.returns_rows);
  }
}
