// Partition key serialization: how the values of a table's partition key columns become the one
// byte string that identifies a partition (and that murmur3_token() hashes).
//
// Exactly Cassandra's format, so tokens match:
//  - a single-column key is that column's serialized value, as is;
//  - a compound key is Cassandra's CompositeType layout, per component
//      [u16 big-endian length][the component's serialized bytes][0x00 end-of-component byte].
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/status.h"

namespace cassette::types {

// The largest component a compound key can hold (the u16 length).
inline constexpr size_t kMaxPartitionKeyComponentSize = 0xFFFF;

// Serializes the partition key columns' values (in declaration order).
// REQUIRES: components is not empty; when it has more than one element, each is at most
// kMaxPartitionKeyComponentSize bytes (callers validate key sizes before building keys, as
// Cassandra does).
std::string serialize_partition_key(std::span<const std::string> components);
// serialize_partition_key into *out (its content replaced, its capacity reused): a writer of
// many rows builds each key without an allocation.
void serialize_partition_key(std::span<const std::string> components, std::string* out);

// The inverse of serialize_partition_key for a key of component_count columns. Returns
// InvalidArgument when component_count is 0, Corruption when the bytes are not a well-formed
// compound key of exactly component_count components.
Result<std::vector<std::string>> split_partition_key(std::string_view key, size_t component_count);

}  // namespace cassette::types
