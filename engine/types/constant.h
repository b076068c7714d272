// The lexical kinds of a CQL constant, as the parser sees them before it knows the target type.
// Mirrors Cassandra's Constant.Type; error messages name them ("Invalid STRING constant (foo)
// for "k" of type int").
#pragma once

#include <cstdint>
#include <string_view>

namespace cassette::types {

enum class ConstantKind : uint8_t {
  kString,    // 'text' or $$text$$ (quotes removed, '' unescaped)
  kInteger,   // 42, -7
  kFloat,     // 1.5, -2e10, NaN, Infinity, -Infinity
  kBoolean,   // true / false (any case)
  kUuid,      // 123e4567-e89b-12d3-a456-426614174000 (unquoted)
  kHex,       // 0xcafe
  kDuration,  // 1h30m, P1DT2H, ...
};

inline std::string_view constant_kind_name(ConstantKind k) {
  switch (k) {
    case ConstantKind::kString:
      return "STRING";
    case ConstantKind::kInteger:
      return "INTEGER";
    case ConstantKind::kFloat:
      return "FLOAT";
    case ConstantKind::kBoolean:
      return "BOOLEAN";
    case ConstantKind::kUuid:
      return "UUID";
    case ConstantKind::kHex:
      return "HEX";
    case ConstantKind::kDuration:
      return "DURATION";
  }
  return "UNKNOWN";
}

}  // namespace cassette::types
