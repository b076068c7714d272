// Storage-attached index components (engine/storage/sai_component.h, index_component.h): the
// component format, the components a store writes with its SSTables at flush and compaction,
// and an index read merging every SSTable's component with the memtables, stale entries
// included (the caller re-checks them on the current row).
#include "engine/storage/sai_component.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <set>

#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/util/file.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

StoreOptions sai_options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  return o;
}

SaiColumn value_column() {
  SaiColumn c;
  c.column = kValueColumn;
  c.terms = [](std::string_view value, std::string_view, std::vector<std::string>* out) {
    out->emplace_back(value);
  };
  return c;
}

constexpr std::string_view kComponent = "sai.test";

std::shared_ptr<const IndexComponentMap> components_of(TableId table) {
  auto map = std::make_shared<IndexComponentMap>();
  SaiColumn column = value_column();
  (*map)[table].push_back({std::string(kComponent), [column] { return make_sai_builder(column); }});
  return map;
}

// The partition keys and clusterings of the candidates, as "pk/c".
std::vector<std::string> candidates(Store& store, TableId table, const TermRange& range,
                                    SaiLookupStats* stats = nullptr) {
  auto snap = store.snapshot().value();
  auto found = sai_candidates(*snap, table, kComponent, value_column(), range, stats).value();
  if (!found) return {"<no index>"};
  std::vector<std::string> out;
  for (const std::string& key : *found) {
    DecodedKey d;
    REQUIRE(decode_entry_key(key, &d));
    out.push_back(d.partition_key + "/" + std::to_string(ck_value(d.clustering)));
  }
  return out;
}

// What a query returns: the candidates' rows, read through the normal path, re-checked.
std::vector<std::string> query(Store& store, TableId table, const std::string& value) {
  std::vector<std::string> rows;
  std::set<std::string> seen;
  for (const std::string& c : candidates(store, table, TermRange::equal(value))) {
    std::string pk = c.substr(0, c.find('/'));
    if (!seen.insert(pk).second) continue;
    for (const ReadRow& r : read_partition(store, table, pk)) {
      if (r.value == value) rows.push_back(r.partition_key + "/" + std::to_string(r.clustering));
    }
  }
  return rows;
}

std::vector<std::string> component_files(const std::string& dir) {
  std::vector<std::string> out;
  const std::vector<std::string> names = cassette::file::list_directory(dir + "/data").value();
  for (const std::string& n : names) {
    if (!component_sstable_name(n).empty()) out.push_back(n);
  }
  return out;
}

}  // namespace

// Every version: version 3 is written now, versions 1 and 2's components (stores written before
// it) are still read.
TEST_CASE("sai component: terms in byte order, ranges, and a corrupt file refused") {
  for (int version : {1, 2, 3}) {
    CAPTURE(version);
    TempDir dir;
    auto builder = version == 1   ? make_sai_v1_builder(value_column())
                   : version == 2 ? make_sai_v2_builder(value_column())
                                  : make_sai_builder(value_column());
    auto row = [](std::string v) {
      std::string out;
      encode_row(insert_row(std::move(v), 10), &out);
      return out;
    };
    std::string prefix = partition_prefix(7, "p");
    // Entries arrive in key order; terms in any order.
    std::vector<std::pair<int64_t, std::string>> rows = {{1, "m"}, {2, "b"}, {3, "m"}, {4, "z"}};
    for (const auto& [c, v] : rows) {
      REQUIRE(builder->add(entry_key(prefix, EntryKind::kRow, ck(c)), row(v)).is_ok());
    }
    builder->data_block(100, 50);  // where those four went (version 3 records it)
    // A row without the column and a row whose cell is a tombstone index nothing.
    Row no_cell;
    no_cell.liveness.timestamp = 10;
    std::string encoded;
    encode_row(no_cell, &encoded);
    REQUIRE(builder->add(entry_key(prefix, EntryKind::kRow, ck(5)), encoded).is_ok());
    Row dead = insert_row("q", 10);
    dead.columns[0].cell = Cell::tombstone(10, 100);
    encoded.clear();
    encode_row(dead, &encoded);
    REQUIRE(builder->add(entry_key(prefix, EntryKind::kRow, ck(6)), encoded).is_ok());
    builder->data_block(160, 20);
    std::string path = dir.file("c.sai");
    REQUIRE(builder->finish(path).is_ok());

    std::string bytes = cassette::file::read_whole_file(path).value();
    CHECK(is_sai2_component(bytes) == (version >= 2));
    auto reader = open_sai_component(path).value();
    if (version >= 2) {
      auto v2 = Sai2ComponentReader::map(path).value();
      CHECK(v2->version() == version);
      CHECK(v2->terms() == 3);  // b, m, z: m once, with two keys
      CHECK(v2->keys() == 4);
      CHECK(v2->has_positions() == (version == 3));
    }
    // Where the keys' entries lie: version 3's block, none (size 0) before it.
    std::vector<std::string> all_keys;
    std::vector<BlockHandle> positions;
    REQUIRE(reader->lookup(TermRange{}, &all_keys, &positions).is_ok());
    CHECK(all_keys.size() == 4);
    REQUIRE(positions.size() == 4);
    for (const BlockHandle& p : positions) {
      CHECK(p.offset == (version == 3 ? 100 : 0));
      CHECK(p.size == (version == 3 ? 50 : 0));
    }
    auto clusterings = [&](const TermRange& range) {
      std::vector<std::string> keys;
      REQUIRE(reader->lookup(range, &keys).is_ok());
      std::vector<int64_t> out;
      for (const std::string& k : keys) {
        DecodedKey d;
        REQUIRE(decode_entry_key(k, &d));
        out.push_back(ck_value(d.clustering));
      }
      return out;
    };
    CHECK(clusterings(TermRange::equal("m")) == std::vector<int64_t>{1, 3});
    CHECK(clusterings(TermRange::equal("q")).empty());
    CHECK(clusterings(TermRange::equal("a")).empty());
    CHECK(clusterings(TermRange::equal("zz")).empty());
    TermRange above_b;
    above_b.lower = "b";
    above_b.lower_inclusive = false;
    CHECK(clusterings(above_b) == std::vector<int64_t>{1, 3, 4});
    TermRange up_to_m;
    up_to_m.upper = "m";
    CHECK(clusterings(up_to_m) == std::vector<int64_t>{2, 1, 3});
    up_to_m.upper_inclusive = false;
    CHECK(clusterings(up_to_m) == std::vector<int64_t>{2});

    // A flipped bit in the key table (byte 3), the terms (just after the last key) or the
    // footer: refused when opened (footer) or when a lookup reads the damaged piece.
    auto damaged = [&](size_t at) {
      std::string copy = bytes;
      copy[at] ^= 1;
      std::vector<std::string> keys;
      if (version == 1) return SaiComponentReader::parse(copy, path).status().message();
      auto r = Sai2ComponentReader::parse(copy, path);
      if (!r.is_ok()) return r.status().message();
      TermRange all;
      return (*r)->lookup(all, &keys).message();
    };
    if (version == 1) {
      CHECK(damaged(3) == "SAI component " + path + ": checksum mismatch");
      CHECK_FALSE(SaiComponentReader::parse("short", path).is_ok());
    } else {
      CHECK(damaged(3) == "SAI component " + path + ": checksum mismatch in key chunk 0");
      // Version 3 keeps a byte after each key: its block's ordinal.
      const size_t keys_size =
          4 * ((version == 3 ? 2 : 1) + entry_key(prefix, EntryKind::kRow, ck(1)).size());
      CHECK(damaged(keys_size + 1) ==
            "SAI component " + path + ": checksum mismatch in term block 0");
      // The footer's term count (version 3's footer is 8 bytes longer).
      CHECK(damaged(bytes.size() - (version == 3 ? 28 : 20)) ==
            "SAI component " + path + ": checksum mismatch");
      if (version == 3) {
        // The data block table (12 bytes before the footer) and the flags.
        CHECK(damaged(bytes.size() - 48 - 12) == "SAI component " + path + ": checksum mismatch");
        CHECK(damaged(bytes.size() - 16) == "SAI component " + path + ": bad footer");
      }
      // (Not the last byte: "settSAI2" and "settSAI3" differ in one bit there.)
      CHECK(damaged(bytes.size() - 8) == "SAI component " + path + ": bad magic");
      CHECK(Sai2ComponentReader::parse("short", path).status().message() ==
            "SAI component " + path + ": too short");
    }
  }
}

// Version 2 keeps each term once and each key once: an indexed column with few distinct
// values (an age, a status) costs a key table and a few bytes per row, where version 1 repeated
// the term and the key in every entry. Terms spanning several blocks are looked up exactly.
TEST_CASE("sai component: version 2 stores each term and key once, across term blocks") {
  TempDir dir;
  auto v1 = make_sai_v1_builder(value_column());
  auto v2 = make_sai_v2_builder(value_column());
  std::string prefix = partition_prefix(7, "p");
  for (int64_t c = 0; c < 2000; ++c) {
    std::string value;
    encode_row(insert_row("status-" + std::to_string(c % 40), 10), &value);
    std::string key = entry_key(prefix, EntryKind::kRow, ck(c));
    REQUIRE(v1->add(key, value).is_ok());
    REQUIRE(v2->add(key, value).is_ok());
  }
  REQUIRE(v1->finish(dir.file("v1")).is_ok());
  REQUIRE(v2->finish(dir.file("v2")).is_ok());
  const uint64_t v1_size = cassette::file::file_size(dir.file("v1")).value();
  const uint64_t v2_size = cassette::file::file_size(dir.file("v2")).value();
  CHECK(v2_size * 3 < v1_size * 2);  // here each key is unique to its row: the key table dominates
  auto reader = Sai2ComponentReader::map(dir.file("v2")).value();
  CHECK(reader->terms() == 40);
  CHECK(reader->file_size() == v2_size);
  auto count = [&](const TermRange& range) {
    std::vector<std::string> keys;
    REQUIRE(reader->lookup(range, &keys).is_ok());
    return keys.size();
  };
  for (int t = 0; t < 40; ++t) {
    std::vector<std::string> keys;
    REQUIRE(reader->lookup(TermRange::equal("status-" + std::to_string(t)), &keys).is_ok());
    CHECK(keys.size() == 50);
    CHECK(std::is_sorted(keys.begin(), keys.end()));
  }
  TermRange range;  // status-17 < term <= status-30: 18, 19, 2, 20..29, 3, 30 (byte order)
  range.lower = "status-17";
  range.lower_inclusive = false;
  range.upper = "status-30";
  CHECK(count(range) == 50 * 15);
}

TEST_CASE(
    "sai component: written at flush and compaction, merged with the memtable, stale "
    "entries re-checked") {
  TempDir dir;
  auto store = Store::open(dir.path(), sai_options()).value();
  store->set_index_components(components_of(1));
  put(*store, 1, "a", 1, insert_row("x"));
  put(*store, 1, "b", 1, insert_row("y"));
  put(*store, 2, "a", 1, insert_row("x"));  // another table: no components
  REQUIRE(store->flush().is_ok());
  CHECK(component_files(dir.path()).size() == 1);

  put(*store, 1, "a", 1, insert_row("y"));  // overwrites x: the first SSTable's entry is stale
  REQUIRE(store->flush().is_ok());
  put(*store, 1, "c", 2, insert_row("y"));          // memtable only
  put(*store, 1, "b", 1, deleted_row(1000000000));  // deleted in the memtable

  SaiLookupStats stats;
  CHECK(candidates(*store, 1, TermRange::equal("x"), &stats) == std::vector<std::string>{"a/1"});
  CHECK(stats.components_read == 2);
  CHECK(stats.memtables_scanned == 1);
  CHECK(query(*store, 1, "x").empty());
  // Keys in read order (token, partition key): b's entry is stale (deleted), a's current.
  std::vector<std::string> y = candidates(*store, 1, TermRange::equal("y"));
  CHECK(std::set<std::string>(y.begin(), y.end()) == std::set<std::string>{"a/1", "b/1", "c/2"});
  std::vector<std::string> rows = query(*store, 1, "y");
  CHECK(std::set<std::string>(rows.begin(), rows.end()) == std::set<std::string>{"a/1", "c/2"});

  REQUIRE(store->flush().is_ok());
  REQUIRE(store->compact(1).is_ok());
  // One SSTable, one component: the merge dropped the stale entries.
  CHECK(component_files(dir.path()).size() == 1);
  CHECK(candidates(*store, 1, TermRange::equal("x")).empty());
  y = candidates(*store, 1, TermRange::equal("y"));
  CHECK(std::set<std::string>(y.begin(), y.end()) == std::set<std::string>{"a/1", "c/2"});

  // Reopened, the components are still there and nothing is an orphan.
  store.reset();
  store = Store::open(dir.path(), sai_options()).value();
  CHECK(component_files(dir.path()).size() == 1);
  y = candidates(*store, 1, TermRange::equal("y"));
  CHECK(y.size() == 2);
}

TEST_CASE("sai component: SSTables written before the index are built on demand; removal") {
  TempDir dir;
  auto store = Store::open(dir.path(), sai_options()).value();
  put(*store, 1, "a", 1, insert_row("x"));
  REQUIRE(store->flush().is_ok());
  store->set_index_components(components_of(1));
  put(*store, 1, "b", 1, insert_row("x"));
  REQUIRE(store->flush().is_ok());
  // The first SSTable has no component: the index cannot answer.
  CHECK(candidates(*store, 1, TermRange::equal("x")) == std::vector<std::string>{"<no index>"});
  SaiColumn column = value_column();
  REQUIRE(store
              ->build_index_components(
                  1, {std::string(kComponent), [column] { return make_sai_builder(column); }})
              .is_ok());
  std::vector<std::string> x = candidates(*store, 1, TermRange::equal("x"));
  CHECK(std::set<std::string>(x.begin(), x.end()) == std::set<std::string>{"a/1", "b/1"});
  CHECK(component_files(dir.path()).size() == 2);

  REQUIRE(store->remove_index_components(1, kComponent).is_ok());
  CHECK(component_files(dir.path()).empty());
  CHECK(candidates(*store, 1, TermRange::equal("x")) == std::vector<std::string>{"<no index>"});
}

TEST_CASE("sai component: a component of no live SSTable is removed when the store opens") {
  TempDir dir;
  {
    auto store = Store::open(dir.path(), sai_options()).value();
    put(*store, 1, "a", 1, insert_row("x"));
    REQUIRE(store->flush().is_ok());
  }
  REQUIRE(cassette::file::write_file_atomically(dir.path() + "/data/t1-00ff.sst.sai.test", "junk")
              .is_ok());
  auto store = Store::open(dir.path(), sai_options()).value();
  CHECK(component_files(dir.path()).empty());
}

// A store written before version 2 holds version 1 components under the old name: they are
// read (SaiColumn::legacy_components) until compaction rewrites their SSTables with version 2,
// and removed with their SSTable or by name (DROP INDEX registers the old name too).
TEST_CASE("sai component: version 1 components of an older store are read until compaction") {
  TempDir dir;
  auto store = Store::open(dir.path(), sai_options()).value();
  SaiColumn column = value_column();
  auto old_map = std::make_shared<IndexComponentMap>();
  (*old_map)[1].push_back({"sai.old", [column] { return make_sai_v1_builder(column); }});
  store->set_index_components(old_map);
  put(*store, 1, "a", 1, insert_row("x"));
  REQUIRE(store->flush().is_ok());

  column.legacy_components = {"sai.old"};
  auto new_map = std::make_shared<IndexComponentMap>();
  (*new_map)[1].push_back({"sai2.new", [column] { return make_sai_builder(column); }});
  (*new_map)[1].push_back({"sai.old", [] { return std::unique_ptr<IndexComponentBuilder>(); }});
  store->set_index_components(new_map);
  put(*store, 1, "b", 1, insert_row("x"));
  REQUIRE(store->flush().is_ok());
  std::vector<std::string> files = component_files(dir.path());
  REQUIRE(files.size() == 2);
  CHECK(files[0].ends_with(".sst.sai.old") != files[1].ends_with(".sst.sai.old"));
  CHECK(files[0].ends_with(".sst.sai2.new") != files[1].ends_with(".sst.sai2.new"));

  auto lookup = [&](const SaiColumn& c) {
    auto snap = store->snapshot().value();
    auto found = sai_candidates(*snap, 1, "sai2.new", c, TermRange::equal("x")).value();
    return found ? found->size() : size_t{999};
  };
  CHECK(lookup(column) == 2);  // one key from each version
  SaiColumn without_legacy = value_column();
  CHECK(lookup(without_legacy) == 999);  // the old SSTable has no version 2 component

  REQUIRE(store->compact(1).is_ok());
  files = component_files(dir.path());
  REQUIRE(files.size() == 1);
  CHECK(files[0].ends_with(".sst.sai2.new"));
  CHECK(lookup(without_legacy) == 2);

  REQUIRE(store->remove_index_components(1, "sai2.new").is_ok());
  CHECK(component_files(dir.path()).empty());
}

// A lookup's binary search runs over the first terms of the blocks copied into memory (every
// block's; past the reader's sample bytes every second or fourth... block's, and then over the
// blocks between two samples in the mapping): every term of a component of 49 blocks is found,
// at a sample's block, between samples, and past the last one; terms between them find nothing.
TEST_CASE("sai component: version 2 lookups across sampled term blocks") {
  TempDir dir;
  auto builder = make_sai_builder(value_column());
  const std::string prefix = partition_prefix(7, "p");
  constexpr int kTerms = 16 * 16 * 3 + 7;
  auto term = [](int i) { return fmt::format("t{:05d}", i); };
  for (int i = 0; i < kTerms; ++i) {
    std::string row;
    encode_row(insert_row(term(i), 10), &row);
    REQUIRE(builder->add(entry_key(prefix, EntryKind::kRow, ck(i)), row).is_ok());
  }
  const std::string path = dir.file("c.sai");
  REQUIRE(builder->finish(path).is_ok());
  // Every block sampled; thinned to every 4th block's (13 samples of 6 bytes fit in 80 bytes);
  // to block 0's alone (0 bytes: every search probes the mapping).
  for (size_t sample_bytes : {Sai2ComponentReader::kSampleBytes, size_t{80}, size_t{0}}) {
    CAPTURE(sample_bytes);
    auto reader = Sai2ComponentReader::map(path, sample_bytes).value();
    REQUIRE(reader->terms() == kTerms);
    for (int i = 0; i < kTerms; ++i) {
      CAPTURE(i);
      std::vector<std::string> keys;
      REQUIRE(reader->lookup(TermRange::equal(term(i)), &keys).is_ok());
      REQUIRE(keys.size() == 1);
      CHECK(keys[0] == entry_key(prefix, EntryKind::kRow, ck(i)));
      keys.clear();
      REQUIRE(reader->lookup(TermRange::equal(term(i) + "x"), &keys).is_ok());
      CHECK(keys.empty());
      TermRange after;  // every term after term(i)
      after.lower = term(i);
      after.lower_inclusive = false;
      REQUIRE(reader->lookup(after, &keys).is_ok());
      CHECK(keys.size() == static_cast<size_t>(kTerms - 1 - i));
    }
  }
  auto reader = Sai2ComponentReader::map(path).value();
  std::vector<std::string> keys;
  REQUIRE(reader->lookup(TermRange::equal("a"), &keys).is_ok());  // before every term
  REQUIRE(reader->lookup(TermRange::equal("u"), &keys).is_ok());  // after every term
  CHECK(keys.empty());

  // A damaged first term of a sampled block (block 16's "t00256" read as "t00056") misleads the
  // search of t00250 (block 15) past its block: the lookup starts in block 16 and reports it,
  // never returns other keys.
  const std::string bytes = cassette::file::read_whole_file(path).value();
  const size_t at = bytes.find("t00256");
  REQUIRE(at != std::string::npos);
  std::string smaller = bytes;
  smaller[at + 3] = '0';
  auto damaged = Sai2ComponentReader::parse(smaller, path).value();
  keys.clear();
  CHECK(damaged->lookup(TermRange::equal(term(250)), &keys).message() ==
        "SAI component " + path + ": checksum mismatch in term block 16");
  CHECK(keys.empty());
  CHECK(damaged->lookup(TermRange::equal(term(100)), &keys).is_ok());  // a search not misled
  CHECK(keys == std::vector<std::string>{entry_key(prefix, EntryKind::kRow, ck(100))});

  // Read as "t00956": the search of t00260 (block 16) starts a block early, in block 15, and
  // reads on into block 16, which it reports; t00250 is found in block 15.
  std::string larger = bytes;
  larger[at + 3] = '9';
  damaged = Sai2ComponentReader::parse(larger, path).value();
  keys.clear();
  CHECK(damaged->lookup(TermRange::equal(term(260)), &keys).message() ==
        "SAI component " + path + ": checksum mismatch in term block 16");
  CHECK(keys.empty());
  CHECK(damaged->lookup(TermRange::equal(term(250)), &keys).is_ok());
  CHECK(keys == std::vector<std::string>{entry_key(prefix, EntryKind::kRow, ck(250))});
}
