// A large transaction goes into the memtable while the commit log writes it (store_commit.cc):
// it must become visible only once durable, and a failed append must leave nothing of it
// visible, now or after reopening, while the store goes on working.
#include <doctest/doctest.h>

#include <string>

#include "tests/unit/file_size_limit.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::storage;
using cassette::test::ck;
using cassette::test::FileSizeLimit;
using cassette::test::insert_row;
using cassette::test::put;
using cassette::test::read_partition;
using cassette::test::read_table;
using cassette::test::TempDir;

namespace {

// A transaction of `rows` rows of ~100 bytes in partition `pk`: over a megabyte for 20,000.
MutationBuilder big_batch(TableId table, const std::string& pk, int rows) {
  MutationBuilder batch;
  auto& update = batch.partition(table, pk);
  for (int i = 0; i < rows; ++i) {
    update.rows.push_back({ck(i), insert_row(std::string(90, 'v') + std::to_string(i))});
  }
  return batch;
}

}  // namespace

TEST_CASE("store: a large transaction is visible once committed, in full, also after reopening") {
  // With background threads the insert overlaps the append; without, one follows the other.
  for (bool threads : {true, false}) {
    CAPTURE(threads);
    TempDir dir;
    StoreOptions options;
    options.background_threads = threads;
    {
      auto store = Store::open(dir.path(), options).value();
      MutationBuilder batch = big_batch(7, "big", 20000);
      REQUIRE(apply_mutations(*store, batch).is_ok());
      auto rows = read_partition(*store, 7, "big");
      REQUIRE(rows.size() == 20000);
      CHECK(rows[0].value == std::string(90, 'v') + "0");
      CHECK(rows[19999].value == std::string(90, 'v') + "19999");
    }
    auto store = Store::open(dir.path(), options).value();
    CHECK(read_partition(*store, 7, "big").size() == 20000);
  }
}

TEST_CASE("store: a large transaction whose log append fails leaves nothing visible") {
  TempDir dir;
  StoreOptions options;  // background threads on (the default): the append overlaps the insert;
                         // the memtable stays far below its budget, so no flush writes files
  {
    auto store = Store::open(dir.path(), options).value();
    put(*store, 7, "a", 1, insert_row("before"));
    {
      FileSizeLimit limit(256 << 10);  // the log can take small records, not a 2 MB one
      MutationBuilder batch = big_batch(7, "lost", 20000);
      auto result = apply_mutations(*store, batch);
      REQUIRE_FALSE(result.is_ok());
      CHECK(read_partition(*store, 7, "lost").empty());
    }
    // The store goes on: a small and a large transaction after the failure.
    put(*store, 7, "a", 2, insert_row("after"));
    MutationBuilder batch = big_batch(7, "kept", 20000);
    REQUIRE(apply_mutations(*store, batch).is_ok());
    auto rows = read_table(*store, 7);
    CHECK(rows.size() == 20002);
    CHECK(read_partition(*store, 7, "lost").empty());
    auto a = read_partition(*store, 7, "a");
    REQUIRE(a.size() == 2);
    CHECK(a[0].value == "before");
    CHECK(a[1].value == "after");
  }
  // Recovery replays the log: the failed record is not in it.
  auto store = Store::open(dir.path(), options).value();
  CHECK(read_partition(*store, 7, "lost").empty());
  CHECK(read_partition(*store, 7, "kept").size() == 20000);
  CHECK(read_partition(*store, 7, "a").size() == 2);
}
