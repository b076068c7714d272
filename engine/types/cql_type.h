// CqlType: the description of a CQL type (int, text, frozen<map<text, int>>, a UDT, ...).
// It says what a value is; the value code (values, literals, serialization, comparison and the
// byte-comparable key encoding) works from it. Values travel between layers in Cassandra's own
// serialized form (the native protocol's bytes for that type), so the storage engine stays
// ignorant of types and every layer agrees on one representation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cassette::types {

enum class TypeKind : uint8_t {
  kAscii,
  kBigint,
  kBlob,
  kBoolean,
  kCounter,
  kDate,
  kDecimal,
  kDouble,
  kDuration,
  kFloat,
  kInet,
  kInt,
  kSmallint,
  kText,  // also spelled varchar
  kTime,
  kTimestamp,
  kTimeuuid,
  kTinyint,
  kUuid,
  kVarint,
  kList,    // params: {element}
  kSet,     // params: {element}
  kMap,     // params: {key, value}
  kTuple,   // params: the components
  kUdt,     // params: the field types; field_names: their names
  kVector,  // params: {element}; dimension: the fixed element count (Cassandra 5.0)
};

struct CqlType {
  TypeKind kind = TypeKind::kBlob;
  std::vector<CqlType> params;           // element/key/value/component/field types
  bool frozen = false;                   // frozen<...> collections/UDTs are one cell
  std::string udt_keyspace;              // for kUdt
  std::string udt_name;                  // for kUdt
  std::vector<std::string> field_names;  // for kUdt, parallel to params
  int32_t dimension = 0;                 // for kVector, >= 1 once declared

  static CqlType simple(TypeKind k) { return CqlType{k, {}, false, {}, {}, {}, 0}; }
  static CqlType list(CqlType element, bool frozen = false) {
    return CqlType{TypeKind::kList, {std::move(element)}, frozen, {}, {}, {}, 0};
  }
  static CqlType set(CqlType element, bool frozen = false) {
    return CqlType{TypeKind::kSet, {std::move(element)}, frozen, {}, {}, {}, 0};
  }
  static CqlType map(CqlType key, CqlType value, bool frozen = false) {
    return CqlType{TypeKind::kMap, {std::move(key), std::move(value)}, frozen, {}, {}, {}, 0};
  }
  static CqlType tuple(std::vector<CqlType> components) {
    // tuples are always frozen in CQL
    return CqlType{TypeKind::kTuple, std::move(components), true, {}, {}, {}, 0};
  }
  // A vector is one cell, never frozen<>; its element is frozen as in Cassandra's VectorType.
  static CqlType vector(CqlType element, int32_t dimension) {
    return CqlType{TypeKind::kVector, {std::move(element)}, false, {}, {}, {}, dimension};
  }

  bool is_collection() const {
    return kind == TypeKind::kList || kind == TypeKind::kSet || kind == TypeKind::kMap;
  }
  // A multi-cell value: a non-frozen collection or UDT is stored as one cell per element.
  bool is_multi_cell() const { return (is_collection() || kind == TypeKind::kUdt) && !frozen; }
  bool is_counter() const { return kind == TypeKind::kCounter; }

  friend bool operator==(const CqlType&, const CqlType&) = default;
};

}  // namespace cassette::types
