// txn::fold_sorted (engine/txn/spill.h): the sorted fold a spill writes as a run gives each row
// what PendingFold's fold of the whole log gives it — rows written once, several times, deleted
// and written again, counters, collections, static rows, partition headers, TRUNCATEs — and
// leaves the rows written once where the log has them (RunBytes::kLog).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/txn/pending_fold.h"
#include "engine/txn/spill.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette {
namespace {

using storage::EncodedBatch;
using txn::PendingLog;
using txn::SortedRun;

constexpr int64_t kNow = 1'700'000'000;

storage::ColumnData simple(storage::ColumnId id, storage::Cell cell) {
  storage::ColumnData data;
  data.id = id;
  data.cell = std::move(cell);
  return data;
}

// A random log of writes to a few rows of `table` (columns v text, n counter-like int cells,
// st set<int>, s static int): kinds, timestamps, TTLs and entry kinds mixed, some rows written
// once and some many times, with a TRUNCATE now and then when `truncates`.
PendingLog random_log(const std::shared_ptr<const schema::TableDef>& table, uint32_t seed,
                      bool truncates) {
  std::mt19937 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
  const schema::ColumnDef& v = *table->find_column("v");
  const schema::ColumnDef& st = *table->find_column("st");
  const schema::ColumnDef& s = *table->find_column("s");
  PendingLog log;
  log.tables.push_back(table);
  const int rows = 3 + pick(40);
  for (int i = 0; i < 400; ++i) {
    const int p = pick(4), c = pick(rows);
    const std::string partition = "p" + std::to_string(p);
    const int64_t token = p * 1000 - 1500;
    const std::string prefix = storage::partition_prefix(token, partition);
    PendingLog::Entry entry;
    entry.statement = static_cast<uint64_t>(i);
    if (truncates && pick(150) == 0) {
      entry.kind = PendingLog::Kind::kTruncate;
      entry.offset = log.batch.byte_size();
      log.truncates.push_back(log.entries.size());
      log.entries.push_back(entry);
      continue;
    }
    const int64_t ts = pick(3) == 0 ? 1000 + pick(50) : storage::kAutoTimestamp;
    std::string value;
    storage::EntryKind kind = storage::EntryKind::kRow;
    std::string clustering = std::string(1, '\0') + std::string(1, static_cast<char>(c));
    switch (pick(7)) {
      case 0: {  // a partition deletion or a range tombstone
        storage::PartitionHeader header;
        if (pick(2) == 0) {
          header.deletion = {ts, kNow};
        } else {
          header.range_tombstones.push_back({std::string(1, '\0'), clustering, {ts, kNow}});
        }
        storage::encode_header(header, &value);
        kind = storage::EntryKind::kPartitionHeader;
        clustering.clear();
        break;
      }
      case 1: {  // the static row
        storage::Row row;
        row.columns.push_back(
            simple(s.id, storage::Cell::live(ts, std::string(4, static_cast<char>(i)))));
        storage::encode_row(row, &value);
        kind = storage::EntryKind::kStaticRow;
        clustering.clear();
        break;
      }
      case 2: {  // a row deletion
        storage::Row row;
        row.deletion = {ts, kNow};
        storage::encode_row(row, &value);
        entry.kind = PendingLog::Kind::kDeleteRow;
        break;
      }
      case 3: {  // set elements added, or the set replaced
        storage::Row row;
        storage::ColumnData data;
        data.id = st.id;
        data.complex = true;
        if (pick(2) == 0) data.complex_deletion = {ts - 1, kNow};
        data.cells.push_back(storage::Cell::live(ts, "", std::string(4, static_cast<char>(i))));
        row.columns.push_back(std::move(data));
        storage::encode_row(row, &value);
        break;
      }
      default: {  // an INSERT (row marker, maybe a TTL) or an UPDATE of v
        storage::Row row;
        const int64_t ttl = pick(4) == 0 ? 100 : 0;
        if (pick(2) == 0) row.liveness = storage::LivenessInfo::written(ts, ttl, kNow);
        row.columns.push_back(
            simple(v.id, pick(5) == 0 ? storage::Cell::tombstone(ts, kNow)
                         : ttl > 0 ? storage::Cell::expiring(ts, ttl, kNow, "v" + std::to_string(i))
                                   : storage::Cell::live(ts, "v" + std::to_string(i))));
        storage::encode_row(row, &value);
        break;
      }
    }
    entry.is_static = kind == storage::EntryKind::kStaticRow;
    entry.is_header = kind == storage::EntryKind::kPartitionHeader;
    entry.offset = log.batch.add_row(table->table_id, partition, kind, clustering, value).value();
    log.entries.push_back(entry);
  }
  return log;
}

// What PendingFold gives the log (the rows its TRUNCATEs leave), sorted by key.
std::vector<std::tuple<std::string, std::string, bool>> expected_fold(const PendingLog& log) {
  txn::PendingFold fold(&log, kNow);
  const std::vector<size_t> first_kept = log.first_kept(log.entries.size());
  for (size_t i = 0; i < log.entries.size(); ++i) {
    if (log.counts(i, first_kept)) REQUIRE(fold.add(i).is_ok());
  }
  EncodedBatch out;
  fold.emit(&out);
  std::vector<std::tuple<std::string, std::string, bool>> rows;
  size_t offset = 0;
  for (size_t row = 0; row < fold.rows(); ++row) {
    const EncodedBatch::Entry e = out.entry_at(offset, &offset);
    rows.emplace_back(std::string(e.key), std::string(e.value), fold.replaces(row));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::vector<std::tuple<std::string, std::string, bool>> run_rows(const SortedRun& run) {
  std::vector<std::tuple<std::string, std::string, bool>> rows;
  for (const SortedRun::Item& item : run.items) {
    rows.emplace_back(std::string(item.key), std::string(item.value), item.replaces);
  }
  return rows;
}

bool inside(std::string_view bytes, std::string_view of) {
  return bytes.data() >= of.data() && bytes.data() + bytes.size() <= of.data() + of.size();
}

}  // namespace

TEST_CASE("fold_sorted: each row as PendingFold folds the whole log") {
  test::CqlFixture f;
  f.ok("CREATE TABLE t (k text, c blob, v text, st set<int>, s int static, PRIMARY KEY (k, c))");
  const auto table = f.session().catalog().current().value()->find_table("ks", "t");
  REQUIRE(table != nullptr);
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    const PendingLog log = random_log(table, seed, seed % 3 == 0);
    const auto want = expected_fold(log);
    for (txn::RunBytes bytes : {txn::RunBytes::kLog, txn::RunBytes::kOwn}) {
      SortedRun run;
      REQUIRE(txn::fold_sorted(log, kNow, &run, bytes).is_ok());
      CHECK(run_rows(run) == want);
      size_t in_log = 0;
      for (const SortedRun::Item& item : run.items) {
        const bool log_bytes = inside(item.key, log.batch.body());
        CHECK(log_bytes == inside(item.value, log.batch.body()));
        CHECK(log_bytes != inside(item.key, run.folded.body()));
        in_log += log_bytes ? 1 : 0;
      }
      if (bytes == txn::RunBytes::kOwn) CHECK(in_log == 0);
      if (bytes == txn::RunBytes::kLog)
        CHECK(in_log + run.folded.entry_count() == run.items.size());
    }
  }
}

TEST_CASE("fold_sorted: a bulk load's rows are not copied, a range of the log folds alone") {
  test::CqlFixture f;
  f.ok("CREATE TABLE t (k text, c blob, v text, st set<int>, s int static, PRIMARY KEY (k, c))");
  const auto table = f.session().catalog().current().value()->find_table("ks", "t");
  PendingLog log;
  log.tables.push_back(table);
  for (int i = 0; i < 1000; ++i) {
    storage::Row row;
    row.liveness = storage::LivenessInfo::written(storage::kAutoTimestamp, 0, kNow);
    std::string value;
    storage::encode_row(row, &value);
    PendingLog::Entry entry;
    entry.statement = static_cast<uint64_t>(i);
    // Ten partitions, each one's rows arriving in descending clustering order.
    const int descending = 2000 - i;
    const std::string clustering = {static_cast<char>(descending >> 8),
                                    static_cast<char>(descending & 0xff)};
    entry.offset = log.batch
                       .add_row(table->table_id, "p" + std::to_string(i % 10),
                                storage::EntryKind::kRow, clustering, value)
                       .value();
    log.entries.push_back(entry);
  }
  SortedRun run;
  REQUIRE(txn::fold_sorted(log, 100, 900, kNow, &run, txn::RunBytes::kLog).is_ok());
  REQUIRE(run.items.size() == 800);
  CHECK(run.folded.entry_count() == 0);
  for (size_t i = 1; i < run.items.size(); ++i) {
    CAPTURE(i);
    CHECK(run.items[i - 1].key < run.items[i].key);
    CHECK(inside(run.items[i].key, log.batch.body()));
  }
}

}  // namespace cassette
