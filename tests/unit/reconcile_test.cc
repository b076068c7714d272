// Reconciliation, rule by rule, as docs/ARCHITECTURE.md §2 and Cassandra's Cells.reconcile /
// LivenessInfo.supersedes / DeletionTime.supersedes define it. Every rule is checked in both
// argument orders, because merging must not depend on which source came first.
#include <doctest/doctest.h>

#include "engine/storage/row.h"
#include "engine/storage/row_codec.h"

using namespace cassette::storage;

namespace {
constexpr int64_t kNow = 1'700'000'000;  // seconds

Cell both_ways(const Cell& a, const Cell& b) {
  Cell ab = reconcile_cells(a, b);
  Cell ba = reconcile_cells(b, a);
  REQUIRE(ab == ba);
  return ab;
}
}  // namespace

TEST_CASE("higher timestamp wins, whatever the kinds") {
  CHECK(both_ways(Cell::live(10, "old"), Cell::live(11, "new")).value == "new");
  CHECK(both_ways(Cell::live(10, "zzz"), Cell::live(11, "aaa")).value == "aaa");
  CHECK(both_ways(Cell::tombstone(10, kNow), Cell::live(11, "v")).value == "v");
  CHECK(both_ways(Cell::tombstone(12, kNow), Cell::live(11, "v")).is_tombstone());
  CHECK(both_ways(Cell::expiring(10, 60, kNow, "e"), Cell::live(11, "v")).value == "v");
  CHECK(both_ways(Cell::expiring(12, 60, kNow, "e"), Cell::live(11, "v")).value == "e");
}

TEST_CASE("equal timestamps: a tombstone beats a live cell") {
  Cell w = both_ways(Cell::tombstone(10, kNow), Cell::live(10, "v"));
  CHECK(w.is_tombstone());
}

TEST_CASE(
    "equal timestamps: an expiring cell beats a non-expiring one, even with a smaller value") {
  Cell w = both_ways(Cell::expiring(10, 60, kNow, "a"), Cell::live(10, "z"));
  CHECK(w.is_expiring());
  CHECK(w.value == "a");
}

TEST_CASE("equal timestamps: a tombstone beats an expiring cell") {
  CHECK(
      both_ways(Cell::tombstone(10, kNow - 100), Cell::expiring(10, 60, kNow, "e")).is_tombstone());
}

TEST_CASE("equal timestamps: of two expiring cells the later expiry wins") {
  Cell w = both_ways(Cell::expiring(10, 60, kNow, "z"), Cell::expiring(10, 120, kNow, "a"));
  CHECK(w.value == "a");
  CHECK(w.ttl == 120);
}

TEST_CASE("equal timestamps: of two tombstones the later deletion time wins") {
  Cell w = both_ways(Cell::tombstone(10, kNow), Cell::tombstone(10, kNow + 5));
  CHECK(w.local_deletion_time == kNow + 5);
}

TEST_CASE("equal timestamps and kinds: the larger value (unsigned bytes) wins") {
  CHECK(both_ways(Cell::live(10, "abc"), Cell::live(10, "abd")).value == "abd");
  CHECK(both_ways(Cell::live(10, "ab"), Cell::live(10, "abc")).value == "abc");
  CHECK(both_ways(Cell::live(10, std::string("\x01", 1)), Cell::live(10, std::string("\xff", 1)))
            .value == std::string("\xff", 1));
  // Equal expiries too: value decides.
  CHECK(both_ways(Cell::expiring(10, 60, kNow, "b"), Cell::expiring(10, 60, kNow, "c")).value ==
        "c");
}

TEST_CASE("counter deltas are summed and keep the highest timestamp") {
  Cell w = both_ways(Cell::counter(10, 5), Cell::counter(3, -2));
  CHECK(w.is_counter());
  CHECK(w.counter_value() == 3);
  CHECK(w.timestamp == 10);
  Cell w3 = reconcile_cells(w, Cell::counter(20, 100));
  CHECK(w3.counter_value() == 103);
}

TEST_CASE("counter deltas wrap around on overflow, as Java's longs do in Cassandra") {
  // Found by the cql_execute fuzz target under UBSan (a signed overflow before).
  CHECK(both_ways(Cell::counter(1, INT64_MAX), Cell::counter(2, 1)).counter_value() == INT64_MIN);
  CHECK(both_ways(Cell::counter(1, INT64_MIN), Cell::counter(2, -2)).counter_value() ==
        INT64_MAX - 1);
}

TEST_CASE("a counter tombstone wins whatever its timestamp") {
  CHECK(both_ways(Cell::tombstone(1, kNow), Cell::counter(50, 5)).is_tombstone());
}

TEST_CASE("liveness markers: timestamp, then expiring beats non-expiring, then later expiry") {
  LivenessInfo plain{10, 0, kNoDeletionTime};
  LivenessInfo newer{11, 0, kNoDeletionTime};
  LivenessInfo expiring{10, 60, kNow + 60};
  LivenessInfo expiring_later{10, 90, kNow + 90};
  CHECK(newer.supersedes(plain));
  CHECK_FALSE(plain.supersedes(newer));
  CHECK(newer.supersedes(expiring));
  CHECK(expiring.supersedes(plain));
  CHECK_FALSE(plain.supersedes(expiring));
  CHECK(expiring_later.supersedes(expiring));
  CHECK_FALSE(expiring.supersedes(expiring_later));
  CHECK_FALSE(plain.supersedes(plain));
}

TEST_CASE("deletions: higher timestamp wins, then later local deletion time") {
  DeletionTime a{10, kNow};
  DeletionTime b{11, kNow - 50};
  DeletionTime c{10, kNow + 1};
  CHECK(b.supersedes(a));
  CHECK(c.supersedes(a));
  CHECK_FALSE(a.supersedes(c));
  CHECK(max_deletion(a, b) == b);
  CHECK(max_deletion(b, a) == b);
}

TEST_CASE("a deletion shadows data at or before its timestamp, not after") {
  Row row;
  row.liveness = {10, 0, kNoDeletionTime};
  row.columns.push_back({1, false, Cell::live(9, "old"), {}, {}});
  row.columns.push_back({2, false, Cell::live(10, "equal"), {}, {}});
  row.columns.push_back({3, false, Cell::live(11, "new"), {}, {}});
  Row read = row;
  REQUIRE(purge_for_read(read, DeletionTime{10, kNow}, kNow));
  CHECK(read.liveness.is_empty());
  REQUIRE(read.columns.size() == 1);
  CHECK(read.columns[0].id == 3);
  CHECK(read.columns[0].cell.value == "new");

  Row all_gone = row;
  CHECK_FALSE(purge_for_read(all_gone, DeletionTime{11, kNow}, kNow));
}

TEST_CASE("collection deletion shadows older elements only") {
  Row row;
  ColumnData set;
  set.id = 4;
  set.complex = true;
  set.complex_deletion = {20, kNow};
  set.cells = {Cell::live(19, "", "a"), Cell::live(21, "", "b")};
  row.columns.push_back(set);
  REQUIRE(purge_for_read(row, DeletionTime{}, kNow));
  REQUIRE(row.columns[0].cells.size() == 1);
  CHECK(row.columns[0].cells[0].path == "b");
}

TEST_CASE("rows reconcile column by column and element by element") {
  Row a, b;
  a.liveness = {5, 0, kNoDeletionTime};
  a.columns.push_back({1, false, Cell::live(5, "a1"), {}, {}});
  ColumnData m1{3, true, {}, {}, {Cell::live(5, "x", "k1"), Cell::live(5, "y", "k2")}};
  a.columns.push_back(m1);
  b.columns.push_back({1, false, Cell::live(6, "b1"), {}, {}});
  b.columns.push_back({2, false, Cell::live(6, "b2"), {}, {}});
  ColumnData m2{3,
                true,
                {},
                DeletionTime{4, kNow},
                {Cell::tombstone(7, kNow, "k2"), Cell::live(6, "z", "k3")}};
  b.columns.push_back(m2);
  Row ab = a;
  reconcile_rows(ab, b);
  Row ba = b;
  reconcile_rows(ba, a);
  CHECK(ab == ba);
  CHECK(ab.liveness.timestamp == 5);
  REQUIRE(ab.columns.size() == 3);
  CHECK(ab.columns[0].cell.value == "b1");
  CHECK(ab.columns[1].cell.value == "b2");
  REQUIRE(ab.columns[2].cells.size() == 3);
  CHECK(ab.columns[2].cells[0].value == "x");
  CHECK(ab.columns[2].cells[1].is_tombstone());
  CHECK(ab.columns[2].cells[2].value == "z");
  CHECK(ab.columns[2].complex_deletion == DeletionTime{4, kNow});
}

TEST_CASE("expired cells read as absent and a row with an expired marker and no cells is gone") {
  Row row;
  row.liveness = {10, 60, kNow + 60};
  row.columns.push_back({1, false, Cell::expiring(10, 60, kNow, "v"), {}, {}});
  Row before = row;
  CHECK(purge_for_read(before, DeletionTime{}, kNow + 59));
  Row after = row;
  CHECK_FALSE(purge_for_read(after, DeletionTime{}, kNow + 60));
}

TEST_CASE("purge_for_read without deletions: live cells stay, expired ones and markers go") {
  // No deletion applies (the read path's shortcut): only TTL expiry removes anything.
  Row clean;
  clean.liveness = {10, 0, kNoDeletionTime};
  clean.columns.push_back({1, false, Cell::live(10, "a"), {}, {}});
  clean.columns.push_back({2, false, Cell::live(11, "b"), {}, {}});
  Row expected = clean;
  REQUIRE(purge_for_read(clean, DeletionTime{}, kNow));
  CHECK(clean == expected);

  Row marker_expired;  // the marker expired, the plain cell did not: the row stays, markerless
  marker_expired.liveness = {10, 60, kNow + 60};
  marker_expired.columns.push_back({1, false, Cell::live(10, "a"), {}, {}});
  REQUIRE(purge_for_read(marker_expired, DeletionTime{}, kNow + 60));
  CHECK(marker_expired.liveness == LivenessInfo{});
  REQUIRE(marker_expired.columns.size() == 1);
  CHECK(marker_expired.columns[0].cell.value == "a");

  Row cell_expired;  // one of two cells expired: it alone is removed
  cell_expired.columns.push_back({1, false, Cell::expiring(10, 60, kNow, "gone"), {}, {}});
  cell_expired.columns.push_back({2, false, Cell::live(10, "kept"), {}, {}});
  REQUIRE(purge_for_read(cell_expired, DeletionTime{}, kNow + 60));
  REQUIRE(cell_expired.columns.size() == 1);
  CHECK(cell_expired.columns[0].id == 2);

  Row tombstone_only;  // a cell tombstone and no marker: nothing is left to read
  tombstone_only.columns.push_back({1, false, Cell::tombstone(10, kNow), {}, {}});
  CHECK_FALSE(purge_for_read(tombstone_only, DeletionTime{}, kNow));
  CHECK(tombstone_only.columns.empty());

  Row marker_only;  // a live marker alone keeps the row
  marker_only.liveness = {10, 0, kNoDeletionTime};
  CHECK(purge_for_read(marker_only, DeletionTime{}, kNow));
  Row empty;
  CHECK_FALSE(purge_for_read(empty, DeletionTime{}, kNow));
}

TEST_CASE("purge_for_read: the row's own deletion and the outer one shadow what they cover") {
  Row row;
  row.liveness = {10, 0, kNoDeletionTime};
  row.deletion = {12, kNow};
  row.columns.push_back({1, false, Cell::live(11, "old"), {}, {}});
  row.columns.push_back({2, false, Cell::live(13, "new"), {}, {}});
  REQUIRE(purge_for_read(row, DeletionTime{}, kNow));
  CHECK(row.deletion == DeletionTime{});
  CHECK(row.liveness == LivenessInfo{});
  REQUIRE(row.columns.size() == 1);
  CHECK(row.columns[0].cell.value == "new");

  Row outer;
  outer.liveness = {10, 0, kNoDeletionTime};
  outer.columns.push_back({1, false, Cell::live(10, "a"), {}, {}});
  CHECK_FALSE(purge_for_read(outer, DeletionTime{10, kNow}, kNow));
}

TEST_CASE("compaction turns expired cells into tombstones and purges them after gc_grace") {
  auto always = [](int64_t) { return true; };
  auto never = [](int64_t) { return false; };
  Row row;
  row.columns.push_back({1, false, Cell::expiring(10, 60, kNow, "v"), {}, {}});
  Row expired = row;
  REQUIRE(purge_for_compaction(expired, DeletionTime{}, kNow + 60, /*gc_before=*/kNow - 1, always));
  CHECK(expired.columns[0].cell.is_tombstone());
  CHECK(expired.columns[0].cell.local_deletion_time == kNow);  // dated at its write
  Row purged = row;
  CHECK_FALSE(purge_for_compaction(purged, DeletionTime{}, kNow + 60, kNow + 1, always));
  Row kept = row;
  CHECK(purge_for_compaction(kept, DeletionTime{}, kNow + 60, kNow + 1, never));
  CHECK(kept.columns[0].cell.is_tombstone());
}

TEST_CASE("range tombstones cover [start, end) and the partition deletion covers everything") {
  PartitionHeader h;
  h.deletion = {5, kNow};
  h.range_tombstones.push_back({"b", "d", {9, kNow}});
  CHECK(h.deletion_for("a") == DeletionTime{5, kNow});
  CHECK(h.deletion_for("b") == DeletionTime{9, kNow});
  CHECK(h.deletion_for("c\xff") == DeletionTime{9, kNow});
  CHECK(h.deletion_for("d") == DeletionTime{5, kNow});
  PartitionHeader other;
  other.range_tombstones.push_back({"b", "d", {12, kNow}});
  other.range_tombstones.push_back({"a", "b", {3, kNow}});
  reconcile_headers(h, other);
  REQUIRE(h.range_tombstones.size() == 2);
  CHECK(h.range_tombstones[0].start == "a");
  CHECK(h.range_tombstones[1].deletion.marked_for_delete_at == 12);
}

TEST_CASE("row decoding reads varints of every length, at any distance from the end") {
  // Timestamps of every varint length (1 to 10 bytes), first in a row whose varint ends far
  // from the end of the value, then in one where it ends the value (and every cut of it fails).
  std::vector<int64_t> timestamps = {0,
                                     1,
                                     -1,
                                     63,
                                     -64,
                                     64,
                                     8191,
                                     8192,
                                     int64_t{1} << 20,
                                     1'700'000'000'000'000,
                                     -1'700'000'000'000'000,
                                     (int64_t{1} << 55) - 1,
                                     int64_t{1} << 55,
                                     (int64_t{1} << 62),
                                     INT64_MAX,
                                     INT64_MIN + 1,
                                     INT64_MIN};
  for (int shift = 0; shift < 63; ++shift) timestamps.push_back(int64_t{1} << shift);
  for (int64_t ts : timestamps) {
    CAPTURE(ts);
    Row row;
    row.liveness = {ts, 0, kNoDeletionTime};
    row.columns.push_back({3, false, Cell::live(ts, "a longer value of some bytes"), {}, {}});
    std::string bytes;
    encode_row(row, &bytes);
    Row back;
    REQUIRE(decode_row(bytes, &back));
    CHECK(back == row);
    if (ts == kNoTimestamp) continue;  // "no deletion": nothing is encoded
    Row deletion_only;                 // the deletion's varints are the last bytes but one
    deletion_only.deletion = {ts, ts};
    bytes.clear();
    encode_row(deletion_only, &bytes);
    REQUIRE(decode_row(bytes, &back));
    CHECK(back == deletion_only);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      CHECK_FALSE(decode_row(std::string_view(bytes).substr(0, cut), &back));
    }
  }
  // Value lengths and TTLs across the varint length boundaries, in rows long enough that their
  // varints are read a word at a time, and at the end of a row, byte by byte.
  for (size_t size : {0, 1, 127, 128, 129, 16383, 16384, 70000}) {
    for (int64_t ttl : {int64_t{1}, int64_t{127}, int64_t{128}, int64_t{16384}, kMaxTtlSeconds}) {
      CAPTURE(size);
      CAPTURE(ttl);
      Row row;
      row.liveness = LivenessInfo::written(1'700'000'000'000'000, ttl, 1'700'000'000);
      row.columns.push_back(
          {1,
           false,
           Cell::expiring(1'700'000'000'000'001, ttl, 1'700'000'000, std::string(size, 'v')),
           {},
           {}});
      row.columns.push_back(
          {2, false, Cell::live(1'699'999'999'999'999, "tail of the row"), {}, {}});
      std::string bytes;
      encode_row(row, &bytes);
      Row back;
      REQUIRE(decode_row(bytes, &back));
      CHECK(back == row);
    }
  }
  // An over-long varint (ten continuation bytes) is malformed, as coding.h reads it.
  std::string bad = "\x01";  // flags: has liveness
  bad += std::string(10, '\x80');
  bad += '\x00';
  Row r;
  CHECK_FALSE(decode_row(bad, &r));
}

TEST_CASE("row and header encodings round-trip and reject garbage") {
  Row row;
  row.liveness = {123456789, 30, kNow + 30};
  row.deletion = {100, kNow};
  row.columns.push_back({1, false, Cell::live(-5, "value"), {}, {}});
  row.columns.push_back({2, false, Cell::tombstone(7, kNow), {}, {}});
  row.columns.push_back({9, false, Cell::counter(8, -42), {}, {}});
  row.columns.push_back({70000,
                         true,
                         {},
                         DeletionTime{3, kNow},
                         {Cell::expiring(4, 10, kNow, "v", "p1"), Cell::live(4, "", "p2")}});
  std::string bytes;
  encode_row(row, &bytes);
  Row back;
  REQUIRE(decode_row(bytes, &back));
  CHECK(back == row);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Row r;
    CHECK_FALSE(decode_row(std::string_view(bytes).substr(0, cut), &r));
  }
  PartitionHeader h;
  h.deletion = {1, 2};
  h.range_tombstones.push_back({"a", "b", {3, 4}});
  std::string hb;
  encode_header(h, &hb);
  PartitionHeader hback;
  REQUIRE(decode_header(hb, &hback));
  CHECK(hback == h);
}

TEST_CASE("decode_row with ValueColumns: other columns' values left out, their cells kept") {
  Row row;
  row.liveness = {100, 0, kNoDeletionTime};
  row.columns.push_back({1, false, Cell::live(100, "wanted"), {}, {}});
  row.columns.push_back({2, false, Cell::live(101, "not wanted, a long value to copy"), {}, {}});
  row.columns.push_back({3, false, Cell::expiring(102, 10, 1'000, "expiring"), {}, {}});
  row.columns.push_back({4, false, Cell::tombstone(103, 1'000), {}, {}});
  row.columns.push_back({5, false, Cell::counter(104, 7), {}, {}});
  ColumnData list{6, true, {}, {90, 1'000}, {}};
  list.cells.push_back(Cell::live(100, "element", "path"));
  row.columns.push_back(list);
  row.columns.push_back({300, false, Cell::live(100, "an id past the set"), {}, {}});
  std::string bytes;
  encode_row(row, &bytes);

  ValueColumns values;
  values.wanted = {0, 1};  // column 1 only
  Row back;
  REQUIRE(decode_row(bytes, &back, &values));
  REQUIRE(back.columns.size() == row.columns.size());
  CHECK(back.liveness == row.liveness);
  CHECK(back.columns[0] == row.columns[0]);
  for (size_t i : {1, 2, 6}) {  // simple cells: everything but the value
    CAPTURE(i);
    Cell want = row.columns[i].cell;
    want.value.clear();
    CHECK(back.columns[i].id == row.columns[i].id);
    CHECK(back.columns[i].cell == want);
  }
  CHECK(back.columns[3] == row.columns[3]);  // a tombstone has no value anyway
  CHECK(back.columns[4] == row.columns[4]);  // a counter's value: merges sum it
  CHECK(back.columns[5] == row.columns[5]);  // a collection, whole: elements merge by path
  // Decoding the same Row again with every value gives the row back (no value left behind).
  REQUIRE(decode_row(bytes, &back));
  CHECK(back == row);
  // Malformed input is malformed with a selection too.
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    CHECK_FALSE(decode_row(std::string_view(bytes).substr(0, cut), &back, &values));
  }
}
