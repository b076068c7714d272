// SSTableWriter: writes one immutable sorted file of (entry key, entry value) pairs for one
// table — the output of a flush or a compaction. Layout in FORMAT.md: zstd-compressed data blocks
// with checksums; a two-level block index keyed by entry keys (its top level, the index summary,
// is held in memory by readers), which serves as the partition index and, because entry keys
// carry clustering keys, as the row index inside wide partitions; a bloom filter over partition
// prefixes; statistics; a versioned footer.
//
// The file is written under the name given (callers pass a temporary name), fsynced by finish(),
// and renamed into place by the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/index_component.h"
#include "engine/storage/sstable_format.h"
#include "engine/util/file.h"
#include "engine/util/status.h"

namespace cassette::storage {

struct SSTableWriterOptions {
  int compression_level = 3;         // zstd level; 0 = blocks stored uncompressed
  size_t block_size = 8 << 10;       // uncompressed bytes per data block (a target)
  int bloom_bits_per_key = 10;       // ~1% false positives
  uint64_t expected_partitions = 0;  // sizing hint for the bloom filter; 0 = grow as needed
  // Index components built from the same entries and written next to the file by finish()
  // (index_component.h); components() names them.
  std::vector<IndexComponentFactory> components;
};

class SSTableWriter {
 public:
  static Result<std::unique_ptr<SSTableWriter>> create(const std::string& path,
                                                       const SSTableWriterOptions& options);
  ~SSTableWriter();  // an unfinished file is closed and removed

  // Adds one entry. REQUIRES: keys strictly increasing (memcmp), each a well-formed entry key
  // (internal_key.h). Decodes the value to keep the statistics.
  Status add(std::string_view key, std::string_view value);
  // Writes the index, bloom filter, statistics and footer and fsyncs. Returns the file size.
  Result<uint64_t> finish();
  uint64_t entries() const;
  // The index components finish() wrote (path + "." + name each).
  const std::vector<std::string>& components() const;
  // Bytes written so far (compressed): lets compaction split output files.
  uint64_t file_size() const;

 private:
  struct Impl;
  explicit SSTableWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cassette::storage
