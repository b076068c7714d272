#include "engine/storage/internal_key.h"

#include "engine/util/coding.h"

namespace cassette::storage {

void append_token(std::string* out, int64_t token) {
  coding::put_big_endian64(out, static_cast<uint64_t>(token) ^ (1ull << 63));
}

int64_t decode_token(std::string_view eight_bytes) {
  return static_cast<int64_t>(coding::decode_big_endian64(eight_bytes.data()) ^ (1ull << 63));
}

void append_partition_prefix(std::string* out, int64_t token, std::string_view partition_key) {
  append_token(out, token);
  for (char c : partition_key) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->push_back('\0');
  out->push_back('\x01');
}

std::string partition_prefix(int64_t token, std::string_view partition_key) {
  std::string out;
  out.reserve(10 + partition_key.size());
  append_partition_prefix(&out, token, partition_key);
  return out;
}

std::string entry_key(std::string_view prefix, EntryKind kind, std::string_view clustering) {
  std::string out;
  out.reserve(prefix.size() + 1 + clustering.size());
  out.append(prefix);
  out.push_back(static_cast<char>(kind));
  out.append(clustering);
  return out;
}

size_t partition_prefix_length(std::string_view key) {
  if (key.size() < 10) return 0;
  for (size_t i = 8; i + 1 < key.size(); ++i) {
    if (key[i] != '\0') continue;
    if (key[i + 1] == '\x01') return i + 2;
    if (key[i + 1] != '\xff') return 0;
    ++i;  // an escaped zero byte
  }
  return 0;
}

bool decode_entry_key(std::string_view key, DecodedKey* out) {
  size_t prefix = partition_prefix_length(key);
  if (prefix == 0 || prefix >= key.size()) return false;
  out->token = decode_token(key.substr(0, 8));
  out->partition_key.clear();
  for (size_t i = 8; i < prefix - 2; ++i) {
    out->partition_key.push_back(key[i]);
    if (key[i] == '\0') ++i;
  }
  out->prefix_length = prefix;
  auto kind = static_cast<uint8_t>(key[prefix]);
  if (kind != 0x10 && kind != 0x20 && kind != 0x30) return false;
  out->kind = static_cast<EntryKind>(kind);
  out->clustering = key.substr(prefix + 1);
  return true;
}

bool decode_partition_prefix(std::string_view prefix, int64_t* token, std::string* partition_key) {
  if (prefix.size() < 10 || partition_prefix_length(prefix) != prefix.size()) return false;
  *token = decode_token(prefix.substr(0, 8));
  partition_key->clear();
  for (size_t i = 8; i < prefix.size() - 2; ++i) {
    partition_key->push_back(prefix[i]);
    if (prefix[i] == '\0') ++i;
  }
  return true;
}

std::string token_lower_bound(int64_t token) {
  std::string out;
  append_token(&out, token);
  return out;
}

}  // namespace cassette::storage
