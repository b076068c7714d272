#include "engine/types/partition_key.h"

#include <cassert>
#include <cstring>

#include "engine/types/scalar.h"

namespace cassette::types {

std::string serialize_partition_key(std::span<const std::string> components) {
  assert(!components.empty());
  if (components.size() == 1) return components[0];
  std::string out;
  serialize_partition_key(components, &out);
  return out;
}

void serialize_partition_key(std::span<const std::string> components, std::string* out) {
  assert(!components.empty());
  if (components.size() == 1) {
    out->assign(components[0]);
    return;
  }
  size_t size = 0;
  for (const std::string& component : components) size += component.size() + 3;
  out->resize(size);
  char* p = out->data();
  for (const std::string& component : components) {  // u16 length, bytes, 0
    assert(component.size() <= kMaxPartitionKeyComponentSize);
    p[0] = static_cast<char>(component.size() >> 8);
    p[1] = static_cast<char>(component.size());
    std::memcpy(p + 2, component.data(), component.size());
    p[2 + component.size()] = '\0';
    p += component.size() + 3;
  }
}

Result<std::vector<std::string>> split_partition_key(std::string_view key, size_t component_count) {
  if (component_count == 0) {
    return Status::invalid_argument("A partition key must have at least one component.");
  }
  if (component_count == 1) return std::vector<std::string>{std::string(key)};

  std::vector<std::string> components;
  components.reserve(component_count);
  std::string_view in = key;
  while (components.size() < component_count) {
    if (in.size() < 2) {
      return Status::corruption(
          fmt::format("Compound partition key is truncated: component {} of {} has no length.",
                      components.size() + 1, component_count));
    }
    const size_t length = read_unsigned(in.substr(0, 2));
    in.remove_prefix(2);
    if (in.size() < length + 1) {
      return Status::corruption(
          fmt::format("Compound partition key is truncated: component {} of {} needs {} bytes.",
                      components.size() + 1, component_count, length + 1));
    }
    if (in[length] != '\0') {
      return Status::corruption(
          fmt::format("Compound partition key component {} does not end with a 0x00 byte.",
                      components.size() + 1));
    }
    components.emplace_back(in.substr(0, length));
    in.remove_prefix(length + 1);
  }
  if (!in.empty()) {
    return Status::corruption(
        fmt::format("Compound partition key has {} trailing bytes after its {} components.",
                    in.size(), component_count));
  }
  return components;
}

}  // namespace cassette::types
