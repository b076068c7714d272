#include "engine/storage/index_key.h"

#include <algorithm>
#include <cstdint>

namespace cassette::storage {

std::string shortest_separator(std::string_view start, std::string_view limit) {
  const size_t common_limit = std::min(start.size(), limit.size());
  size_t diff = 0;
  while (diff < common_limit && start[diff] == limit[diff]) ++diff;
  if (diff < common_limit) {
    const auto byte = static_cast<uint8_t>(start[diff]);
    if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[diff])) {
      std::string separator(start.substr(0, diff + 1));
      separator[diff] = static_cast<char>(byte + 1);
      return separator;  // > start at byte diff, < limit at byte diff
    }
  }
  return std::string(start);  // start is a prefix of limit, or no byte is free between them
}

std::string short_successor(std::string_view key) {
  for (size_t i = 0; i < key.size(); ++i) {
    const auto byte = static_cast<uint8_t>(key[i]);
    if (byte != 0xff) {
      std::string successor(key.substr(0, i + 1));
      successor[i] = static_cast<char>(byte + 1);
      return successor;
    }
  }
  return std::string(key);  // all 0xff bytes: nothing shorter is larger
}

}  // namespace cassette::storage
