// EncodedRowWriter must write exactly the bytes encode_row writes for the same row (the SQLite
// extension's INSERT encodes rows with it instead of building a Row), and the writes the
// SQLite extension makes through it must commit as the Row path's would.
#include "engine/storage/encoded_row_writer.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/storage/mutation_builder.h"
#include "engine/storage/row_codec.h"

using namespace cassette::storage;

namespace {

int64_t some_timestamp(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return kAutoTimestamp;
    case 1:
      return 1'700'000'000'000'000 + static_cast<int64_t>(rng() % 1'000'000);
    case 2:
      return -static_cast<int64_t>(rng() % 1000);
    default:
      return static_cast<int64_t>(rng());
  }
}

}  // namespace

TEST_CASE("EncodedRowWriter writes encode_row's bytes for the same row") {
  std::mt19937_64 rng(7);
  EncodedRowWriter writer;  // reused, as the extension does
  for (int round = 0; round < 2000; ++round) {
    CAPTURE(round);
    Row row;
    const int64_t now = 1'700'000'000 + static_cast<int64_t>(rng() % 1000);
    const int64_t row_ts = some_timestamp(rng);
    switch (rng() % 3) {
      case 0:
        break;  // no row marker (an UPDATE's row)
      case 1:
        row.liveness = LivenessInfo::written(row_ts, 0, now);
        break;
      default:
        row.liveness = LivenessInfo::written(row_ts, 1 + static_cast<int64_t>(rng() % 100000), now);
    }
    writer.start(row.liveness);
    ColumnId id = static_cast<ColumnId>(rng() % 3);
    const int columns = static_cast<int>(rng() % 8);
    for (int c = 0; c < columns; ++c) {
      id += 1 + static_cast<ColumnId>(rng() % (c == 3 ? 300 : 3));  // ids past one varint byte too
      // Cells mostly at the row's timestamp (an INSERT), sometimes not.
      const int64_t ts = rng() % 4 == 0 ? some_timestamp(rng) : row_ts;
      std::string value(rng() % 5 == 0 ? 200 + rng() % 200 : rng() % 12, 'x');
      for (char& ch : value) ch = static_cast<char>(rng());
      ColumnData data;
      data.id = id;
      switch (rng() % 3) {
        case 0:
          data.cell = Cell::tombstone(ts, now);
          writer.add_tombstone(id, ts, now);
          break;
        case 1: {
          const int64_t ttl = 1 + static_cast<int64_t>(rng() % 100000);
          data.cell = Cell::expiring(ts, ttl, now, value);
          writer.add_expiring(id, ts, ttl, now, value);
          break;
        }
        default:
          data.cell = Cell::live(ts, value);
          writer.add_live(id, ts, value);
      }
      row.columns.push_back(std::move(data));
    }
    std::string want, got = "prefix";
    encode_row(row, &want);
    writer.finish(&got);
    CHECK(writer.columns() == row.columns.size());
    REQUIRE(got.substr(0, 6) == "prefix");  // finish appends
    CHECK(got.substr(6) == want);
    Row decoded;
    REQUIRE(decode_row(got.substr(6), &decoded));
    CHECK(decoded.columns.size() == row.columns.size());
  }
}

TEST_CASE("EncodedRowWriter: an INSERT of an empty value, a NULL and no columns at all") {
  EncodedRowWriter writer;
  const int64_t now = 1'700'000'000;
  Row row;
  row.liveness = LivenessInfo::written(kAutoTimestamp, 0, now);
  writer.start(row.liveness);
  std::string want, got;
  encode_row(row, &want);
  writer.finish(&got);
  CHECK(got == want);

  ColumnData empty, null;
  empty.id = 4;
  empty.cell = Cell::live(kAutoTimestamp, "");
  null.id = 9;
  null.cell = Cell::tombstone(kAutoTimestamp, now);
  row.columns = {empty, null};
  writer.start(row.liveness);
  writer.add_live(4, kAutoTimestamp, "");
  writer.add_tombstone(9, kAutoTimestamp, now);
  want.clear();
  got.clear();
  encode_row(row, &want);
  writer.finish(&got);
  CHECK(got == want);
}
