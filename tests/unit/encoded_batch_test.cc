// EncodedBatch and restamp_value: restamping an encoded value must give the bytes of the same
// row encoded with its timestamps already assigned (and the same min timestamp), and a
// MutationBuilder must encode into the entries a writer would add by hand.
#include "engine/storage/encoded_batch.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/storage/commit_record.h"
#include "engine/storage/row_codec.h"
#include "engine/types/murmur3.h"
#include "tests/unit/store_test_util.h"

using namespace cassette::storage;
using cassette::test::ck;
using cassette::test::TempDir;

namespace {

int64_t random_timestamp(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:
    case 1:
      return kAutoTimestamp;
    case 2:
      return static_cast<int64_t>(rng() % 2'000'000'000'000'000ull);
    case 3:
      return -static_cast<int64_t>(rng() % 1000);
    default:
      return kNoTimestamp;
  }
}

Cell random_cell(std::mt19937_64& rng, bool with_path) {
  Cell c;
  int64_t ts = random_timestamp(rng);
  if (ts == kNoTimestamp) ts = kAutoTimestamp;
  std::string path = with_path ? "path" + std::to_string(rng() % 100) : "";
  switch (rng() % 4) {
    case 0:
      c = Cell::tombstone(ts, 1'700'000'000, path);
      break;
    case 1:
      c = Cell::expiring(ts, 1 + rng() % 1000, 1'700'000'000, "e" + std::to_string(rng()), path);
      break;
    case 2:
      if (!with_path) {
        c = Cell::counter(ts, static_cast<int64_t>(rng() % 100) - 50);
        break;
      }
      [[fallthrough]];
    default:
      c = Cell::live(ts, std::string(rng() % 40, 'v'), path);
  }
  return c;
}

Row random_row(std::mt19937_64& rng) {
  Row row;
  if (rng() % 4 != 0) {
    int64_t ts = random_timestamp(rng);
    if (ts != kNoTimestamp) {
      row.liveness.timestamp = ts;
      if (rng() % 3 == 0) {
        row.liveness.ttl = 100;
        row.liveness.local_expiration_time = 1'700'000'100;
      }
    }
  }
  if (rng() % 4 == 0)
    row.deletion = {random_timestamp(rng) == kNoTimestamp ? 5 : kAutoTimestamp, 1'700'000'000};
  int columns = static_cast<int>(rng() % 5);
  for (int i = 0; i < columns; ++i) {
    ColumnData col;
    col.id = static_cast<ColumnId>(i * 3 + 1);
    col.complex = rng() % 3 == 0;
    if (col.complex) {
      if (rng() % 2 == 0) col.complex_deletion = {kAutoTimestamp, 1'700'000'000};
      int cells = static_cast<int>(rng() % 4);
      for (int j = 0; j < cells; ++j) {
        Cell c = random_cell(rng, true);
        c.path = "p" + std::to_string(j);
        col.cells.push_back(std::move(c));
      }
    } else {
      col.cell = random_cell(rng, false);
    }
    row.columns.push_back(std::move(col));
  }
  return row;
}

// The oracle restamp_value is checked against: the Row with every kAutoTimestamp replaced.
void stamp(int64_t* ts, int64_t timestamp) {
  if (*ts == kAutoTimestamp) *ts = timestamp;
}
Row stamped_row(Row row, int64_t timestamp) {
  stamp(&row.liveness.timestamp, timestamp);
  stamp(&row.deletion.marked_for_delete_at, timestamp);
  for (ColumnData& col : row.columns) {
    stamp(&col.cell.timestamp, timestamp);
    stamp(&col.complex_deletion.marked_for_delete_at, timestamp);
    for (Cell& c : col.cells) stamp(&c.timestamp, timestamp);
  }
  return row;
}

}  // namespace

TEST_CASE("restamp_value equals assigning the timestamp and encoding again, for rows and headers") {
  std::mt19937_64 rng(7);
  const int64_t timestamp = 1'700'000'123'456'789;
  for (int i = 0; i < 3000; ++i) {
    CAPTURE(i);
    Row row = random_row(rng);
    std::string unstamped;
    encode_row(row, &unstamped);

    const Row stamped = stamped_row(row, timestamp);
    std::string want;
    encode_row(stamped, &want);
    RowTimes times;
    collect_row_times(stamped, &times);

    std::string got = "x";  // restamp appends
    int64_t min_timestamp = INT64_MAX;
    REQUIRE(restamp_value(unstamped, false, timestamp, &got, &min_timestamp));
    CHECK(got == "x" + want);
    CHECK(min_timestamp == times.min_timestamp);
  }
  PartitionHeader header;
  header.deletion = {kAutoTimestamp, 1'700'000'000};
  header.range_tombstones.push_back({ck(1), ck(5), {kAutoTimestamp, 1'700'000'000}});
  header.range_tombstones.push_back({ck(7), ck(9), {42, 1'700'000'000}});
  std::string unstamped;
  encode_header(header, &unstamped);
  PartitionHeader stamped = header;
  stamp(&stamped.deletion.marked_for_delete_at, timestamp);
  stamp(&stamped.range_tombstones[0].deletion.marked_for_delete_at, timestamp);
  std::string want;
  encode_header(stamped, &want);
  std::string got;
  int64_t min_timestamp = INT64_MAX;
  REQUIRE(restamp_value(unstamped, true, timestamp, &got, &min_timestamp));
  CHECK(got == want);
  CHECK(min_timestamp == 42);
}

TEST_CASE("restamp_value rejects malformed values") {
  Row row = cassette::test::insert_row("value");
  std::string encoded;
  encode_row(row, &encoded);
  std::string out;
  int64_t min_timestamp = INT64_MAX;
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    out.clear();
    CHECK_FALSE(restamp_value(encoded.substr(0, cut), false, 5, &out, &min_timestamp));
  }
  CHECK_FALSE(restamp_value(encoded + "x", false, 5, &out, &min_timestamp));
  CHECK_FALSE(restamp_value(std::string(1, '\x09'), false, 5, &out, &min_timestamp));  // bad flags
}

TEST_CASE("MutationBuilder::encode_to adds the entries a writer adds by hand") {
  std::mt19937_64 rng(11);
  MutationBuilder wb;
  EncodedBatch eb;
  std::string value;
  for (int p = 0; p < 20; ++p) {
    std::string pk = "partition-" + std::to_string(p);
    TableId table = 3 + p % 2;
    PartitionUpdate& u = wb.partition(table, pk);
    if (p % 5 == 0) {
      u.header.deletion = {kAutoTimestamp, 1'700'000'000};
      value.clear();
      encode_header(u.header, &value);
      REQUIRE(eb.add_row(table, pk, EntryKind::kPartitionHeader, "", value).is_ok());
    }
    if (p % 3 == 0) {
      u.static_row = cassette::test::insert_row("static");
      value.clear();
      encode_row(u.static_row, &value);
      REQUIRE(eb.add_row(table, pk, EntryKind::kStaticRow, "", value).is_ok());
    }
    for (int r = 0; r < 10; ++r) {
      Row row = random_row(rng);
      if (row.is_empty()) row = cassette::test::insert_row("x");
      u.rows.push_back({ck(r), row});
      value.clear();
      encode_row(row, &value);
      REQUIRE(eb.add_row(table, pk, EntryKind::kRow, ck(r), value).is_ok());
    }
  }
  EncodedBatch built;
  REQUIRE(wb.encode_to(&built).is_ok());
  CHECK(built.entry_count() == eb.entry_count());
  CHECK(built.body() == eb.body());

  // Entries are found again by offset, and truncation drops what came after.
  size_t offset = 0, next = 0;
  EncodedBatch::Entry first = eb.entry_at(offset, &next);
  CHECK(first.table == 3);
  CHECK(next > 0);
  size_t entries = eb.entry_count();
  eb.truncate(1, next);
  CHECK(eb.entry_count() == 1);
  CHECK(eb.byte_size() == next);
  CHECK(entries > 1);
}

TEST_CASE("EncodedBatch::add_row checks the partition key as Cassandra does") {
  EncodedBatch batch;
  auto empty = batch.add_row(1, "", EntryKind::kRow, ck(1), "");
  REQUIRE_FALSE(empty.is_ok());
  CHECK(empty.status().message() == "Key may not be empty");
  auto large = batch.add_row(1, std::string(65536, 'k'), EntryKind::kRow, ck(1), "");
  REQUIRE_FALSE(large.is_ok());
  CHECK(large.status().message() == "Key length of 65536 is longer than maximum of 65535");
  CHECK(batch.empty());
  CHECK(batch.byte_size() == 0);
}

TEST_CASE("Store::apply of an EncodedBatch commits durably, and a malformed one writes nothing") {
  TempDir dir;
  {
    auto store = Store::open(dir.path()).value();
    EncodedBatch batch;
    std::string value;
    for (int r = 0; r < 100; ++r) {
      value.clear();
      encode_row(cassette::test::insert_row("v" + std::to_string(r)), &value);
      REQUIRE(batch.add_row(9, r % 2 ? "odd" : "even", EntryKind::kRow, ck(r), value).is_ok());
    }
    auto ts = store->apply(batch);
    REQUIRE(ts.is_ok());
    auto rows = cassette::test::read_partition(*store, 9, "odd");
    REQUIRE(rows.size() == 50);
    CHECK(rows[0].clustering == 1);
    CHECK(rows[0].value == "v1");
    CHECK(rows[49].value == "v99");

    EncodedBatch bad;
    REQUIRE(bad.add_row(9, "odd", EntryKind::kRow, ck(500), "\x01").is_ok());  // truncated row
    auto failed = store->apply(bad);
    REQUIRE_FALSE(failed.is_ok());
    CHECK(failed.status().message() == "malformed entry value in a batch");
    CHECK(cassette::test::read_partition(*store, 9, "odd").size() == 50);
  }
  // Reopened: replayed from the commit log.
  auto store = Store::open(dir.path()).value();
  auto rows = cassette::test::read_partition(*store, 9, "even");
  REQUIRE(rows.size() == 50);
  CHECK(rows[0].value == "v0");
  CHECK(rows[49].clustering == 98);
}

TEST_CASE("EncodedBatch grows past many megabytes, moves, and is reusable after a move") {
  EncodedBatch batch;
  std::string value(1000, 'v');
  for (int i = 0; i < 5000; ++i) {
    REQUIRE(batch.add_row(2, "pk" + std::to_string(i % 7), EntryKind::kRow, ck(i), value).is_ok());
  }
  const size_t bytes = batch.byte_size();
  CHECK(bytes > 5'000'000);
  EncodedBatch moved = std::move(batch);
  CHECK(moved.entry_count() == 5000);
  CHECK(moved.byte_size() == bytes);
  CHECK(batch.empty());
  CHECK(batch.byte_size() == 0);
  REQUIRE(batch.add_row(2, "again", EntryKind::kRow, ck(1), "x").is_ok());
  EncodedBatch::Entry e = batch.entry_at(0);
  CHECK(e.table == 2);
  CHECK(e.value == "x");
  size_t offset = 0;
  for (int i = 0; i < 5000; ++i) {
    EncodedBatch::Entry entry = moved.entry_at(offset, &offset);
    REQUIRE(entry.value == value);
  }
  CHECK(offset == bytes);
}

TEST_CASE("Store::read shows a snapshot's overlay only up to its overlay_seq") {
  auto store = Store::open(":memory:").value();
  cassette::test::put(*store, 4, "pk", 1, cassette::test::insert_row("committed"));
  auto overlay = std::make_shared<Memtable>();
  std::string key, value;
  auto add = [&](SequenceNumber seq, int64_t c, const std::string& v) {
    key.clear();
    append_partition_prefix(&key, cassette::types::murmur3_token("pk"), "pk");
    key.push_back(static_cast<char>(EntryKind::kRow));
    key += ck(c);
    value.clear();
    encode_row(cassette::test::insert_row(v, 4'000'000'000'000'000), &value);
    overlay->add_batch(seq, {{4, key, value}});
  };
  add(1, 2, "first");
  auto base = store->snapshot().value();
  auto at = [&](SequenceNumber overlay_seq) {
    auto snap = std::make_shared<Snapshot>(*base);
    snap->overlay = overlay;
    snap->overlay_seq = overlay_seq;
    auto cursor = store->read(*snap, 4, Store::partition_spec("pk"));
    std::vector<std::string> got;
    for (const auto& r : cassette::test::drain(*cursor))
      got.push_back(std::to_string(r.clustering) + "=" + r.value);
    return got;
  };
  add(2, 1, "rewritten");  // a later generation: shadows the committed row only from seq 2
  add(2, 3, "third");
  CHECK(at(0) == std::vector<std::string>{"1=committed"});
  CHECK(at(1) == std::vector<std::string>{"1=committed", "2=first"});
  CHECK(at(2) == std::vector<std::string>{"1=rewritten", "2=first", "3=third"});
}
