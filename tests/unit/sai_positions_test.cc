// SAI version 3's positions (engine/storage/sai_component.h, sstable_positions.h, keyed_read.h):
// every key of a component names the data block of its SSTable that holds the key's entry,
// whether the SSTable was written by a flush, a compaction or read whole by an index build; a
// version 2 component (no positions) is still read; a keyed read goes straight to the named
// block, and a position that names a block without the entry is Corruption, never a wrong row.
#include <doctest/doctest.h>

#include <map>

#include "engine/storage/internal_key.h"
#include "engine/storage/keyed_read.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/sai_component.h"
#include "engine/storage/sstable_positions.h"
#include "engine/storage/sstable_reader.h"
#include "engine/util/file.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::test;

namespace {

constexpr TableId kTable = 1;
constexpr std::string_view kName = "sai3.test";

StoreOptions options() {
  StoreOptions o;
  o.sync = SyncMode::kOff;
  o.background_threads = false;
  return o;
}

// A store whose table writes a few rows a data block: many blocks.
std::shared_ptr<Store> open_store(const std::string& dir) {
  auto store = Store::open(dir, options()).value();
  TableOptions table;
  table.block_size = 256;
  store->set_table_options(kTable, table);
  return store;
}

SaiColumn value_column() {
  SaiColumn c;
  c.column = kValueColumn;
  c.terms = [](std::string_view value, std::string_view, std::vector<std::string>* out) {
    out->emplace_back(value);
  };
  return c;
}

IndexComponentFactory factory(bool v2 = false, std::string name = std::string(kName)) {
  SaiColumn column = value_column();
  return {std::move(name),
          [column, v2] { return v2 ? make_sai_v2_builder(column) : make_sai_builder(column); }};
}

std::shared_ptr<const IndexComponentMap> components(std::vector<IndexComponentFactory> f) {
  auto map = std::make_shared<IndexComponentMap>();
  (*map)[kTable] = std::move(f);
  return map;
}

// Rows p<i % 7>/<i> = "v<i % 5>" for i in [from, to).
void write_rows(Store& store, int from, int to) {
  for (int i = from; i < to; ++i) {
    put(store, kTable, "p" + std::to_string(i % 7), i, insert_row("v" + std::to_string(i % 5)));
  }
}

std::shared_ptr<const Sai2ComponentReader> open_v3(const TableFile& file,
                                                   std::string_view name = kName) {
  auto reader = Sai2ComponentReader::map(index_component_path(file.reader->path(), name)).value();
  REQUIRE(reader->version() == 3);
  REQUIRE(reader->has_positions());
  return reader;
}

// Every key of every term of each SSTable's component is placed in the data block that holds
// it (the first whose index key is not below it), where read_entry_at finds the entry the
// SSTable's iterator finds. Returns the keys checked.
size_t check_positions(Store& store) {
  auto snap = store.snapshot().value();
  size_t checked = 0;
  for (const auto& file : snap->version->files(kTable)) {
    auto component = open_v3(*file);
    const std::vector<DataBlockRef> blocks = sstable_data_blocks(*file->reader).value();
    REQUIRE(blocks.size() > 10);
    std::vector<std::string> keys;
    std::vector<BlockHandle> positions;
    REQUIRE(component->lookup(TermRange{}, &keys, &positions).is_ok());
    REQUIRE(keys.size() == positions.size());
    auto entries = file->reader->new_iterator();
    for (size_t i = 0; i < keys.size(); ++i) {
      CAPTURE(i);
      auto block = std::find_if(blocks.begin(), blocks.end(),
                                [&](const DataBlockRef& b) { return b.index_key >= keys[i]; });
      REQUIRE(block != blocks.end());
      CHECK(positions[i].offset == block->handle.offset);
      CHECK(positions[i].size == block->handle.size);
      entries->seek(keys[i]);
      REQUIRE(entries->valid());
      REQUIRE(entries->key() == keys[i]);
      std::string value;
      REQUIRE(read_entry_at(*file->reader, positions[i], keys[i], [&](std::string_view v) {
                value = v;
                return Status::ok();
              }).is_ok());
      CHECK(value == entries->value());
      ++checked;
    }
  }
  return checked;
}

// The rows an index read of `value` returns through the keyed read, with the positions it used.
std::vector<ReadRow> index_read(Store& store, const std::string& value, size_t* positioned,
                                std::string_view name = kName, Status* error = nullptr) {
  auto snap = store.snapshot().value();
  SaiColumn column = value_column();
  TermRange range = TermRange::equal(value);
  SaiColumn with_legacy = column;
  with_legacy.legacy_components = {"sai2.old"};
  auto found =
      sai_candidate_rows(*snap, kTable, name, with_legacy, std::span(&range, 1), TokenRange{})
          .value();
  REQUIRE(found.has_value());
  KeyedReader reader(snap, kTable);
  std::vector<ReadRow> rows;
  *positioned = 0;
  for (const SaiPartitionCandidates& c : *found) {
    REQUIRE(c.rows.has_value());
    *positioned += c.positions.size();
    auto cursor = reader.read(Store::partition_spec(c.partition_key), *c.rows, c.positions);
    if (error != nullptr) {
      while (cursor->next()) {
      }
      *error = cursor->status();
      if (!error->is_ok()) return rows;
      continue;
    }
    for (const ReadRow& r : drain(*cursor)) {
      if (r.value == value) rows.push_back(r);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const ReadRow& a, const ReadRow& b) {
    return std::tie(a.partition_key, a.clustering) < std::tie(b.partition_key, b.clustering);
  });
  return rows;
}

// The same rows read from the whole table.
std::vector<ReadRow> scanned(Store& store, const std::string& value) {
  std::vector<ReadRow> rows;
  for (const ReadRow& r : read_table(store, kTable)) {
    if (r.value == value) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(), [](const ReadRow& a, const ReadRow& b) {
    return std::tie(a.partition_key, a.clustering) < std::tie(b.partition_key, b.clustering);
  });
  return rows;
}

}  // namespace

TEST_CASE("sai positions: each key names its data block after flush, compaction and a build") {
  TempDir dir;
  auto store = open_store(dir.path());
  write_rows(*store, 0, 150);  // before the index: its SSTable's component is built by reading
  REQUIRE(store->flush().is_ok());
  store->set_index_components(components({factory()}));
  REQUIRE(store->build_index_components(kTable, factory()).is_ok());
  CHECK(check_positions(*store) == 150);

  write_rows(*store, 150, 400);   // written by a flush with the component
  for (int i = 0; i < 40; ++i) {  // overwrites: the older SSTable's entries are stale
    put(*store, kTable, "p" + std::to_string(i % 7), i, insert_row("w"));
  }
  REQUIRE(store->flush().is_ok());
  CHECK(check_positions(*store) == 150 + 290);
  size_t positioned = 0;
  CHECK(index_read(*store, "v3", &positioned) == scanned(*store, "v3"));
  CHECK(positioned == 80);  // every candidate, from each SSTable holding it
  CHECK(index_read(*store, "w", &positioned) == scanned(*store, "w"));
  CHECK(index_read(*store, "v0", &positioned).size() == 80 - 8);  // 8 overwritten by "w"

  REQUIRE(store->compact(kTable).is_ok());  // one SSTable: its component written by compaction
  REQUIRE(store->snapshot().value()->version->files(kTable).size() == 1);
  CHECK(check_positions(*store) == 400);
  for (std::string value : {"v0", "v1", "v4", "w"}) {
    CAPTURE(value);
    CHECK(index_read(*store, value, &positioned) == scanned(*store, value));
    CHECK(positioned == scanned(*store, value).size());
  }

  // A memtable row with the term has no position; its SSTable version is read by position.
  put(*store, kTable, "p1", 1, insert_row("v1"));
  CHECK(index_read(*store, "v1", &positioned) == scanned(*store, "v1"));
}

// An SSTable written before version 3 has a version 2 component ("sai2." names): read, without
// positions, next to version 3 ones, until compaction rewrites it.
TEST_CASE("sai positions: version 2 components are still read, without positions") {
  TempDir dir;
  auto store = open_store(dir.path());
  store->set_index_components(components({factory(true, "sai2.old")}));
  write_rows(*store, 0, 100);
  REQUIRE(store->flush().is_ok());
  store->set_index_components(components(
      {factory(), {"sai2.old", [] { return std::unique_ptr<IndexComponentBuilder>(); }}}));
  write_rows(*store, 100, 200);
  REQUIRE(store->flush().is_ok());

  auto snap = store->snapshot().value();
  REQUIRE(snap->version->files(kTable).size() == 2);
  std::map<int, int> versions;  // version -> components of it
  for (const auto& file : snap->version->files(kTable)) {
    for (std::string_view name : {std::string_view("sai2.old"), kName}) {
      auto component = Sai2ComponentReader::map(index_component_path(file->reader->path(), name));
      if (!component.is_ok()) {
        CHECK(component.status().is_not_found());
        continue;
      }
      ++versions[(*component)->version()];
      CHECK((*component)->has_positions() == ((*component)->version() == 3));
      CHECK(name.starts_with((*component)->version() == 3 ? "sai3." : "sai2."));
    }
  }
  CHECK(versions == std::map<int, int>{{2, 1}, {3, 1}});
  size_t positioned = 0;
  CHECK(index_read(*store, "v2", &positioned) == scanned(*store, "v2"));
  CHECK(positioned == 20);  // the rows of the newer SSTable only
  REQUIRE(store->compact(kTable).is_ok());
  CHECK(index_read(*store, "v2", &positioned) == scanned(*store, "v2"));
  CHECK(positioned == 40);
}

// A component whose positions name the wrong blocks (here each key the block after its own, as
// a component of another SSTable could): the keyed read fails with Corruption naming the
// SSTable and the block, and returns no row. A block offset that is no block fails its checksum.
TEST_CASE("sai positions: a position that names another block is Corruption, not a wrong row") {
  TempDir dir;
  auto store = open_store(dir.path());
  write_rows(*store, 0, 200);
  REQUIRE(store->flush().is_ok());
  auto snap = store->snapshot().value();
  REQUIRE(snap->version->files(kTable).size() == 1);
  const TableFile& file = *snap->version->files(kTable)[0];
  const std::vector<DataBlockRef> blocks = sstable_data_blocks(*file.reader).value();
  REQUIRE(blocks.size() > 10);

  // Builds a component of the SSTable reporting `shift(b)` for data block b.
  auto build = [&](std::string_view name, auto shift) {
    auto builder = make_sai_builder(value_column());
    size_t b = 0;
    auto it = file.reader->new_iterator();
    for (it->seek(""); it->valid(); it->next()) {
      for (; std::string_view(blocks[b].index_key) < it->key(); ++b) {
        const BlockHandle h = shift(b);
        builder->data_block(h.offset, h.size);
      }
      REQUIRE(builder->add(it->key(), it->value()).is_ok());
    }
    for (; b < blocks.size(); ++b) builder->data_block(shift(b).offset, shift(b).size);
    REQUIRE(builder->finish(index_component_path(file.reader->path(), name)).is_ok());
  };
  build("sai3.right", [&](size_t b) { return blocks[b].handle; });
  build("sai3.next", [&](size_t b) { return blocks[(b + 1) % blocks.size()].handle; });
  build("sai3.inside", [&](size_t b) {
    return BlockHandle{blocks[b].handle.offset + 1, blocks[b].handle.size};
  });

  size_t positioned = 0;
  CHECK(index_read(*store, "v1", &positioned, "sai3.right") == scanned(*store, "v1"));
  CHECK(positioned == 40);
  Status error;
  CHECK(index_read(*store, "v1", &positioned, "sai3.next", &error).empty());
  CHECK(error.is_corruption());
  CHECK(error.message().starts_with("sstable " + file.reader->path() +
                                    ": an index position names a block that does not hold its "
                                    "entry at offset "));
  CHECK(index_read(*store, "v1", &positioned, "sai3.inside", &error).empty());
  CHECK(error.is_corruption());
  CHECK(error.message().find("block checksum mismatch") != std::string::npos);
}
