// message_value (see message.h).
#include "engine/util/message.h"

#include <fmt/format.h>

namespace cassette {

std::string message_value(std::string_view value) {
  if (value.size() <= kMessageValueBytes) return std::string(value);
  size_t keep = kMessageValueBytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the character that was cut.
  while (keep > 0 && (static_cast<unsigned char>(value[keep]) & 0xC0) == 0x80) --keep;
  return fmt::format("{}... ({} bytes)", value.substr(0, keep), value.size());
}

}  // namespace cassette
