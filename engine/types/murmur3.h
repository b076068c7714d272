// Murmur3 partition tokens, bit-for-bit as Cassandra's Murmur3Partitioner computes them, so a
// partition lands at the same token (and an unrestricted SELECT returns partitions in the same
// order) as in Cassandra.
//
// The token of a partition is the first 64-bit half of MurmurHash3_x64_128 (seed 0) over the
// serialized partition key (see partition_key.h), read as a signed long, with Long.MIN_VALUE
// (reserved by Cassandra as the minimum token) mapped to Long.MAX_VALUE.
//
// Cassandra's Java port differs from the reference C++ MurmurHash3 in one place: in the tail
// (the last len % 16 bytes) it reads bytes as signed Java `byte`s, so a byte >= 0x80 is
// sign-extended to 64 bits before it is shifted into place. We replicate that quirk.
#pragma once

#include <cstdint>
#include <string_view>

namespace cassette::types {

// The Murmur3Partitioner token of a serialized partition key. Never returns INT64_MIN.
int64_t murmur3_token(std::string_view partition_key_bytes);

}  // namespace cassette::types
