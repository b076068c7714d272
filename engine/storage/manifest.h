// The manifest: which SSTables are live and how much of the commit log they cover. Replaced
// atomically (write temp, fsync, rename, fsync directory) by the holder of the store lock; a
// process that reads a new generation reloads its SSTable set, and if the covered log position
// moved it rebuilds its memtable by replaying the log from there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/storage/commit_log.h"
#include "engine/storage/memtable.h"
#include "engine/util/status.h"

namespace cassette::storage {

struct ManifestFile {
  TableId table = 0;
  uint64_t file_id = 0;  // unique within the store; the file is data/<table>-<file_id>.sst
  uint64_t size = 0;
  friend bool operator==(const ManifestFile&, const ManifestFile&) = default;
};

struct Manifest {
  uint64_t generation = 0;     // bumped by every change
  LogPosition covered{};       // every commit-log record before this is in the SSTables
  int64_t last_timestamp = 0;  // the last timestamp the store assigned, as of `covered`
  std::vector<ManifestFile> files;
};

std::string encode_manifest(const Manifest& manifest);
// `path` is only for error messages.
Result<Manifest> decode_manifest(std::string_view bytes, const std::string& path);

Result<Manifest> read_manifest(const std::string& path);
Status write_manifest(const std::string& path, const Manifest& manifest);

std::string sstable_file_name(TableId table, uint64_t file_id);

}  // namespace cassette::storage
