// Byte-comparable key encoding: turns clustering values into byte strings whose memcmp order is
// Cassandra's comparator order, so every storage layer (memtable, SSTable index, merge) compares
// clustering keys with memcmp and never needs the schema.
//
// A value comes in as its Cassandra serialized bytes (the native protocol's form) plus its
// CqlType; its encoding ("component") decodes back to exactly those bytes. Properties:
//  - Order: memcmp(encode(a), encode(b)) has the sign of Cassandra's compare(a, b) whenever that
//    is non-zero. Values Cassandra calls equal but whose bytes differ (1.0 vs 1.00, NaNs with
//    different payloads, a non-minimal varint, a tuple with trailing nulls vs without) get
//    distinct encodings that sort next to each other, in a fixed tie-break order.
//  - Prefix-free: no component is a proper prefix of another, so components concatenate into
//    compound keys whose memcmp order is the lexicographic order of the columns, and the
//    encoding of the first k columns is a byte prefix of every key starting with those values.
//  - Descending columns are the bitwise inversion of the ascending component (order-reversing
//    because components are prefix-free).
//  - Empty values (zero serialized bytes) sort before every other value of the type (in ASC).
//  - No component starts with 0x00 or 0xFF (ASC or DESC), so callers can build bounds: an
//    encoded prefix P sorts before every key that extends it, and prefix_end_bound(P) = P + 0xFF
//    sorts after every key that extends it (and before every key that is greater than P without
//    extending it).
//
// The byte layout of each type is written down in byte_comparable.cc. Null is not a valid key
// value (callers reject it first); nulls may only appear inside tuples and UDTs. Duration values
// cannot be keys (Cassandra forbids them) and are rejected with InvalidArgument.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/types/cql_type.h"
#include "engine/util/status.h"

namespace cassette::types {

// Appends the encoding of one value to *out. Returns InvalidArgument when `serialized` is not a
// well-formed value of `type` (wrong fixed width, truncated collection, a timeuuid that is not
// version 1, an inet that is not 4 or 16 bytes, a boolean other than 0x00 or 0x01, a varint or
// decimal over 64 KiB, ...) or the type
// cannot be a key (duration); *out is then left unspecified. Text and ascii contents are not
// validated here (they are compared as bytes); that is the value layer's job.
Status encode_key_component(const CqlType& type, std::string_view serialized, bool descending,
                            std::string* out);

// Consumes one component from the front of *in and returns the serialized value it encodes.
// Returns Corruption when *in does not start with a well-formed component of `type`. Only the
// encoder's exact output is well-formed, so re-encoding the value gives back the bytes consumed.
Result<std::string> decode_key_component(const CqlType& type, bool descending,
                                         std::string_view* in);
// The same into *value (replaced; its buffer reused): for readers decoding a key per row.
Status decode_key_component(const CqlType& type, bool descending, std::string_view* in,
                            std::string* value);

// The fast path of decode_key_component for the commonest clustering components, integers,
// timestamps, dates and times: a header byte and a fixed number of bytes. A reader decoding a
// clustering key per row keeps a FixedKeyComponent per column (of(): width 0 for the other types)
// and tries decode_fixed_key_component() first; false (nothing consumed) for anything but a
// plain value (an empty value, a malformed one), which decode_key_component() then decodes.
struct FixedKeyComponent {
  uint8_t width = 0;       // 0: a type the fast path does not decode
  bool flip_sign = false;  // signed: the encoding flips the sign bit
  static constexpr FixedKeyComponent of(TypeKind kind) {
    switch (kind) {
      case TypeKind::kTinyint:
        return {1, true};
      case TypeKind::kSmallint:
        return {2, true};
      case TypeKind::kInt:
        return {4, true};
      case TypeKind::kBigint:
      case TypeKind::kCounter:
      case TypeKind::kTimestamp:
        return {8, true};
      case TypeKind::kDate:
        return {4, false};
      case TypeKind::kTime:
        return {8, false};
      default:
        return {};
    }
  }
};
inline constexpr uint8_t kKeyValueHeader = 0x04;  // a component holding a (non-empty) value
namespace internal {
template <size_t kWidth>
inline void decode_fixed(const char* bytes, bool flip_sign, bool descending, std::string* value) {
  // Word-wide: the bytes unmasked at once, then the sign bit flipped back.
  using Word =
      std::conditional_t<kWidth == 8, uint64_t,
                         std::conditional_t<kWidth == 4, uint32_t,
                                            std::conditional_t<kWidth == 2, uint16_t, uint8_t>>>;
  Word word;
  std::memcpy(&word, bytes, kWidth);
  if (descending) word = static_cast<Word>(~word);
  char out[kWidth];
  std::memcpy(out, &word, kWidth);
  if (flip_sign) out[0] = static_cast<char>(out[0] ^ 0x80);
  if (value->size() == kWidth) {
    std::memcpy(value->data(), out, kWidth);  // a reused buffer: no general assign()
  } else {
    value->assign(out, kWidth);
  }
}
}  // namespace internal
inline bool decode_fixed_key_component(FixedKeyComponent f, bool descending, std::string_view* in,
                                       std::string* value) {
  const uint8_t mask = descending ? 0xFF : 0x00;
  const size_t width = f.width;
  if (width == 0 || in->size() <= width ||
      (static_cast<uint8_t>((*in)[0]) ^ mask) != kKeyValueHeader) {
    return false;
  }
  const char* bytes = in->data() + 1;
  switch (width) {  // a constant width each: a load and a store, no length-driven copy
    case 8:
      internal::decode_fixed<8>(bytes, f.flip_sign, descending, value);
      break;
    case 4:
      internal::decode_fixed<4>(bytes, f.flip_sign, descending, value);
      break;
    case 2:
      internal::decode_fixed<2>(bytes, f.flip_sign, descending, value);
      break;
    case 1:
      internal::decode_fixed<1>(bytes, f.flip_sign, descending, value);
      break;
    default:
      return false;
  }
  in->remove_prefix(1 + width);
  return true;
}

// Appends the clustering key for `values` to *out: the components of values[i] with types[i]
// and descending[i], concatenated. values may be shorter than types (a clustering prefix).
// REQUIRES: types.size() == descending.size() and values.size() <= types.size().
Status encode_clustering(std::span<const CqlType> types, std::span<const bool> descending,
                         std::span<const std::string> values, std::string* out);

// The inverse of encode_clustering: the serialized values of the (possibly prefix) key `encoded`.
// Returns Corruption when the bytes are not a sequence of at most types.size() components.
Result<std::vector<std::string>> decode_clustering(std::span<const CqlType> types,
                                                   std::span<const bool> descending,
                                                   std::string_view encoded);

// A key that sorts after every key that starts with `encoded_prefix` (and before every larger
// key that does not): the prefix followed by 0xFF. The prefix itself is the matching lower bound.
std::string prefix_end_bound(std::string_view encoded_prefix);

// The length of the leading bytes of `encoded` (one ascending key component of `type`) that order
// the value: everything but the tie-break that keeps decimal and varint encodings unique (1.0 and
// 1.00, or a varint with redundant sign bytes, compare equal as Cassandra compares them but encode
// apart). Equal values share these bytes, and they are a prefix of no other value's encoding, so
// [P, prefix_end_bound(P)) holds exactly the values equal to one. Other types: the whole size.
Result<size_t> value_order_length(const CqlType& type, std::string_view encoded);

}  // namespace cassette::types
