#include "engine/schema/schema_digest.h"

#include <string>

#include "engine/schema/catalog_codec.h"
#include "engine/util/hash64.h"

namespace cassette::schema {

std::pair<uint64_t, uint64_t> schema_digest(const Schema& schema) {
  std::string content;
  for (const auto& [name, keyspace] : schema.keyspaces) {
    content += codec::encode_keyspace(*keyspace);
    for (const auto& [n, table] : keyspace->tables) content += codec::encode_table(*table);
    for (const auto& [n, type] : keyspace->types) content += codec::encode_type(*type);
    for (const auto& [n, index] : keyspace->indexes) content += codec::encode_index(*index);
  }
  return {hash64(content, 1), hash64(content, 2)};
}

}  // namespace cassette::schema
