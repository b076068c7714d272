// vector<element, n> values (Cassandra 5.0's VectorType): the serialized form and its checks.
//
// A vector has exactly n elements, none null, and no count in its bytes. When every value of the
// element type has the same length (VectorType's FixedLengthSerializer: float, int, bigint,
// double, boolean, timestamp, uuid, timeuuid, and vectors of those) the elements lie back to back;
// otherwise (VariableLengthSerializer) each is an unsigned vint length then its bytes. A float
// vector of dimension 3 is therefore 12 bytes of big-endian IEEE 754 singles.
#include <fmt/format.h>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

std::optional<size_t> vector_element_length(const CqlType& element) {
  switch (element.kind) {
    case TypeKind::kBoolean:
      return 1;
    case TypeKind::kInt:
    case TypeKind::kFloat:
      return 4;
    case TypeKind::kBigint:
    case TypeKind::kCounter:
    case TypeKind::kDouble:
    case TypeKind::kTimestamp:
      return 8;
    case TypeKind::kUuid:
    case TypeKind::kTimeuuid:
      return 16;
    case TypeKind::kVector: {
      std::optional<size_t> inner = vector_element_length(element.params.at(0));
      if (!inner) return std::nullopt;
      return *inner * static_cast<size_t>(element.dimension);
    }
    default:
      return std::nullopt;
  }
}

std::string serialize_vector(const CqlType& type, std::span<const std::string> elements) {
  const bool fixed = vector_element_length(type.params.at(0)).has_value();
  std::string out;
  for (const std::string& e : elements) {
    if (!fixed) internal::put_unsigned_vint(&out, e.size());
    out += e;
  }
  return out;
}

Result<std::vector<std::string>> deserialize_vector(const CqlType& type, std::string_view bytes) {
  if (bytes.empty()) return Status::invalid_argument("Invalid empty vector value");
  const CqlType& element = type.params.at(0);
  const std::optional<size_t> fixed = vector_element_length(element);
  auto not_enough = [&] {
    return Status::invalid_argument(
        fmt::format("Not enough bytes to read a {}", cql_type_name(type)));
  };
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(type.dimension));
  for (int32_t i = 0; i < type.dimension; ++i) {
    uint64_t length = 0;
    if (fixed) {
      length = *fixed;
    } else if (!internal::get_unsigned_vint(&bytes, &length)) {
      return not_enough();
    }
    if (bytes.size() < length) return not_enough();
    std::string_view value = bytes.substr(0, length);
    CASSETTE_RETURN_IF_ERROR(validate_value(element, value));
    out.emplace_back(value);
    bytes.remove_prefix(length);
  }
  if (!bytes.empty()) {
    return Status::invalid_argument(fmt::format("Unexpected {} extraneous bytes after {} value",
                                                bytes.size(), cql_type_name(type)));
  }
  return out;
}

Result<std::vector<float>> vector_floats(std::string_view bytes, int32_t dimension) {
  if (bytes.size() != static_cast<size_t>(dimension) * 4) {
    return Status::invalid_argument(fmt::format("A vector<float, {}> needs {} bytes, not {}",
                                                dimension, dimension * 4, bytes.size()));
  }
  std::vector<float> out(static_cast<size_t>(dimension));
  for (size_t i = 0; i < out.size(); ++i) out[i] = read_float(bytes.substr(i * 4, 4));
  return out;
}

std::string vector_from_floats(std::span<const float> values) {
  std::string out;
  out.reserve(values.size() * 4);
  for (float f : values) out += float_bytes(f);
  return out;
}

}  // namespace cassette::types
