// Fuzz target: reading and replaying a commit-log segment. The input's first byte chooses how
// the rest becomes segment 1 of a store's log:
//   even: the rest is the segment file, as is (the framing: header, lengths, checksums, torn
//         tails and corruption);
//   odd:  the rest is a run of record payloads (each a 2-byte length and its bytes), framed
//         with a valid header and checksums, so the decoding of what is inside is reached.
//
// Beyond "no crash", it checks:
//  - read_commit_log returns records back to back from offset 16, and *valid_end is just past
//    the last one; a failure is Corruption naming the segment file;
//  - reading again from any record's start gives the same records from there on;
//  - a store opened on the log either fails with an error naming a file, or recovers: it reads
//    every table it replayed without crashing, cuts the log at valid_end (a torn tail goes), and
//    a new transaction then lands right after the old records, all of them still readable.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/commit_log.h"
#include "engine/storage/commit_record.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::storage;

struct Record {
  LogPosition start, end;
  std::string payload;
};

std::string framed_segment(fuzz::InputReader& in) {
  std::string segment = "CSTLOG01";
  coding::put_fixed64(&segment, 1);
  while (!in.rest().empty()) {
    std::string_view payload = in.piece();
    std::string length;
    coding::put_fixed32(&length, static_cast<uint32_t>(payload.size()));
    std::string checked = length + std::string(payload);
    coding::put_fixed32(&segment, crc32c::mask(crc32c::value(checked)));
    segment += checked;
  }
  return segment;
}

Status read_records(const std::string& log_dir, LogPosition from, std::vector<Record>* records,
                    LogPosition* valid_end) {
  return read_commit_log(
      log_dir, from,
      [records](LogPosition start, LogPosition end, std::string_view payload) {
        records->push_back({start, end, std::string(payload)});
        return Status::ok();
      },
      valid_end);
}

void check_records(const std::vector<Record>& records, LogPosition valid_end) {
  LogPosition expected{1, 16};
  for (const Record& r : records) {
    FUZZ_CHECK(r.start == expected, "records are not back to back");
    FUZZ_CHECK(r.end.segment == 1 && r.end.offset == r.start.offset + 8 + r.payload.size(),
               "a record's end is not its start + 8 + its length");
    expected = r.end;
  }
  FUZZ_CHECK(records.empty() || valid_end == expected, "valid_end is not the last record's end");
}

// The tables the records write to (the ones a recovered store has rows in).
std::vector<TableId> replayed_tables(const std::vector<Record>& records) {
  std::vector<TableId> tables;
  for (const Record& r : records) {
    DecodedTransaction tx;
    if (!decode_transaction(r.payload, &tx)) continue;
    for (const auto& entry : tx.entries) {
      if (std::find(tables.begin(), tables.end(), entry.table) == tables.end()) {
        tables.push_back(entry.table);
      }
    }
  }
  return tables;
}

void read_every_row(Store& store, const std::vector<TableId>& tables) {
  auto snapshot = store.snapshot();
  FUZZ_CHECK(snapshot.is_ok(), snapshot.status().message());
  for (TableId table : tables) {
    auto cursor = store.read(**snapshot, table, Store::range_spec(TokenRange{}));
    size_t rows = 0;
    while (cursor->next()) ++rows;
    const Status& s = cursor->status();
    FUZZ_CHECK(s.is_ok() || s.is_corruption(), s.message());
  }
}

// The store made once: the files a store directory has besides its log.
const std::string& template_store() {
  static const std::string path = [] {
    std::string dir = fuzz::scratch_path("template");
    StoreOptions options;
    options.background_threads = false;
    auto store = Store::open(dir, options);
    FUZZ_CHECK(store.is_ok(), store.status().message());
    return dir;
  }();
  return path;
}

void check_recovery(const std::string& segment, const std::vector<Record>& records,
                    const Status& read_status, LogPosition valid_end) {
  const std::string dir = fuzz::scratch_path("store");
  fuzz::copy_tree(template_store(), dir);
  const std::string log_dir = dir + "/log";
  const std::string segment_path = log_dir + "/" + commit_log_segment_name(1);
  fuzz::write_file(segment_path, segment);

  StoreOptions options;
  options.sync = SyncMode::kOff;
  options.background_threads = false;
  auto store = Store::open(dir, options);
  if (!store.is_ok()) {
    FUZZ_CHECK(store.status().message().find(dir) != std::string::npos,
               "a failed recovery does not name a file: " + store.status().message());
    return;
  }
  FUZZ_CHECK(read_status.is_ok(), "the store opened on a log read_commit_log calls corrupt");
  std::vector<TableId> tables = replayed_tables(records);
  read_every_row(**store, tables);

  MutationBuilder batch;
  ClusteringRow row;
  row.clustering = "\x01row";
  ColumnData column;
  column.id = 1;
  column.cell = Cell::live(kAutoTimestamp, "value");
  row.row.columns.push_back(column);
  batch.partition(1, "key").rows.push_back(row);
  auto applied = apply_mutations(**store, batch);
  // A prepared record with no decision is in doubt: a host without a resolver (this one) reads
  // without it and refuses every write (engine/storage/FORMAT.md, "Prepared transactions").
  const bool in_doubt = std::any_of(records.begin(), records.end(), [](const Record& r) {
    LogRecord decoded;
    return decode_log_record(r.payload, &decoded) &&
           (decoded.kind == RecordKind::kPrepared || decoded.kind == RecordKind::kPreparedFiles);
  });
  if (in_doubt && !applied.is_ok() &&
      applied.status().message().find("whose writer stopped before committing or aborting it") !=
          std::string::npos) {
    return;
  }
  FUZZ_CHECK(applied.is_ok(), applied.status().message());
  tables.push_back(1);
  read_every_row(**store, tables);

  std::vector<Record> after;
  LogPosition end;
  Status s = read_records(log_dir, {0, 0}, &after, &end);
  FUZZ_CHECK(s.is_ok(), "the log is corrupt after recovery and a write: " + s.message());
  FUZZ_CHECK(after.size() == records.size() + 1, "recovery lost or kept records");
  for (size_t i = 0; i < records.size(); ++i) {
    FUZZ_CHECK(after[i].payload == records[i].payload, "recovery changed a record");
  }
  FUZZ_CHECK(after.back().start == valid_end, "the new record is not at the old valid end");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const bool framed = in.byte() & 1;
  const std::string segment = framed ? framed_segment(in) : std::string(in.take_rest());

  const std::string log_dir = fuzz::scratch_path("log");
  fuzz::remove_tree(log_dir);
  std::filesystem::create_directories(log_dir);
  const std::string segment_path = log_dir + "/" + commit_log_segment_name(1);
  fuzz::write_file(segment_path, segment);

  std::vector<Record> records;
  LogPosition valid_end;
  Status s = read_records(log_dir, {0, 0}, &records, &valid_end);
  if (!s.is_ok()) {
    FUZZ_CHECK(s.is_corruption(), s.message());
    FUZZ_CHECK(s.message().find(segment_path) != std::string::npos, s.message());
  } else {
    check_records(records, valid_end);
    FUZZ_CHECK(valid_end.offset <= segment.size() || segment.size() < 16, "valid_end past the end");
    // From a record in the middle: the same records from there on.
    const size_t from = records.size() / 2;
    if (from < records.size()) {
      std::vector<Record> rest;
      LogPosition rest_end;
      Status again = read_records(log_dir, records[from].start, &rest, &rest_end);
      FUZZ_CHECK(again.is_ok() && rest.size() == records.size() - from && rest_end == valid_end,
                 "reading from a record's start gives other records");
    }
  }
  check_recovery(segment, records, s, valid_end);
  return 0;
}
