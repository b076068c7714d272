// A store's identity: the CASSETTE marker, which directories Store::open makes a store of, and
// a store whose directory is removed or replaced while it is open (store_directory.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/store_test_util.h"

using namespace cassette::test;
using cassette::Result;
using cassette::Status;

namespace {

StoreOptions identity_options(bool create_if_missing = true) {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  o.create_if_missing = create_if_missing;
  return o;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

size_t entries(const std::string& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                           std::filesystem::directory_iterator()));
}

Result<int64_t> try_put(Store& store, const std::string& pk, int64_t c) {
  MutationBuilder batch;
  batch.partition(1, pk).rows.push_back({ck(c), insert_row("v")});
  return apply_mutations(store, batch);
}

}  // namespace

TEST_CASE("store identity: a new store gets a CASSETTE file naming its format") {
  TempDir dir;
  auto store = Store::open(dir.path(), identity_options());
  REQUIRE(store.is_ok());
  CHECK(read_text(dir.file("CASSETTE")) == "Cassette store\nformat 1\n");
}

TEST_CASE("store identity: a missing directory is made only when its parent exists") {
  TempDir dir;
  CHECK(Store::open(dir.file("new"), identity_options()).is_ok());
  CHECK(std::filesystem::exists(dir.file("new/CASSETTE")));

  auto typo = Store::open(dir.file("no/such/store"), identity_options());
  REQUIRE_FALSE(typo.is_ok());
  CHECK(typo.status().is_not_found());
  CHECK(typo.status().message() == "cannot create store " + dir.file("no/such/store") +
                                       ": directory " + dir.file("no/such") + " does not exist");
  CHECK_FALSE(std::filesystem::exists(dir.file("no")));
}

TEST_CASE("store identity: without create_if_missing a missing or empty directory is no store") {
  TempDir dir;
  auto missing = Store::open(dir.file("absent"), identity_options(false));
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message() == "store " + dir.file("absent") + " does not exist");
  auto empty = Store::open(dir.path(), identity_options(false));
  REQUIRE_FALSE(empty.is_ok());
  CHECK(empty.status().message() == "store " + dir.path() + " does not exist");
  CHECK(entries(dir.path()) == 0);
}

TEST_CASE("store identity: a non-empty directory that is not a store is refused untouched") {
  TempDir dir;
  write_text(dir.file("notes.txt"), "mine");
  auto store = Store::open(dir.path(), identity_options());
  REQUIRE_FALSE(store.is_ok());
  CHECK(store.status().is_invalid_argument());
  CHECK(store.status().message() ==
        dir.path() + " is not a Cassette store (no CASSETTE file) and is not empty");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("store identity: a store made before the marker opens and gets it") {
  TempDir dir;
  {
    auto store = Store::open(dir.path(), identity_options()).value();
    put(*store, 1, "p", 1, insert_row("old"));
  }
  std::filesystem::remove(dir.file("CASSETTE"));
  auto store = Store::open(dir.path(), identity_options());
  REQUIRE(store.is_ok());
  CHECK(read_partition(**store, 1, "p") == std::vector<ReadRow>{{"p", 1, "old"}});
  CHECK(read_text(dir.file("CASSETTE")) == "Cassette store\nformat 1\n");
}

TEST_CASE("store identity: a store of a newer format is refused") {
  TempDir dir;
  write_text(dir.file("CASSETTE"), "Cassette store\nformat 2\n");
  auto store = Store::open(dir.path(), identity_options());
  REQUIRE_FALSE(store.is_ok());
  CHECK(store.status().message() == "store " + dir.path() +
                                        " has format 2; this version of Cassette reads format 1"
                                        " and older");
  write_text(dir.file("CASSETTE"), "something else");
  auto garbled = Store::open(dir.path(), identity_options());
  REQUIRE_FALSE(garbled.is_ok());
  CHECK(garbled.status().is_corruption());
}

TEST_CASE("store identity: writes to a store whose directory was removed fail") {
  TempDir parent;
  const std::string path = parent.file("s");
  auto store = Store::open(path, identity_options()).value();
  put(*store, 1, "p", 1, insert_row("v"));
  std::filesystem::remove_all(path);

  const std::string removed =
      "store directory " + path + " was removed (or replaced by another) while the store was open";
  auto write = try_put(*store, "p", 2);
  REQUIRE_FALSE(write.is_ok());
  CHECK(write.status().message() == removed);
  Status flush = store->flush();  // fails writing its SSTable, or installing it
  CHECK_FALSE(flush.is_ok());
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("store identity: a store whose directory was replaced by another fails its writes") {
  TempDir parent;
  const std::string path = parent.file("s");
  auto store = Store::open(path, identity_options()).value();
  put(*store, 1, "p", 1, insert_row("v"));
  std::filesystem::rename(path, parent.file("moved"));
  auto other = Store::open(path, identity_options());  // a new store where the old one was
  REQUIRE(other.is_ok());
  CHECK(other->get() != store.get());

  auto write = try_put(*store, "p", 2);
  REQUIRE_FALSE(write.is_ok());
  CHECK(write.status().message().find("was removed (or replaced by another)") != std::string::npos);
  CHECK(read_partition(**other, 1, "p").empty());
  put(**other, 1, "q", 1, insert_row("new"));
  CHECK(read_partition(**other, 1, "q") == std::vector<ReadRow>{{"q", 1, "new"}});
}
