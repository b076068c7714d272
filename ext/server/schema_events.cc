#include "ext/server/schema_events.h"

#include <map>
#include <memory>
#include <string>

#include "engine/schema/schema_digest.h"

namespace cassette::server {

namespace {

using schema::KeyspaceDef;

// Objects compare by digest (schema_digest.h: the catalog's records of them): the digest of a
// schema holding only the keyspace's own options, or only the keyspace's name and one table
// with its indexes, or only the name and one type.
using Digest = std::pair<uint64_t, uint64_t>;

Digest digest_of_piece(const KeyspaceDef& piece) {
  schema::Schema only;
  only.keyspaces[piece.name] = std::make_shared<const KeyspaceDef>(piece);
  return schema::schema_digest(only);
}

KeyspaceDef options_of(const KeyspaceDef& keyspace) {
  KeyspaceDef options;
  options.name = keyspace.name;
  options.replication = keyspace.replication;
  options.durable_writes = keyspace.durable_writes;
  return options;
}

Digest keyspace_digest(const KeyspaceDef& keyspace) {
  return digest_of_piece(options_of(keyspace));
}

Digest table_digest(const KeyspaceDef& keyspace,
                    const std::shared_ptr<const schema::TableDef>& table, const std::string& name) {
  KeyspaceDef piece;  // the name only: a change of the keyspace's options is not the table's
  piece.name = keyspace.name;
  piece.tables[name] = table;
  for (const auto& [index_name, index] : keyspace.indexes) {
    if (index->table == name) piece.indexes[index_name] = index;
  }
  return digest_of_piece(piece);
}

Digest type_digest(const KeyspaceDef& keyspace,
                   const std::shared_ptr<const schema::UserTypeDef>& type,
                   const std::string& name) {
  KeyspaceDef piece;
  piece.name = keyspace.name;
  piece.types[name] = type;
  return digest_of_piece(piece);
}

// CREATED / DROPPED / UPDATED for each name in `before` or `after` (two maps by name), given how
// to compare two objects of the same name.
template <typename Object, typename Same>
void diff_named(const std::map<std::string, std::shared_ptr<const Object>>& before,
                const std::map<std::string, std::shared_ptr<const Object>>& after,
                const std::string& keyspace, const std::string& target, Same same,
                std::vector<SchemaChange>& changes) {
  for (const auto& [name, object] : after) {
    auto old = before.find(name);
    if (old == before.end()) {
      changes.push_back({"CREATED", target, keyspace, name});
    } else if (!same(name, old->second, object)) {
      changes.push_back({"UPDATED", target, keyspace, name});
    }
  }
  for (const auto& [name, object] : before) {
    if (!after.contains(name)) changes.push_back({"DROPPED", target, keyspace, name});
  }
}

}  // namespace

std::vector<SchemaChange> schema_changes_between(const schema::Schema& before,
                                                 const schema::Schema& after) {
  std::vector<SchemaChange> changes;
  for (const auto& [name, keyspace] : after.keyspaces) {
    auto old = before.keyspaces.find(name);
    const bool created = old == before.keyspaces.end();
    if (created) {
      changes.push_back({"CREATED", "KEYSPACE", name, ""});
    } else if (keyspace_digest(*old->second) != keyspace_digest(*keyspace)) {
      changes.push_back({"UPDATED", "KEYSPACE", name, ""});
    }
    static const KeyspaceDef kEmpty;
    const KeyspaceDef& old_keyspace = created ? kEmpty : *old->second;
    const KeyspaceDef& new_keyspace = *keyspace;  // clang 14: lambdas cannot capture bindings
    diff_named(
        old_keyspace.tables, new_keyspace.tables, name, "TABLE",
        [&](const std::string& table, const auto& was, const auto& is) {
          return table_digest(old_keyspace, was, table) == table_digest(new_keyspace, is, table);
        },
        changes);
    diff_named(
        old_keyspace.types, new_keyspace.types, name, "TYPE",
        [&](const std::string& type, const auto& was, const auto& is) {
          return type_digest(old_keyspace, was, type) == type_digest(new_keyspace, is, type);
        },
        changes);
  }
  for (const auto& [name, keyspace] : before.keyspaces) {
    if (!after.keyspaces.contains(name)) changes.push_back({"DROPPED", "KEYSPACE", name, ""});
  }
  return changes;
}

}  // namespace cassette::server
