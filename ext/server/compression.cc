#include "ext/server/compression.h"

#include <fmt/format.h>
#include <lz4.h>
#include <snappy.h>

#include <algorithm>
#include <cctype>

namespace cassette::server {

std::optional<Compression> compression_by_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "lz4") return Compression::kLz4;
  if (lower == "snappy") return Compression::kSnappy;
  return std::nullopt;
}

namespace {

std::string lz4_compress(std::string_view body) {
  const int bound = LZ4_compressBound(static_cast<int>(body.size()));
  std::string out(4 + static_cast<size_t>(bound), '\0');
  const auto n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) out[static_cast<size_t>(i)] = static_cast<char>(n >> (24 - 8 * i));
  const int written =
      LZ4_compress_default(body.data(), out.data() + 4, static_cast<int>(body.size()), bound);
  out.resize(4 + static_cast<size_t>(written));
  return out;
}

Result<std::string> lz4_decompress(std::string_view compressed, uint32_t max_bytes) {
  if (compressed.size() < 4) return Status::invalid_argument("Invalid LZ4 frame body: too short");
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n = (n << 8) | static_cast<uint8_t>(compressed[static_cast<size_t>(i)]);
  if (n > max_bytes) {
    return Status::invalid_argument(fmt::format(
        "Request is too big: length {} exceeds maximum allowed length {}.", n, max_bytes));
  }
  std::string out(n, '\0');
  const int got = LZ4_decompress_safe(compressed.data() + 4, out.data(),
                                      static_cast<int>(compressed.size() - 4), static_cast<int>(n));
  if (got < 0 || static_cast<uint32_t>(got) != n) {
    return Status::invalid_argument("Invalid LZ4 frame body: corrupt block");
  }
  return out;
}

Result<std::string> snappy_decompress(std::string_view compressed, uint32_t max_bytes) {
  size_t n = 0;
  if (!snappy::GetUncompressedLength(compressed.data(), compressed.size(), &n)) {
    return Status::invalid_argument("Invalid Snappy frame body: corrupt block");
  }
  if (n > max_bytes) {
    return Status::invalid_argument(fmt::format(
        "Request is too big: length {} exceeds maximum allowed length {}.", n, max_bytes));
  }
  std::string out;
  if (!snappy::Uncompress(compressed.data(), compressed.size(), &out)) {
    return Status::invalid_argument("Invalid Snappy frame body: corrupt block");
  }
  return out;
}

}  // namespace

std::string compress_body(Compression algorithm, std::string_view body) {
  switch (algorithm) {
    case Compression::kLz4:
      return lz4_compress(body);
    case Compression::kSnappy: {
      std::string out;
      snappy::Compress(body.data(), body.size(), &out);
      return out;
    }
    case Compression::kNone:
      break;
  }
  return std::string(body);
}

Result<std::string> decompress_body(Compression algorithm, std::string_view compressed,
                                    uint32_t max_bytes) {
  switch (algorithm) {
    case Compression::kLz4:
      return lz4_decompress(compressed, max_bytes);
    case Compression::kSnappy:
      return snappy_decompress(compressed, max_bytes);
    case Compression::kNone:
      break;
  }
  return std::string(compressed);
}

}  // namespace cassette::server
