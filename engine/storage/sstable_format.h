// What an SSTable knows about itself (its statistics block), shared by the writer, the reader and
// the store's file-skipping and purge decisions.
#pragma once

#include <cstdint>
#include <string>

namespace cassette::storage {

struct SSTableStats {
  uint64_t entries = 0;
  uint64_t partitions = 0;
  uint64_t rows = 0;     // clustering rows
  uint64_t headers = 0;  // partition headers (partition deletions, range tombstones)
  uint64_t static_rows = 0;
  uint64_t tombstones = 0;  // cell, row, range and partition tombstones
  int64_t min_timestamp = INT64_MAX;
  int64_t max_timestamp = INT64_MIN;
  int64_t max_local_deletion_time = INT64_MIN;  // latest expiry or deletion time (seconds)
  std::string first_key;                        // smallest entry key
  std::string last_key;                         // largest entry key
  uint64_t data_bytes = 0;                      // uncompressed bytes of all entries
};

}  // namespace cassette::storage
