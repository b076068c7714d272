// A file system for tests that fails chosen calls and simulates power loss (after LevelDB's
// FaultInjectionTestEnv, RocksDB's FaultInjectionTestFS and SQLite's test VFS). It mounts itself
// over one directory (file_system.h), so every file operation the engine makes under it comes
// here; it does the real operation on the real files, and keeps beside them a model of what a
// power loss would leave:
//
//   - a file's contents as of its last sync (empty if it was never synced), and
//   - a directory's entries (files created, renamed or removed) as of its last sync; an entry
//     never synced into its directory is lost, whatever was synced into the file.
//
// A failed sync of a file loses what it was to write, as Linux does after a writeback error
// ("fsyncgate"): the bytes written since the last sync are marked clean without reaching the
// disk, so a later sync that succeeds does not write them either. Until they are written again,
// the surviving file holds there what it held before (zeros past its old end).
//
// Syncs are recorded in the model, not performed: the model is the disk that matters to a test,
// and tests stay fast. Files are told apart by identity, not name, so a rename carries a file's
// synced contents with it, as on a real file system.
//
//   FaultInjectionFileSystem fs(dir.path());
//   fs.inject({.op = FileOp::kWrite, .pattern = "*/data/tmp-*", .error = ENOSPC, .skip = 1});
//   ... a flush fails on its second SSTable write ...
//   fs.clear_faults();
//   store.reset();                       // close everything first
//   fs.simulate_power_loss();            // the files become what a power loss leaves
#pragma once

#include <cerrno>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/file_system.h"

namespace cassette::test {

using file::FileOp;

// Which calls fail, and how. A call matches when its kind is `op` and the path it names,
// relative to the mounted directory, matches the fnmatch(3) pattern (`*` also matches `/`; a
// rename matches by either name).
struct Fault {
  FileOp op = FileOp::kWrite;
  std::string pattern = "*";
  int error = EIO;              // the errno the call fails with: ENOSPC, EIO, EMFILE, ...
  uint64_t skip = 0;            // matching calls let through before the first failure
  uint64_t times = UINT64_MAX;  // matching calls that fail after those (then it is spent)
  bool short_write = false;     // kWrite: half the bytes reach the file, then the error
};

// What a power loss would leave of the files under the mounted directory.
class DurableState {
 public:
  // Writes the tree into `dir` (created if missing; it should be empty).
  cassette::Status restore(const std::string& dir) const;
  // "path (N bytes)" per surviving file, sorted: for failure messages.
  std::vector<std::string> describe() const;

  // The contents of the file at `rel` (relative to the mounted directory) that survive, or
  // nullopt when its name does not (it was never synced into its directory).
  std::optional<std::string_view> contents(const std::string& rel) const;
  // Makes the surviving file at `rel` hold `bytes`: a power loss that wrote back part of what
  // was not synced (a torn write). False, changing nothing, when its name does not survive.
  bool set_contents(const std::string& rel, std::string bytes);

 private:
  friend class FaultInjectionFileSystem;
  struct Node {
    bool directory = false;
    std::map<std::string, uint64_t> entries;      // a directory's synced entries: name -> node
    std::shared_ptr<const std::string> contents;  // a file's synced contents (null: empty)
  };
  void describe(uint64_t node, const std::string& prefix, std::vector<std::string>* out) const;
  std::optional<uint64_t> find_file(const std::string& rel) const;
  cassette::Status restore(uint64_t node, const std::string& path) const;
  std::map<uint64_t, Node> nodes_;  // node 0 is the mounted directory
};

class FaultInjectionFileSystem final : public file::FileSystem {
 public:
  // Mounts over `root` (an existing directory), taking what is there now as durable.
  explicit FaultInjectionFileSystem(const std::string& root);
  ~FaultInjectionFileSystem() override;

  const std::string& root() const { return mount_->root(); }

  void inject(Fault fault);
  void clear_faults();
  uint64_t injected() const;  // calls failed so far
  uint64_t calls(FileOp op) const;
  // Calls that changed the files: writes, truncations, syncs, creations, renames, removals.
  uint64_t mutations() const;
  // Called, with the state a power loss would leave, after each of those calls (from whichever
  // thread made it). It must not call back into the file system.
  struct Mutation {
    uint64_t number = 0;  // 1 for the first
    FileOp op;
    std::string path;
  };
  using Observer = std::function<void(const Mutation& mutation, const DurableState& state)>;
  void set_observer(Observer observer);

  DurableState durable_state() const;
  // Turns the files under the root into durable_state() and starts over from them.
  // REQUIRES: nothing under the root is open (close every store first).
  cassette::Status simulate_power_loss();
  // The same with a state taken earlier: a power loss at that moment. Take it before closing a
  // store, whose last syncs (on close) a power loss would not have let happen.
  cassette::Status simulate_power_loss(const DurableState& state);
  // Files under the root that were not made through this file system (each one is an operation
  // that bypassed the seam), and files it knows of that are not there.
  std::vector<std::string> untracked_files() const;

  // file::FileSystem
  cassette::Result<file::UniqueFd> open(const std::string& path, int flags, int mode) override;
  cassette::Status write(int fd, std::string_view data, const std::string& path) override;
  cassette::Status read(int fd, uint64_t offset, size_t n, char* out,
                        const std::string& path) override;
  cassette::Status sync(int fd, const std::string& path) override;
  cassette::Status truncate(int fd, uint64_t size, const std::string& path) override;
  cassette::Result<uint64_t> size(int fd, const std::string& path) override;
  cassette::Result<uint64_t> size(const std::string& path) override;
  cassette::Result<void*> map_shared(int fd, size_t size, const std::string& path) override;
  bool exists(const std::string& path) override;
  cassette::Status create_directory(const std::string& dir) override;
  cassette::Status sync_directory(const std::string& dir) override;
  cassette::Result<std::vector<std::string>> list_directory(const std::string& dir) override;
  cassette::Status remove(const std::string& path) override;
  cassette::Status rename(const std::string& from, const std::string& to) override;
  cassette::Result<file::FileIdentity> identity(const std::string& path) override;
  bool writable(const std::string& path) override;

 private:
  struct ActiveFault {
    Fault fault;
    uint64_t seen = 0;  // matching calls so far
  };
  std::string relative(const std::string& path) const;
  // The injected failure for this call, if one fires (counts the call either way).
  std::optional<Fault> fault_for(FileOp op, const std::string& path, const std::string& to = {});
  cassette::Status fail(const Fault& fault, FileOp op, const std::string& path,
                        const std::string& to = {});
  uint64_t add_node(const std::string& rel, bool directory);
  // The byte ranges [first, second) of a file a failed sync lost (see the top of this file).
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  void lose_unsynced(uint64_t node, const std::string& bytes);
  void written(int fd, uint64_t offset, uint64_t n);  // those bytes are no longer lost
  std::string without_lost(uint64_t node, std::string bytes) const;
  void mutated(FileOp op, const std::string& path);
  void scan();  // takes the files under the root as they are now as durable
  void scan(const std::string& rel, uint64_t node);

  file::PosixFileSystem base_;  // does the real work
  std::unique_ptr<file::FileSystemMount> mount_;
  mutable std::mutex mutex_;
  std::vector<ActiveFault> faults_;
  std::map<FileOp, uint64_t> calls_;
  uint64_t injected_ = 0;
  uint64_t mutations_ = 0;
  Observer observer_;
  uint64_t next_node_ = 1;
  std::map<std::string, uint64_t> names_;  // what exists now: relative path -> node ("" = root)
  std::map<int, uint64_t> descriptors_;    // open descriptor -> node
  std::map<uint64_t, Ranges> lost_;        // node -> what failed syncs lost
  DurableState durable_;
};

}  // namespace cassette::test
