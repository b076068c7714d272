// Serialized forms of lists, sets, maps, tuples and UDTs (native protocol v4+):
//   list, set: [int32 n] n x ([int32 length][bytes])
//   map:       [int32 n] n x ([int32 length][key bytes][int32 length][value bytes])
//   tuple/UDT: per component [int32 length][bytes], length -1 for null
#include <fmt/format.h>

#include <algorithm>

#include "engine/types/value.h"
#include "engine/types/value_internal.h"

namespace cassette::types {

namespace {

void put_int32(std::string* out, int32_t v) {
  out->append(types::store_be(static_cast<uint32_t>(v), 4));
}

void put_sized(std::string* out, std::string_view bytes) {
  put_int32(out, static_cast<int32_t>(bytes.size()));
  out->append(bytes);
}

bool get_int32(std::string_view* in, int32_t* v) {
  if (in->size() < 4) return false;
  *v = static_cast<int32_t>(types::read_unsigned(in->substr(0, 4)));
  in->remove_prefix(4);
  return true;
}

bool get_sized(std::string_view* in, std::string* out) {
  int32_t n;
  if (!get_int32(in, &n) || n < 0 || in->size() < static_cast<size_t>(n)) return false;
  out->assign(in->substr(0, n));
  in->remove_prefix(n);
  return true;
}

}  // namespace

std::string serialize_list(std::span<const std::string> elements) {
  std::string out;
  put_int32(&out, static_cast<int32_t>(elements.size()));
  for (const auto& e : elements) put_sized(&out, e);
  return out;
}

std::string serialize_set(const CqlType& element_type, std::vector<std::string> elements) {
  std::stable_sort(elements.begin(), elements.end(),
                   [&](const std::string& a, const std::string& b) {
                     return compare_values(element_type, a, b) < 0;
                   });
  elements.erase(std::unique(elements.begin(), elements.end(),
                             [&](const std::string& a, const std::string& b) {
                               return compare_values(element_type, a, b) == 0;
                             }),
                 elements.end());
  return serialize_list(elements);
}

std::string serialize_map(const CqlType& key_type,
                          std::vector<std::pair<std::string, std::string>> entries) {
  std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
    return compare_values(key_type, a.first, b.first) < 0;
  });
  // For a duplicated key the last value written wins, under the first key written (a TreeMap
  // keeps the key it has: 1.0 and 1.00 are one decimal key).
  std::vector<std::pair<std::string, std::string>> unique;
  for (auto& entry : entries) {
    if (!unique.empty() && compare_values(key_type, unique.back().first, entry.first) == 0) {
      unique.back().second = std::move(entry.second);
    } else {
      unique.push_back(std::move(entry));
    }
  }
  std::string out;
  put_int32(&out, static_cast<int32_t>(unique.size()));
  for (const auto& [k, v] : unique) {
    put_sized(&out, k);
    put_sized(&out, v);
  }
  return out;
}

std::string serialize_tuple(std::span<const Value> components) {
  std::string out;
  for (const auto& c : components) {
    if (c) {
      put_sized(&out, *c);
    } else {
      put_int32(&out, -1);
    }
  }
  return out;
}

Result<std::vector<std::string>> deserialize_list(std::string_view bytes) {
  int32_t n;
  if (!get_int32(&bytes, &n) || n < 0)
    return Status::invalid_argument("Not enough bytes to read a list");
  std::vector<std::string> out;
  out.reserve(std::min<size_t>(n, bytes.size() / 4));
  for (int32_t i = 0; i < n; ++i) {
    std::string element;
    if (!get_sized(&bytes, &element))
      return Status::invalid_argument("Not enough bytes to read a list");
    out.push_back(std::move(element));
  }
  if (!bytes.empty())
    return Status::invalid_argument("Unexpected extraneous bytes after list value");
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> deserialize_map(std::string_view bytes) {
  int32_t n;
  if (!get_int32(&bytes, &n) || n < 0)
    return Status::invalid_argument("Not enough bytes to read a map");
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(std::min<size_t>(n, bytes.size() / 8));
  for (int32_t i = 0; i < n; ++i) {
    std::string k, v;
    if (!get_sized(&bytes, &k) || !get_sized(&bytes, &v))
      return Status::invalid_argument("Not enough bytes to read a map");
    out.emplace_back(std::move(k), std::move(v));
  }
  if (!bytes.empty())
    return Status::invalid_argument("Unexpected extraneous bytes after map value");
  return out;
}

Result<std::vector<Value>> deserialize_tuple(std::string_view bytes) {
  std::vector<Value> out;
  while (!bytes.empty()) {
    int32_t n;
    if (!get_int32(&bytes, &n))
      return Status::invalid_argument("Not enough bytes to read a tuple component");
    if (n < 0) {
      out.emplace_back(std::nullopt);
      continue;
    }
    if (bytes.size() < static_cast<size_t>(n))
      return Status::invalid_argument("Not enough bytes to read a tuple component");
    out.emplace_back(std::string(bytes.substr(0, n)));
    bytes.remove_prefix(n);
  }
  return out;
}

Result<std::vector<std::string>> deserialize_elements(const CqlType& type, std::string_view bytes) {
  if (type.kind == TypeKind::kVector) return deserialize_vector(type, bytes);
  return deserialize_list(bytes);
}

Result<std::string> serialize_elements(const CqlType& type, std::vector<std::string> elements,
                                       std::string_view receiver) {
  if (type.kind == TypeKind::kSet) return serialize_set(type.params.at(0), std::move(elements));
  if (type.kind != TypeKind::kVector) return serialize_list(elements);
  if (elements.size() != static_cast<size_t>(type.dimension)) {
    return Status::invalid_argument(
        fmt::format("Invalid vector literal for {} of type {}; expected {} elements, but given {}",
                    receiver, cql_type_name(type), type.dimension, elements.size()));
  }
  return serialize_vector(type, elements);
}

}  // namespace cassette::types
