// The SAI components an index read keeps in memory by SSTable (engine/storage/sai_component.cc):
// each is opened once for as long as its SSTable lives, and what replaces or removes components
// is seen: another process's flush and compaction (new SSTables, new components), DROP INDEX
// here or there (the index no longer answers) and CREATE INDEX again (components rebuilt).
#include <doctest/doctest.h>

#include "engine/storage/sai_component.h"
#include "tests/unit/cql_test_fixture.h"
#include "tests/unit/store_internals.h"
#include "tests/unit/temp_dir.h"

namespace cassette {
namespace {

using test::CqlFixture;
using test::TempDir;
using Rows = std::vector<std::string>;

Rows run(cql::Session& s, std::string_view statement) {
  auto r = s.execute(statement);
  INFO(statement);
  REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  return CqlFixture::lines(r->rows);
}

std::string error(cql::Session& s, std::string_view statement) {
  auto r = s.execute(statement);
  INFO(statement);
  REQUIRE_FALSE(r.is_ok());
  return std::string(r.status().message());
}

constexpr std::string_view kFiltering =
    "Cannot execute this query as it might involve data filtering and thus may have "
    "unpredictable performance. If you want to execute this query despite the performance "
    "unpredictability, use ALLOW FILTERING";

TEST_CASE("sai cache: components read once per SSTable; flush, compaction, DROP INDEX seen") {
  TempDir dir;
  storage::StoreOptions options;
  options.background_threads = false;
  auto here = storage::Store::open(dir.path() + "/s", options).value();
  auto mine = cql::Session::open(here).value();
  run(*mine,
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  run(*mine, "CREATE TABLE ks.u (k int PRIMARY KEY, email text)");
  run(*mine, "CREATE CUSTOM INDEX u_email ON ks.u (email) USING 'sai'");
  run(*mine, "INSERT INTO ks.u (k, email) VALUES (1, 'a')");
  run(*mine, "INSERT INTO ks.u (k, email) VALUES (2, 'b')");
  REQUIRE(here->flush().is_ok());
  auto there = storage::StoreInternals::open_as_another_process(dir.path() + "/s", options).value();
  auto theirs = cql::Session::open(there).value();

  const std::string read_a = "SELECT k FROM ks.u WHERE email = 'a'";
  uint64_t opened = storage::sai_components_opened();
  uint64_t reads = storage::sai_index_reads();
  auto opened_since = [&] { return storage::sai_components_opened() - opened; };
  CHECK(run(*mine, read_a) == Rows{"1"});
  CHECK(opened_since() == 1);
  CHECK(run(*mine, read_a) == Rows{"1"});
  CHECK(run(*mine, "SELECT k FROM ks.u WHERE email = 'b'") == Rows{"2"});
  CHECK(opened_since() == 1);  // the same SSTable's component, from memory
  CHECK(storage::sai_index_reads() - reads == 3);

  // Their flush: a second SSTable with its component; the first stays in memory.
  run(*theirs, "INSERT INTO ks.u (k, email) VALUES (3, 'a')");
  run(*theirs, "UPDATE ks.u SET email = 'c' WHERE k = 1");
  REQUIRE(there->flush().is_ok());
  CHECK(run(*mine, read_a) == Rows{"3"});  // k = 1's entry in the first SSTable is stale
  CHECK(opened_since() == 2);
  CHECK(run(*mine, "SELECT k FROM ks.u WHERE email = 'c'") == Rows{"1"});
  CHECK(opened_since() == 2);

  // Their compaction replaces both SSTables and their components by one.
  auto table = mine->catalog().current().value()->find_table("ks", "u");
  REQUIRE(there->compact(table->table_id).is_ok());
  CHECK(run(*mine, read_a) == Rows{"3"});
  CHECK(run(*mine, "SELECT k FROM ks.u WHERE email = 'c'") == Rows{"1"});
  CHECK(opened_since() == 3);

  // DROP INDEX here: the index no longer answers, though its SSTable lives on.
  run(*mine, "DROP INDEX ks.u_email");
  CHECK(error(*mine, read_a) == kFiltering);
  reads = storage::sai_index_reads();
  CHECK(run(*mine, "SELECT k FROM ks.u WHERE email = 'a' ALLOW FILTERING") == Rows{"3"});
  CHECK(storage::sai_index_reads() == reads);  // a filtered scan
  // Created again: built for the SSTable already there, and read from the file again.
  run(*mine, "CREATE CUSTOM INDEX u_email ON ks.u (email) USING 'sai'");
  CHECK(run(*mine, read_a) == Rows{"3"});
  CHECK(storage::sai_index_reads() == reads + 1);
  CHECK(opened_since() == 4);

  // DROP INDEX there: this process sees the schema change and stops reading the index.
  run(*theirs, "DROP INDEX ks.u_email");
  CHECK(error(*mine, read_a) == kFiltering);
  reads = storage::sai_index_reads();
  CHECK(run(*mine, "SELECT k FROM ks.u WHERE email = 'a' ALLOW FILTERING") == Rows{"3"});
  CHECK(storage::sai_index_reads() == reads);
}

}  // namespace
}  // namespace cassette
