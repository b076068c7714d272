#include "engine/storage/commit_log.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/unit/temp_dir.h"

using namespace cassette;
using namespace cassette::storage;

namespace doctest {
template <>
struct StringMaker<LogPosition> {
  static String convert(const LogPosition& p) {
    return fmt::format("{{{}, {}}}", p.segment, p.offset).c_str();
  }
};
}  // namespace doctest

namespace {

using cassette::test::TempDir;

std::string segment_path(const TempDir& dir, uint64_t n) {
  return dir.path() + "/" + commit_log_segment_name(n);
}

struct Record {
  LogPosition start, end;
  std::string payload;
};

Status read_all(const std::string& dir, LogPosition from, std::vector<Record>* out,
                LogPosition* valid_end) {
  out->clear();
  return read_commit_log(
      dir, from,
      [&](LogPosition start, LogPosition end, std::string_view payload) {
        out->push_back({start, end, std::string(payload)});
        return Status::ok();
      },
      valid_end);
}

// Appends the payloads to a log opened at `at`; returns the end of each record.
std::vector<LogPosition> append_all(const std::string& dir,
                                    const std::vector<std::string>& payloads,
                                    SyncMode mode = SyncMode::kOff,
                                    uint64_t segment_bytes = 1 << 20, LogPosition at = {}) {
  auto writer = CommitLogWriter::open(dir, at, mode, segment_bytes);
  REQUIRE_MESSAGE(writer.is_ok(), writer.status().message());
  std::vector<LogPosition> ends;
  for (const std::string& p : payloads) {
    Result<LogPosition> end = (*writer)->append(p);
    REQUIRE(end.is_ok());
    ends.push_back(*end);
  }
  return ends;
}

void flip_byte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = static_cast<char>(f.get());
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x40));
}

std::string payload_of(size_t size, char seed) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>(seed + i * 7);
  return s;
}

// Three records of 10, 20 and 30 bytes: at offsets 16, 34 and 62 of segment 1, ending at 100.
const std::vector<std::string> kThree = {payload_of(10, 'a'), payload_of(20, 'b'),
                                         payload_of(30, 'c')};

}  // namespace

TEST_CASE("commit log records read back exactly, with their positions") {
  TempDir dir;
  std::vector<std::string> payloads;
  for (size_t size : {0, 1, 7, 100, 5000, 70000, 3}) payloads.push_back(payload_of(size, 'x'));
  std::vector<LogPosition> ends = append_all(dir.path(), payloads);
  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
  REQUIRE(got.size() == payloads.size());
  LogPosition expect{1, 16};
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].start == expect);
    expect.offset += 8 + payloads[i].size();
    CHECK(got[i].end == expect);
    CHECK(ends[i] == expect);
    CHECK(got[i].payload == payloads[i]);
  }
  CHECK(valid_end == expect);
  CHECK(std::filesystem::file_size(segment_path(dir, 1)) == expect.offset);
}

TEST_CASE("commit log reads from a middle position") {
  TempDir dir;
  std::vector<LogPosition> ends = append_all(dir.path(), kThree);
  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(dir.path(), ends[0], &got, &valid_end).is_ok());
  REQUIRE(got.size() == 2);
  CHECK(got[0].start == LogPosition{1, 34});
  CHECK(got[0].payload == kThree[1]);
  CHECK(got[1].payload == kThree[2]);
  CHECK(valid_end == LogPosition{1, 100});

  REQUIRE(read_all(dir.path(), ends[2], &got, &valid_end).is_ok());  // at the end: nothing
  CHECK(got.empty());
  CHECK(valid_end == LogPosition{1, 100});
}

TEST_CASE("an empty log reads as nothing and the writer starts segment 1") {
  TempDir dir;
  std::string log = dir.path() + "/log";
  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(log, {0, 0}, &got, &valid_end).is_ok());
  CHECK(got.empty());
  CHECK(valid_end == LogPosition{1, 16});
  {
    auto writer = CommitLogWriter::open(log, {0, 0}, SyncMode::kFull, 1 << 20);
    REQUIRE(writer.is_ok());
    CHECK((*writer)->end() == LogPosition{1, 16});
  }
  CHECK(*list_commit_log_segments(log) == std::vector<uint64_t>{1});
  CHECK(std::filesystem::file_size(dir.path() + "/log/000000000001.log") == 16);
  // Once segments exist, {0, 0} is not a place to append.
  auto again = CommitLogWriter::open(log, {0, 0}, SyncMode::kFull, 1 << 20);
  CHECK(again.status().is_invalid_argument());
}

TEST_CASE("commit log rolls segments and reads across them") {
  TempDir dir;
  // 50-byte payloads make 58-byte records: 16 + 3 * 58 = 190 < 200, so a segment takes four.
  std::vector<std::string> payloads;
  for (int i = 0; i < 10; ++i) payloads.push_back(payload_of(50, static_cast<char>('a' + i)));
  std::vector<LogPosition> ends = append_all(dir.path(), payloads, SyncMode::kOff, 200);
  CHECK(*list_commit_log_segments(dir.path()) == std::vector<uint64_t>{1, 2, 3});
  CHECK(ends[3] == LogPosition{1, 248});
  CHECK(ends[4] == LogPosition{2, 74});
  CHECK(ends[9] == LogPosition{3, 132});

  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
  REQUIRE(got.size() == 10);
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].payload == payloads[i]);
    CHECK(got[i].end == ends[i]);
    if (i > 0) CHECK(got[i - 1].start < got[i].start);
  }
  CHECK(got[4].start == LogPosition{2, 16});
  CHECK(valid_end == ends[9]);

  REQUIRE(read_all(dir.path(), ends[3], &got, &valid_end).is_ok());  // the end of segment 1
  REQUIRE(got.size() == 6);
  CHECK(got[0].start == LogPosition{2, 16});
}

TEST_CASE("a torn tail ends the log and the next writer cuts it") {
  for (uint64_t cut : {62, 63, 65, 69, 70, 85, 99}) {
    CAPTURE(cut);
    TempDir dir;
    append_all(dir.path(), kThree);
    std::filesystem::resize_file(segment_path(dir, 1), cut);

    std::vector<Record> got;
    LogPosition valid_end;
    REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
    REQUIRE(got.size() == 2);
    CHECK(got[1].payload == kThree[1]);
    CHECK(valid_end == LogPosition{1, 62});

    std::vector<LogPosition> ends =
        append_all(dir.path(), {"new"}, SyncMode::kFull, 1 << 20, valid_end);
    CHECK(ends[0] == LogPosition{1, 73});
    REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
    REQUIRE(got.size() == 3);
    CHECK(got[0].payload == kThree[0]);
    CHECK(got[1].payload == kThree[1]);
    CHECK(got[2].payload == "new");
    CHECK(valid_end == LogPosition{1, 73});
  }
}

TEST_CASE("a bad record followed by a good one is corruption naming file and offset") {
  for (uint64_t flip : {45, 34, 38, 40}) {  // payload, checksum, length (low, high byte)
    CAPTURE(flip);
    TempDir dir;
    append_all(dir.path(), kThree);
    flip_byte(segment_path(dir, 1), flip);
    std::vector<Record> got;
    LogPosition valid_end;
    Status s = read_all(dir.path(), {0, 0}, &got, &valid_end);
    CHECK(s.is_corruption());
    CHECK(s.message() ==
          fmt::format("commit log {}: corrupt record at offset 34", segment_path(dir, 1)));
    CHECK(got.size() == 1);
  }
}

// A damaged last record looks exactly like a torn write, so it is treated as one: the log ends
// before it and the next writer cuts it off.
TEST_CASE("a bad last record in the last segment is a torn tail") {
  TempDir dir;
  append_all(dir.path(), kThree);
  flip_byte(segment_path(dir, 1), 80);
  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
  CHECK(got.size() == 2);
  CHECK(valid_end == LogPosition{1, 62});
}

TEST_CASE("a bad record in a segment before the last is corruption") {
  TempDir dir;
  std::vector<std::string> payloads(6, payload_of(50, 'p'));
  append_all(dir.path(), payloads, SyncMode::kOff, 200);  // segment 1 holds four records
  flip_byte(segment_path(dir, 1), 240);                   // inside the fourth, its last
  std::vector<Record> got;
  LogPosition valid_end;
  Status s = read_all(dir.path(), {0, 0}, &got, &valid_end);
  CHECK(s.is_corruption());
  CHECK(s.message() ==
        fmt::format("commit log {}: corrupt record at offset 190", segment_path(dir, 1)));
}

TEST_CASE("a bad segment header is corruption naming the file") {
  TempDir dir;
  append_all(dir.path(), kThree);
  flip_byte(segment_path(dir, 1), 2);
  std::vector<Record> got;
  LogPosition valid_end;
  Status s = read_all(dir.path(), {0, 0}, &got, &valid_end);
  CHECK(s.is_corruption());
  CHECK(s.message().find(segment_path(dir, 1)) != std::string::npos);
  auto writer = CommitLogWriter::open(dir.path(), {1, 100}, SyncMode::kOff, 1 << 20);
  CHECK(writer.status().is_corruption());
}

TEST_CASE("a last segment shorter than its header is an unfinished roll") {
  TempDir dir;
  append_all(dir.path(), kThree);
  { std::ofstream(segment_path(dir, 2), std::ios::binary) << "CSTL"; }
  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
  CHECK(got.size() == 3);
  CHECK(valid_end == LogPosition{1, 100});

  append_all(dir.path(), {"after"}, SyncMode::kFull, 1 << 20, valid_end);
  CHECK(*list_commit_log_segments(dir.path()) == std::vector<uint64_t>{1});
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
  CHECK(got.size() == 4);
  CHECK(valid_end == LogPosition{1, 113});
}

TEST_CASE("flushed segments are removed and reading from them is NotFound") {
  TempDir dir;
  std::vector<std::string> payloads(10, payload_of(50, 'r'));
  std::vector<LogPosition> ends = append_all(dir.path(), payloads, SyncMode::kOff, 200);
  REQUIRE(remove_commit_log_segments_before(dir.path(), ends[5]).is_ok());  // inside segment 2
  CHECK(*list_commit_log_segments(dir.path()) == std::vector<uint64_t>{2, 3});

  std::vector<Record> got;
  LogPosition valid_end;
  Status s = read_all(dir.path(), {1, 16}, &got, &valid_end);
  CHECK(s.is_not_found());
  CHECK(s.message().find(segment_path(dir, 1)) != std::string::npos);

  REQUIRE(read_all(dir.path(), ends[5], &got, &valid_end).is_ok());
  CHECK(got.size() == 4);
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());  // from the first left
  CHECK(got.size() == 6);
  CHECK(got[0].start == LogPosition{2, 16});
  CHECK(valid_end == ends[9]);
}

TEST_CASE("the writer removes segments after the position it opens at") {
  TempDir dir;
  std::vector<std::string> payloads(10, payload_of(50, 's'));
  std::vector<LogPosition> ends = append_all(dir.path(), payloads, SyncMode::kOff, 200);
  std::vector<LogPosition> more = append_all(dir.path(), {"x"}, SyncMode::kOff, 200, ends[5]);
  CHECK(more[0] == LogPosition{2, ends[5].offset + 9});
  CHECK(*list_commit_log_segments(dir.path()) == std::vector<uint64_t>{1, 2});
  std::vector<Record> got;
  LogPosition valid_end;
  REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
  CHECK(got.size() == 7);
  CHECK(got.back().payload == "x");
}

TEST_CASE("every sync mode round-trips") {
  for (SyncMode mode : {SyncMode::kFull, SyncMode::kNormal, SyncMode::kOff}) {
    CAPTURE(static_cast<int>(mode));
    TempDir dir;
    {
      auto writer = CommitLogWriter::open(dir.path(), {}, mode, 300);
      REQUIRE(writer.is_ok());
      for (int i = 0; i < 50; ++i) REQUIRE((*writer)->append(payload_of(40, 'm')).is_ok());
      REQUIRE((*writer)->sync().is_ok());
      REQUIRE((*writer)->roll_segment().is_ok());
      CHECK((*writer)->end().offset == 16);
      for (int i = 0; i < 50; ++i) REQUIRE((*writer)->append(payload_of(40, 'n')).is_ok());
    }  // the destructor syncs what kNormal's thread has not
    std::vector<Record> got;
    LogPosition valid_end;
    REQUIRE(read_all(dir.path(), {0, 0}, &got, &valid_end).is_ok());
    REQUIRE(got.size() == 100);
    CHECK(got[49].payload == payload_of(40, 'm'));
    CHECK(got[50].payload == payload_of(40, 'n'));
  }
}

TEST_CASE("segment listing ignores other files and a callback error stops reading") {
  TempDir dir;
  append_all(dir.path(), kThree);
  for (const char* name : {"notes.txt", "1.log", "000000000002.log.tmp", "00000000000x.log"}) {
    std::ofstream(dir.path() + "/" + name) << "x";
  }
  CHECK(*list_commit_log_segments(dir.path()) == std::vector<uint64_t>{1});
  CHECK(commit_log_segment_name(42) == "000000000042.log");

  int calls = 0;
  LogPosition valid_end;
  Status s = read_commit_log(
      dir.path(), {0, 0},
      [&](LogPosition, LogPosition, std::string_view) {
        return ++calls == 2 ? Status::internal("stop") : Status::ok();
      },
      &valid_end);
  CHECK(s.message() == "stop");
  CHECK(calls == 2);
}
