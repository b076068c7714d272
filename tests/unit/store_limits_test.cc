// Cassandra's max_mutation_size: the update of one partition in a transaction is limited
// (StoreOptions::max_mutation_bytes, half a commit-log segment by default), whichever host
// writes it; a transaction of many partitions is not.
#include <doctest/doctest.h>

#include <string>

#include "engine/cql/session.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::storage;
using cassette::Result;
using cassette::Status;
using cassette::test::ck;
using cassette::test::insert_row;
using cassette::test::read_partition;
using cassette::test::read_table;
using cassette::test::TempDir;

namespace {

constexpr uint64_t kLimit = 64 << 10;

StoreOptions limited_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  o.max_mutation_bytes = kLimit;
  return o;
}

// `rows` rows of about a kilobyte in partition `pk` of table 1, clustering from `first`.
void add_rows(MutationBuilder& batch, const std::string& pk, int first, int rows) {
  auto& update = batch.partition(1, pk);
  for (int i = first; i < first + rows; ++i) {
    update.rows.push_back({ck(i), insert_row(std::string(1000, 'v'))});
  }
}

// The message without the partition's size, which depends on the encoding.
std::string without_size(std::string message) {
  const size_t open = message.find('(');
  const size_t slash = message.find('/');
  if (open != std::string::npos && slash != std::string::npos && open < slash) {
    message.replace(open + 1, slash - open - 1, "N");
  }
  return message;
}

}  // namespace

TEST_CASE("store: a partition update over max_mutation_bytes is refused and nothing is written") {
  TempDir dir;
  auto store = Store::open(dir.path(), limited_options()).value();
  MutationBuilder batch;
  add_rows(batch, "a", 0, 10);
  add_rows(batch, "p", 0, 70);  // 70 KB in one partition
  Result<int64_t> applied = apply_mutations(*store, batch);
  REQUIRE(!applied.is_ok());
  CHECK(applied.status().is_invalid_argument());
  // No schema names the table here: the message gives its id and the key in hex ("p").
  CHECK(without_size(applied.status().message()) ==
        "Rejected an oversized mutation (N/65536) for keyspace: ?. Top keys are: table 1.0x70");
  CHECK(read_table(*store, 1).empty());

  // The store goes on: the same rows in two transactions fit.
  MutationBuilder first, second;
  add_rows(first, "p", 0, 35);
  add_rows(second, "p", 35, 35);
  REQUIRE(apply_mutations(*store, first).is_ok());
  REQUIRE(apply_mutations(*store, second).is_ok());
  CHECK(read_partition(*store, 1, "p").size() == 70);
}

TEST_CASE("store: a transaction of many partitions under the limit may exceed it in all") {
  TempDir dir;
  auto store = Store::open(dir.path(), limited_options()).value();
  MutationBuilder batch;
  for (int p = 0; p < 10; ++p) add_rows(batch, "p" + std::to_string(p), 0, 30);  // 300 KB
  REQUIRE(apply_mutations(*store, batch).is_ok());
  CHECK(read_table(*store, 1).size() == 300);
}

TEST_CASE("store: a partition's entries are summed wherever they are in an encoded batch") {
  TempDir dir;
  auto store = Store::open(dir.path(), limited_options()).value();
  // As an SQL transaction writes rows as they come: p, q, p, q, ... (40 KB each, 80 KB in all).
  EncodedBatch batch;
  std::string value;
  encode_row(insert_row(std::string(1000, 'v')), &value);
  for (int i = 0; i < 40; ++i) {
    for (const char* pk : {"p", "q"}) {
      REQUIRE(batch.add_row(1, pk, EntryKind::kRow, ck(i), value).is_ok());
    }
  }
  REQUIRE(store->apply(batch).is_ok());  // 40 KB per partition

  for (int i = 40; i < 70; ++i)
    REQUIRE(batch.add_row(1, "q", EntryKind::kRow, ck(i), value).is_ok());
  Result<int64_t> applied = store->apply(batch);  // q: 70 KB
  REQUIRE(!applied.is_ok());
  CHECK(without_size(applied.status().message()) ==
        "Rejected an oversized mutation (N/65536) for keyspace: ?. Top keys are: table 1.0x71");
  CHECK(read_partition(*store, 1, "q").size() == 40);
}

TEST_CASE("store: the mutation limit is half a commit-log segment unless given") {
  TempDir dir;
  StoreOptions options = limited_options();
  options.max_mutation_bytes = 0;
  options.commit_log_segment_bytes = 2 * kLimit;
  auto store = Store::open(dir.path(), options).value();
  MutationBuilder small, large;
  add_rows(small, "p", 0, 60);
  add_rows(large, "p", 0, 70);
  CHECK(apply_mutations(*store, small).is_ok());
  Result<int64_t> applied = apply_mutations(*store, large);
  REQUIRE(!applied.is_ok());
  CHECK(without_size(applied.status().message())
            .starts_with("Rejected an oversized mutation (N/65536)"));
}

TEST_CASE("cql: an oversized mutation names its keyspace, table and key as Cassandra does") {
  StoreOptions options = limited_options();
  auto store = Store::open(":memory:", options).value();
  auto session = cassette::cql::Session::open(store).value();
  auto run = [&](const std::string& statement) { return session->execute(statement).status(); };
  REQUIRE(run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
              "'replication_factor': 1}")
              .is_ok());
  REQUIRE(run("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))").is_ok());
  REQUIRE(run("CREATE TABLE ks.u (a text, b int, v text, PRIMARY KEY ((a, b)))").is_ok());
  const std::string text(40000, 'x');
  auto insert = [&](const std::string& table_and_key, int c) {
    return fmt::format("INSERT INTO ks.t (k, c, v) VALUES ({}, {}, '{}');", table_and_key, c, text);
  };

  // Two 40 KB rows of one partition in a BATCH: one mutation of 80 KB.
  Status batch = run("BEGIN BATCH " + insert("1", 1) + insert("1", 2) + " APPLY BATCH");
  REQUIRE(!batch.is_ok());
  CHECK(without_size(batch.message()) ==
        "Rejected an oversized mutation (N/65536) for keyspace: ks. Top keys are: t.1");
  // Of two partitions: two mutations of 40 KB.
  CHECK(run("BEGIN BATCH " + insert("1", 1) + insert("2", 2) + " APPLY BATCH").is_ok());
  // A compound key reads as Cassandra's getString writes it, its components joined by ':'.
  Status single =
      run(fmt::format("INSERT INTO ks.u (a, b, v) VALUES ('k', 7, '{}')", std::string(70000, 'y')));
  REQUIRE(!single.is_ok());
  CHECK(without_size(single.message()) ==
        "Rejected an oversized mutation (N/65536) for keyspace: ks. Top keys are: u.k:7");
  CHECK(session->execute("SELECT a FROM ks.u").value().rows.rows.empty());
  CHECK(session->execute("SELECT k, c FROM ks.t").value().rows.rows.size() == 2);
}

TEST_CASE("cql: a key value over 65535 bytes is refused with Cassandra's message") {
  auto store = Store::open(":memory:", StoreOptions{}).value();  // the default mutation limit
  auto session = cassette::cql::Session::open(store).value();
  auto run = [&](const std::string& statement) { return session->execute(statement).status(); };
  REQUIRE(run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
              "'replication_factor': 1}")
              .is_ok());
  REQUIRE(
      run("CREATE TABLE ks.t (k text, c1 text, c2 int, v int, PRIMARY KEY (k, c1, c2))").is_ok());
  const std::string big(65536, 'x');
  // A clustering's size is that of all its values (ModificationStatement.validateClustering).
  CHECK(
      run(fmt::format("INSERT INTO ks.t (k, c1, c2, v) VALUES ('a', '{}', 1, 1)", big)).message() ==
      "Key length of 65540 is longer than maximum of 65535");
  CHECK(run(fmt::format("UPDATE ks.t SET v = 1 WHERE k = 'a' AND c1 = '{}' AND c2 = 1", big))
            .message() == "Key length of 65540 is longer than maximum of 65535");
  CHECK(
      run(fmt::format("INSERT INTO ks.t (k, c1, c2, v) VALUES ('{}', 'c', 1, 1)", big)).message() ==
      "Key length of 65536 is longer than maximum of 65535");
  // 65535 bytes are allowed.
  CHECK(run(fmt::format("INSERT INTO ks.t (k, c1, c2, v) VALUES ('a', '{}', 1, 1)",
                        std::string(65535, 'x')))
            .is_ok());
  CHECK(session->execute("SELECT k FROM ks.t").value().rows.rows.size() == 1);
}
