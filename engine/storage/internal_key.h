// The layout of entry keys inside memtables and SSTables. One table's data is a sorted map from
// these keys (compared with memcmp) to encoded entries (row_codec.h):
//
//   partition prefix = [token: 8 bytes, big-endian, sign bit flipped]
//                      [partition key bytes, 0x00 escaped as 0x00 0xFF][0x00 0x01]
//   entry key        = partition prefix + kind byte [+ clustering bytes for rows]
//
// so entries sort by (token, partition key bytes) — Cassandra's partition order — then the
// partition header (partition deletion and range tombstones), the static row, and the rows in
// clustering order (clustering bytes are byte-comparable, see engine/types/byte_comparable.h).
// The escaping keeps partition keys prefix-free: "ab" sorts before "ab\0" and before "ab\x01".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cassette::storage {

enum class EntryKind : uint8_t {
  kPartitionHeader = 0x10,
  kStaticRow = 0x20,
  kRow = 0x30,
};

// Token bytes: memcmp order of the 8 bytes equals signed order of tokens.
void append_token(std::string* out, int64_t token);
int64_t decode_token(std::string_view eight_bytes);

void append_partition_prefix(std::string* out, int64_t token, std::string_view partition_key);
std::string partition_prefix(int64_t token, std::string_view partition_key);
std::string entry_key(std::string_view partition_prefix, EntryKind kind,
                      std::string_view clustering = {});

struct DecodedKey {
  int64_t token = 0;
  std::string partition_key;  // unescaped
  size_t prefix_length = 0;   // bytes of the partition prefix
  EntryKind kind = EntryKind::kRow;
  std::string_view clustering;  // points into the decoded key
};

// Length of the partition prefix at the start of `key`, or 0 when the key is malformed.
size_t partition_prefix_length(std::string_view key);
// Returns false when the key is malformed.
bool decode_entry_key(std::string_view key, DecodedKey* out);
// The token and (unescaped) partition key of a whole partition prefix; false when malformed.
bool decode_partition_prefix(std::string_view prefix, int64_t* token, std::string* partition_key);

// The smallest key of any partition whose token is >= `token`.
std::string token_lower_bound(int64_t token);

}  // namespace cassette::storage
