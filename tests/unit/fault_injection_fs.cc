#include "tests/unit/fault_injection_fs.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace cassette::test {

using cassette::Result;
using cassette::Status;

namespace {

std::string parent_of(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

std::string name_of(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

std::string join_relative(const std::string& dir, const std::string& name) {
  return dir.empty() ? name : dir + "/" + name;
}

// The whole file, read with the real file system (not through the mount).
Result<std::string> read_real_file(const std::string& path) {
  file::PosixFileSystem posix;
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, posix.open(path, O_RDONLY, 0));
  CASSETTE_ASSIGN_OR_RETURN(uint64_t size, posix.size(fd.get(), path));
  std::string bytes(size, '\0');
  CASSETTE_RETURN_IF_ERROR(posix.read(fd.get(), 0, size, bytes.data(), path));
  return bytes;
}

}  // namespace

// ---- DurableState ----------------------------------------------------------------------------

Status DurableState::restore(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::io_error("cannot create " + dir + ": " + ec.message());
  return restore(0, dir);
}

Status DurableState::restore(uint64_t node, const std::string& path) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return Status::ok();
  for (const auto& [name, child] : it->second.entries) {
    std::string child_path = path + "/" + name;
    const Node& c = nodes_.at(child);
    file::PosixFileSystem posix;
    if (c.directory) {
      CASSETTE_RETURN_IF_ERROR(posix.create_directory(child_path));
      CASSETTE_RETURN_IF_ERROR(restore(child, child_path));
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd,
                              posix.open(child_path, O_WRONLY | O_CREAT | O_TRUNC, 0666));
    if (c.contents != nullptr) {
      CASSETTE_RETURN_IF_ERROR(posix.write(fd.get(), *c.contents, child_path));
    }
  }
  return Status::ok();
}

std::vector<std::string> DurableState::describe() const {
  std::vector<std::string> out;
  describe(0, "", &out);
  std::sort(out.begin(), out.end());
  return out;
}

void DurableState::describe(uint64_t node, const std::string& prefix,
                            std::vector<std::string>* out) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  for (const auto& [name, child] : it->second.entries) {
    const Node& c = nodes_.at(child);
    std::string path = join_relative(prefix, name);
    if (c.directory) {
      out->push_back(path + "/");
      describe(child, path, out);
    } else {
      out->push_back(fmt::format("{} ({} bytes)", path, c.contents ? c.contents->size() : 0));
    }
  }
}

std::optional<uint64_t> DurableState::find_file(const std::string& rel) const {
  uint64_t node = 0;
  for (const auto& part : std::filesystem::path(rel)) {
    const auto& entries = nodes_.at(node).entries;
    auto it = entries.find(part.string());
    if (it == entries.end()) return std::nullopt;
    node = it->second;
  }
  if (node == 0 || nodes_.at(node).directory) return std::nullopt;
  return node;
}

std::optional<std::string_view> DurableState::contents(const std::string& rel) const {
  std::optional<uint64_t> node = find_file(rel);
  if (!node) return std::nullopt;
  const auto& bytes = nodes_.at(*node).contents;
  return bytes == nullptr ? std::string_view() : std::string_view(*bytes);
}

bool DurableState::set_contents(const std::string& rel, std::string bytes) {
  std::optional<uint64_t> node = find_file(rel);
  if (!node) return false;
  nodes_.at(*node).contents = std::make_shared<const std::string>(std::move(bytes));
  return true;
}

// ---- FaultInjectionFileSystem ----------------------------------------------------------------

FaultInjectionFileSystem::FaultInjectionFileSystem(const std::string& root)
    : mount_(std::make_unique<file::FileSystemMount>(root, this)) {
  std::lock_guard guard(mutex_);
  scan();
}

FaultInjectionFileSystem::~FaultInjectionFileSystem() {
  mount_.reset();
}

void FaultInjectionFileSystem::inject(Fault fault) {
  std::lock_guard guard(mutex_);
  faults_.push_back({std::move(fault), 0});
}

void FaultInjectionFileSystem::clear_faults() {
  std::lock_guard guard(mutex_);
  faults_.clear();
}

uint64_t FaultInjectionFileSystem::injected() const {
  std::lock_guard guard(mutex_);
  return injected_;
}

uint64_t FaultInjectionFileSystem::calls(FileOp op) const {
  std::lock_guard guard(mutex_);
  auto it = calls_.find(op);
  return it == calls_.end() ? 0 : it->second;
}

uint64_t FaultInjectionFileSystem::mutations() const {
  std::lock_guard guard(mutex_);
  return mutations_;
}

void FaultInjectionFileSystem::set_observer(Observer observer) {
  std::lock_guard guard(mutex_);
  observer_ = std::move(observer);
}

DurableState FaultInjectionFileSystem::durable_state() const {
  std::lock_guard guard(mutex_);
  return durable_;
}

Status FaultInjectionFileSystem::simulate_power_loss() {
  return simulate_power_loss(durable_state());
}

Status FaultInjectionFileSystem::simulate_power_loss(const DurableState& state) {
  std::lock_guard guard(mutex_);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root(), ec)) {
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) return Status::io_error("cannot clear " + entry.path().string() + ": " + ec.message());
  }
  CASSETTE_RETURN_IF_ERROR(state.restore(root()));
  scan();
  return Status::ok();
}

std::vector<std::string> FaultInjectionFileSystem::untracked_files() const {
  std::lock_guard guard(mutex_);
  std::vector<std::string> out;
  std::set<std::string> on_disk;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root(), ec)) {
    std::string rel = std::filesystem::relative(entry.path(), root()).string();
    on_disk.insert(rel);
    if (!names_.contains(rel)) out.push_back("made elsewhere: " + rel);
  }
  for (const auto& [rel, node] : names_) {
    if (!rel.empty() && !on_disk.contains(rel)) out.push_back("missing: " + rel);
  }
  return out;
}

std::string FaultInjectionFileSystem::relative(const std::string& path) const {
  const std::string& r = root();
  return path.size() <= r.size() ? "" : path.substr(r.size() + 1);
}

std::optional<Fault> FaultInjectionFileSystem::fault_for(FileOp op, const std::string& path,
                                                         const std::string& to) {
  ++calls_[op];
  std::string rel = relative(path);
  std::string rel_to = to.empty() ? "" : relative(to);
  for (ActiveFault& active : faults_) {
    const Fault& f = active.fault;
    if (f.op != op) continue;
    bool match = ::fnmatch(f.pattern.c_str(), rel.c_str(), 0) == 0 ||
                 (!to.empty() && ::fnmatch(f.pattern.c_str(), rel_to.c_str(), 0) == 0);
    if (!match) continue;
    uint64_t n = active.seen++;
    if (n < f.skip || n - f.skip >= f.times) continue;
    ++injected_;
    return f;
  }
  return std::nullopt;
}

Status FaultInjectionFileSystem::fail(const Fault& fault, FileOp op, const std::string& path,
                                      const std::string& to) {
  return file::io_error(op, fault.error, path, to);
}

uint64_t FaultInjectionFileSystem::add_node(const std::string& rel, bool directory) {
  uint64_t node = next_node_++;
  names_[rel] = node;
  durable_.nodes_[node].directory = directory;
  return node;
}

void FaultInjectionFileSystem::lose_unsynced(uint64_t node, const std::string& bytes) {
  const auto& durable = durable_.nodes_[node].contents;
  std::string_view synced = durable == nullptr ? std::string_view() : std::string_view(*durable);
  size_t same = 0;
  while (same < bytes.size() && same < synced.size() && bytes[same] == synced[same]) ++same;
  if (same < bytes.size()) lost_[node].emplace_back(same, bytes.size());
}

void FaultInjectionFileSystem::written(int fd, uint64_t offset, uint64_t n) {
  auto node = descriptors_.find(fd);
  if (node == descriptors_.end()) return;
  auto lost = lost_.find(node->second);
  if (lost == lost_.end()) return;
  Ranges kept;
  for (auto [from, to] : lost->second) {
    if (from < offset) kept.emplace_back(from, std::min(to, offset));
    if (to > offset + n) kept.emplace_back(std::max(from, offset + n), to);
  }
  lost->second = std::move(kept);
}

std::string FaultInjectionFileSystem::without_lost(uint64_t node, std::string bytes) const {
  auto lost = lost_.find(node);
  if (lost == lost_.end()) return bytes;
  const auto& durable = durable_.nodes_.at(node).contents;
  for (auto [from, to] : lost->second) {
    for (uint64_t i = from; i < to && i < bytes.size(); ++i) {
      bytes[i] = durable != nullptr && i < durable->size() ? (*durable)[i] : '\0';
    }
  }
  return bytes;
}

void FaultInjectionFileSystem::mutated(FileOp op, const std::string& path) {
  ++mutations_;
  if (observer_) observer_({mutations_, op, path}, durable_);
}

void FaultInjectionFileSystem::scan() {
  names_.clear();
  descriptors_.clear();
  lost_.clear();
  durable_.nodes_.clear();
  next_node_ = 1;
  names_[""] = 0;
  durable_.nodes_[0].directory = true;
  scan("", 0);
}

void FaultInjectionFileSystem::scan(const std::string& rel, uint64_t node) {
  std::string dir = rel.empty() ? root() : root() + "/" + rel;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    std::string child_rel = join_relative(rel, name);
    bool directory = entry.is_directory(ec);
    uint64_t child = add_node(child_rel, directory);
    durable_.nodes_[node].entries[name] = child;
    if (directory) {
      scan(child_rel, child);
    } else if (Result<std::string> bytes = read_real_file(entry.path().string()); bytes.is_ok()) {
      durable_.nodes_[child].contents = std::make_shared<const std::string>(std::move(*bytes));
    }
  }
}

// ---- the operations ----------------------------------------------------------------------------

Result<file::UniqueFd> FaultInjectionFileSystem::open(const std::string& path, int flags,
                                                      int mode) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kOpen, path)) return fail(*f, FileOp::kOpen, path);
  std::string rel = relative(path);
  bool known = names_.contains(rel);
  bool existed = known || base_.exists(path);
  CASSETTE_ASSIGN_OR_RETURN(file::UniqueFd fd, base_.open(path, flags, mode));
  uint64_t node = known ? names_.at(rel) : add_node(rel, false);
  descriptors_[fd.get()] = node;
  if (!existed || (flags & O_TRUNC) != 0) mutated(FileOp::kOpen, path);
  return fd;
}

Status FaultInjectionFileSystem::write(int fd, std::string_view data, const std::string& path) {
  std::lock_guard guard(mutex_);
  // Where the bytes go: the end of the file with O_APPEND, else the descriptor's position.
  off_t offset =
      (::fcntl(fd, F_GETFL) & O_APPEND) != 0 ? ::lseek(fd, 0, SEEK_END) : ::lseek(fd, 0, SEEK_CUR);
  if (auto f = fault_for(FileOp::kWrite, path)) {
    if (f->short_write && data.size() > 1) {
      Status partial = base_.write(fd, data.substr(0, data.size() / 2), path);
      if (partial.is_ok()) {
        if (offset >= 0) written(fd, offset, data.size() / 2);
        mutated(FileOp::kWrite, path);
      }
    }
    return fail(*f, FileOp::kWrite, path);
  }
  CASSETTE_RETURN_IF_ERROR(base_.write(fd, data, path));
  if (offset >= 0) written(fd, offset, data.size());
  mutated(FileOp::kWrite, path);
  return Status::ok();
}

Status FaultInjectionFileSystem::read(int fd, uint64_t offset, size_t n, char* out,
                                      const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kRead, path)) return fail(*f, FileOp::kRead, path);
  return base_.read(fd, offset, n, out, path);
}

Status FaultInjectionFileSystem::sync(int fd, const std::string& path) {
  std::lock_guard guard(mutex_);
  auto it = descriptors_.find(fd);
  if (it == descriptors_.end()) {
    return Status::internal("fault injection: sync of a descriptor it did not open: " + path);
  }
  // Through /proc: the file behind the descriptor, whatever its name is now and whatever mode
  // the descriptor was opened in.
  CASSETTE_ASSIGN_OR_RETURN(std::string bytes,
                            read_real_file("/proc/self/fd/" + std::to_string(fd)));
  if (auto f = fault_for(FileOp::kSync, path)) {
    lose_unsynced(it->second, bytes);
    return fail(*f, FileOp::kSync, path);
  }
  bytes = without_lost(it->second, std::move(bytes));
  durable_.nodes_[it->second].contents = std::make_shared<const std::string>(std::move(bytes));
  mutated(FileOp::kSync, path);
  return Status::ok();
}

Status FaultInjectionFileSystem::truncate(int fd, uint64_t size, const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kTruncate, path)) return fail(*f, FileOp::kTruncate, path);
  CASSETTE_RETURN_IF_ERROR(base_.truncate(fd, size, path));
  if (auto node = descriptors_.find(fd); node != descriptors_.end()) {
    auto lost = lost_.find(node->second);
    if (lost != lost_.end()) {
      std::erase_if(lost->second, [&](const auto& range) { return range.first >= size; });
      for (auto& range : lost->second) range.second = std::min<uint64_t>(range.second, size);
    }
  }
  mutated(FileOp::kTruncate, path);
  return Status::ok();
}

Result<uint64_t> FaultInjectionFileSystem::size(int fd, const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kSize, path)) return fail(*f, FileOp::kSize, path);
  return base_.size(fd, path);
}

Result<uint64_t> FaultInjectionFileSystem::size(const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kSize, path)) return fail(*f, FileOp::kSize, path);
  return base_.size(path);
}

Result<void*> FaultInjectionFileSystem::map_shared(int fd, size_t size, const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kMap, path)) return fail(*f, FileOp::kMap, path);
  return base_.map_shared(fd, size, path);
}

bool FaultInjectionFileSystem::exists(const std::string& path) {
  return base_.exists(path);
}

cassette::Result<file::FileIdentity> FaultInjectionFileSystem::identity(const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kStat, path)) return fail(*f, FileOp::kStat, path);
  return base_.identity(path);
}

bool FaultInjectionFileSystem::writable(const std::string& path) {
  return base_.writable(path);
}

Status FaultInjectionFileSystem::create_directory(const std::string& dir) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kCreateDirectory, dir)) {
    return fail(*f, FileOp::kCreateDirectory, dir);
  }
  std::string rel = relative(dir);
  bool existed = names_.contains(rel) || base_.exists(dir);
  CASSETTE_RETURN_IF_ERROR(base_.create_directory(dir));
  if (!existed) {
    add_node(rel, true);
    mutated(FileOp::kCreateDirectory, dir);
  }
  return Status::ok();
}

Status FaultInjectionFileSystem::sync_directory(const std::string& dir) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kSyncDirectory, dir)) {
    return fail(*f, FileOp::kSyncDirectory, dir);
  }
  std::string rel = relative(dir);
  auto it = names_.find(rel);
  if (it == names_.end()) return file::io_error(FileOp::kSyncDirectory, ENOENT, dir);
  std::map<std::string, uint64_t> entries;
  for (const auto& [name, node] : names_) {
    if (!name.empty() && name != rel && parent_of(name) == rel) entries[name_of(name)] = node;
  }
  durable_.nodes_[it->second].entries = std::move(entries);
  mutated(FileOp::kSyncDirectory, dir);
  return Status::ok();
}

Result<std::vector<std::string>> FaultInjectionFileSystem::list_directory(const std::string& dir) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kListDirectory, dir)) {
    return fail(*f, FileOp::kListDirectory, dir);
  }
  return base_.list_directory(dir);
}

Status FaultInjectionFileSystem::remove(const std::string& path) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kRemove, path)) return fail(*f, FileOp::kRemove, path);
  CASSETTE_RETURN_IF_ERROR(base_.remove(path));
  if (names_.erase(relative(path)) > 0) mutated(FileOp::kRemove, path);
  return Status::ok();
}

Status FaultInjectionFileSystem::rename(const std::string& from, const std::string& to) {
  std::lock_guard guard(mutex_);
  if (auto f = fault_for(FileOp::kRename, from, to)) return fail(*f, FileOp::kRename, from, to);
  CASSETTE_RETURN_IF_ERROR(base_.rename(from, to));
  std::string rel_from = relative(from);
  auto it = names_.find(rel_from);
  uint64_t node = it != names_.end() ? it->second : add_node(rel_from, false);
  names_.erase(rel_from);
  names_[relative(to)] = node;
  mutated(FileOp::kRename, from);
  return Status::ok();
}

}  // namespace cassette::test
