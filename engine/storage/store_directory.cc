#include "engine/storage/store_directory.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <vector>

namespace cassette::storage {
namespace {

std::string marker_contents() {
  return fmt::format("Cassette store\nformat {}\n", kStoreFormatVersion);
}

// Checks a CASSETTE file: "Cassette store\nformat <n>\n" with a format this version reads.
Status check_marker(const std::string& dir) {
  const std::string path = file::join(dir, kStoreMarkerName);
  CASSETTE_ASSIGN_OR_RETURN(std::string contents, file::read_whole_file(path));
  constexpr std::string_view kHeader = "Cassette store\nformat ";
  int format = 0;
  const char* digits = contents.data() + std::min(contents.size(), kHeader.size());
  auto [end, ec] = std::from_chars(digits, contents.data() + contents.size(), format);
  if (!contents.starts_with(kHeader) || ec != std::errc() || end == digits) {
    return Status::corruption(fmt::format("{} is not a Cassette store marker", path));
  }
  if (format > kStoreFormatVersion) {
    return Status::unsupported(
        fmt::format("store {} has format {}; this version of Cassette reads format {} and older",
                    dir, format, kStoreFormatVersion));
  }
  return Status::ok();
}

Status write_marker(const std::string& dir) {
  const std::string path = file::join(dir, kStoreMarkerName);
  Status s = file::write_file_atomically(path, marker_contents());
  // Another process making the same store at once may have renamed our temporary file first.
  if (!s.is_ok() && file::exists(path)) return check_marker(dir);
  return s;
}

// `path` absolute and normalized, without a trailing slash ("a/b/" names the directory b).
std::filesystem::path absolute_path(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

// Makes the directory of a new store: its parent must exist (a typo in a path should fail, not
// create a tree of directories).
Status create_store_directory(const std::string& path, const std::filesystem::path& absolute) {
  const std::string parent = absolute.parent_path().string();
  if (!file::exists(parent)) {
    return Status::not_found(
        fmt::format("cannot create store {}: directory {} does not exist", path, parent));
  }
  return file::create_directories(absolute.string());
}

bool is_legacy_store(const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return name == "MANIFEST" || name == "log" || name == "data";
  });
}

// Decides what the existing directory `dir` is, adding the marker where it belongs.
Status identify_store(const std::string& dir, bool create_if_missing, bool writable) {
  CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> names, file::list_directory(dir));
  if (std::find(names.begin(), names.end(), kStoreMarkerName) != names.end()) {
    return check_marker(dir);
  }
  if (is_legacy_store(names)) return writable ? write_marker(dir) : Status::ok();
  // A crash while the marker was being written leaves only its temporary file: still empty.
  std::erase(names, std::string(kStoreMarkerName) + ".tmp");
  if (!names.empty()) {
    return Status::invalid_argument(fmt::format(
        "{} is not a Cassette store (no {} file) and is not empty", dir, kStoreMarkerName));
  }
  if (!create_if_missing) return Status::not_found(fmt::format("store {} does not exist", dir));
  if (!writable) {
    return Status::io_error(
        fmt::format("cannot create store {}: the directory is not writable", dir));
  }
  return write_marker(dir);
}

}  // namespace

Result<StoreDirectory> open_store_directory(const std::string& path, bool create_if_missing) {
  const std::filesystem::path absolute = absolute_path(path);
  if (!file::exists(absolute.string())) {
    if (!create_if_missing) return Status::not_found(fmt::format("store {} does not exist", path));
    CASSETTE_RETURN_IF_ERROR(create_store_directory(path, absolute));
  }
  std::error_code ec;
  StoreDirectory dir;
  dir.path = std::filesystem::canonical(absolute, ec).string();
  if (ec) return Status::io_error(fmt::format("cannot resolve {}: {}", path, ec.message()));
  dir.writable = file::is_writable(dir.path);
  CASSETTE_RETURN_IF_ERROR(identify_store(dir.path, create_if_missing, dir.writable));
  CASSETTE_ASSIGN_OR_RETURN(dir.identity, file::file_identity(dir.path));
  return dir;
}

Status check_store_directory(const StoreDirectory& dir) {
  Result<file::FileIdentity> now = file::file_identity(dir.path);
  if (now.is_ok() && *now == dir.identity) return Status::ok();
  if (!now.is_ok() && !now.status().is_not_found()) return now.status();
  return Status::io_error(fmt::format(
      "store directory {} was removed (or replaced by another) while the store was open",
      dir.path));
}

Status read_only_store_error(const std::string& path) {
  return Status::io_error(fmt::format(
      "store {} is read-only (its directory is not writable): nothing was written", path));
}

}  // namespace cassette::storage
