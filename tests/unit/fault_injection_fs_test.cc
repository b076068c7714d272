// The fault-injecting file system itself: what a simulated power loss keeps and drops, and
// which calls an injected fault fails. The store's fault and crash tests rely on both.
#include "tests/unit/fault_injection_fs.h"

#include <doctest/doctest.h>
#include <fcntl.h>

#include "engine/util/file.h"
#include "tests/unit/temp_dir.h"

using namespace cassette;
using namespace cassette::test;

namespace {

void write_file(const std::string& path, std::string_view data, bool sync) {
  auto fd = file::open_file(path, O_WRONLY | O_CREAT | O_APPEND);
  REQUIRE_MESSAGE(fd.is_ok(), fd.status().message());
  REQUIRE(file::write_all(fd->get(), data, path).is_ok());
  if (sync) REQUIRE(file::fsync_file(fd->get(), path).is_ok());
}

std::string contents(const std::string& path) {
  auto bytes = file::read_whole_file(path);
  return bytes.is_ok() ? *bytes : "<" + bytes.status().message() + ">";
}

}  // namespace

TEST_CASE("fault fs: a power loss keeps synced contents and synced names, nothing else") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  std::string d = dir.file("d");
  REQUIRE(file::create_directories(d).is_ok());
  REQUIRE(file::sync_directory(dir.path()).is_ok());
  write_file(d + "/a", "hello", true);
  write_file(d + "/a", " world", false);  // after the last sync of a
  REQUIRE(file::sync_directory(d).is_ok());
  write_file(d + "/b", "synced data, unsynced name", true);
  write_file(dir.file("unsynced-dir-entry"), "x", true);
  CHECK(contents(d + "/a") == "hello world");

  CHECK(fs.durable_state().describe() == std::vector<std::string>{"d/", "d/a (5 bytes)"});
  REQUIRE(fs.simulate_power_loss().is_ok());
  CHECK(contents(d + "/a") == "hello");
  CHECK_FALSE(file::exists(d + "/b"));
  CHECK_FALSE(file::exists(dir.file("unsynced-dir-entry")));
  CHECK(fs.untracked_files().empty());
}

TEST_CASE("fault fs: a torn write replaces what survives of a file whose name survives") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  write_file(dir.file("a"), "synced", true);
  REQUIRE(file::sync_directory(dir.path()).is_ok());
  write_file(dir.file("a"), " and not", false);
  write_file(dir.file("b"), "name never synced", true);
  DurableState state = fs.durable_state();
  CHECK(state.contents("a") == std::optional<std::string_view>("synced"));
  CHECK_FALSE(state.contents("b").has_value());
  CHECK_FALSE(state.contents("missing").has_value());
  CHECK(state.set_contents("a", "synced an"));  // half of the unsynced bytes reached the disk
  CHECK_FALSE(state.set_contents("b", "x"));
  CHECK(state.describe() == std::vector<std::string>{"a (9 bytes)"});
  REQUIRE(fs.simulate_power_loss(state).is_ok());
  CHECK(contents(dir.file("a")) == "synced an");
  CHECK_FALSE(file::exists(dir.file("b")));
}

TEST_CASE("fault fs: a directory created but not synced into its parent is lost with its files") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  std::string d = dir.file("new");
  REQUIRE(fs.create_directory(d).is_ok());  // mkdir, and no sync of the parent
  write_file(d + "/f", "data", true);
  REQUIRE(file::sync_directory(d).is_ok());
  REQUIRE(fs.simulate_power_loss().is_ok());
  CHECK_FALSE(file::exists(d));
}

TEST_CASE("fault fs: a rename is durable once its directory is synced; the file keeps its data") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  write_file(dir.file("old"), "old contents", true);
  REQUIRE(file::sync_directory(dir.path()).is_ok());

  write_file(dir.file("tmp"), "new contents", true);
  REQUIRE(file::rename_file(dir.file("tmp"), dir.file("old")).is_ok());
  DurableState before_sync = fs.durable_state();
  REQUIRE(file::sync_directory(dir.path()).is_ok());
  DurableState after_sync = fs.durable_state();

  TempDir lost, kept;
  REQUIRE(before_sync.restore(lost.path()).is_ok());
  REQUIRE(after_sync.restore(kept.path()).is_ok());
  CHECK(contents(lost.file("old")) == "old contents");
  CHECK_FALSE(file::exists(lost.file("tmp")));  // never synced into the directory
  CHECK(contents(kept.file("old")) == "new contents");
  CHECK_FALSE(file::exists(kept.file("tmp")));
}

TEST_CASE("fault fs: a removed file's data does not follow its name to a new file") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  write_file(dir.file("a"), "first", true);
  REQUIRE(file::sync_directory(dir.path()).is_ok());
  REQUIRE(file::remove_file(dir.file("a")).is_ok());
  write_file(dir.file("a"), "second", true);  // a new file under the old name
  REQUIRE(fs.simulate_power_loss().is_ok());
  CHECK(contents(dir.file("a")) == "first");  // the removal and the new name were never synced
}

TEST_CASE("fault fs: faults fail chosen calls by kind, name and count, with the real message") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  std::string log = dir.file("x.log");
  std::string other = dir.file("x.dat");
  fs.inject({.op = FileOp::kWrite, .pattern = "*.log", .error = ENOSPC, .skip = 1, .times = 1});
  auto fd = file::open_file(log, O_WRONLY | O_CREAT | O_APPEND).value();
  CHECK(file::write_all(fd.get(), "one", log).is_ok());
  Status s = file::write_all(fd.get(), "two", log);
  CHECK(s.code() == StatusCode::kIOError);
  CHECK(s.message() == "cannot write " + log + ": No space left on device");
  CHECK(file::write_all(fd.get(), "three", log).is_ok());  // spent after one failure
  write_file(other, "unaffected", false);
  CHECK(fs.injected() == 1);
  CHECK(contents(log) == "onethree");

  fs.inject({.op = FileOp::kWrite, .pattern = "*.log", .error = EIO, .short_write = true});
  CHECK(file::write_all(fd.get(), "abcdef", log).message() ==
        "cannot write " + log + ": Input/output error");
  CHECK(contents(log) == "onethreeabc");  // half reached the file
  fs.clear_faults();

  fs.inject({.op = FileOp::kOpen, .error = ENOENT});
  CHECK(file::open_file(log, O_RDONLY).status().is_not_found());
  fs.clear_faults();
  fs.inject({.op = FileOp::kRename, .pattern = "*.dat", .error = EIO});
  CHECK(file::rename_file(log, other).message() ==
        "cannot rename " + log + " to " + other + ": Input/output error");
  CHECK(fs.calls(FileOp::kWrite) == 5);
}

TEST_CASE("fault fs: the observer sees the durable state after every change") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  std::vector<std::vector<std::string>> states;
  std::vector<FileOp> ops;
  fs.set_observer([&](const FaultInjectionFileSystem::Mutation& m, const DurableState& state) {
    CHECK(m.number == states.size() + 1);
    ops.push_back(m.op);
    states.push_back(state.describe());
  });
  write_file(dir.file("f"), "abc", true);  // create, write, sync
  REQUIRE(file::sync_directory(dir.path()).is_ok());
  fs.set_observer(nullptr);
  using V = std::vector<std::string>;
  CHECK(states == std::vector<V>{V{}, V{}, V{}, V{"f (3 bytes)"}});
  CHECK(ops ==
        std::vector<FileOp>{FileOp::kOpen, FileOp::kWrite, FileOp::kSync, FileOp::kSyncDirectory});
}

TEST_CASE("file: create_directories makes every directory it creates survive a power loss") {
  TempDir dir;
  FaultInjectionFileSystem fs(dir.path());
  REQUIRE(file::create_directories(dir.file("a/b/c")).is_ok());
  REQUIRE(fs.simulate_power_loss().is_ok());
  CHECK(file::exists(dir.file("a/b/c")));
}
