// Helpers shared by the schema statement executors (see execute_schema_internal.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <set>

#include "engine/cql/execute_schema_internal.h"
#include "engine/types/value.h"

namespace cassette::cql::schema_internal {

using types::CqlType;
using types::TypeKind;

Result<ExecutionResult> run_change(ExecutionContext& context, const Change& change) {
  return run_change(context, change, nullptr);
}

Result<ExecutionResult> run_change(ExecutionContext& context, const Change& change,
                                   const schema::Catalog::ExtraWrites& writes) {
  bool changed = false;
  if (context.planned != nullptr) {  // planned only: nothing is written
    CASSETTE_ASSIGN_OR_RETURN(std::optional<schema::Schema> result, change(*context.schema));
    changed = result.has_value();
    *context.planned = changed ? std::move(*result) : *context.schema;
    ExecutionResult planned;
    planned.kind = changed ? ExecutionResult::Kind::kSchemaChange : ExecutionResult::Kind::kVoid;
    return planned;
  }
  auto change_schema = [&](const schema::Schema& now) -> Result<schema::Schema> {
    CASSETTE_ASSIGN_OR_RETURN(std::optional<schema::Schema> result, change(now));
    changed = result.has_value();
    if (!changed) return now;
    return std::move(*result);
  };
  auto next = writes ? context.catalog->change(change_schema, writes)
                     : context.catalog->change(change_schema);
  if (!next.is_ok()) return next.status();
  context.schema = *next;
  ExecutionResult result;
  result.kind = changed ? ExecutionResult::Kind::kSchemaChange : ExecutionResult::Kind::kVoid;
  return result;
}

std::shared_ptr<schema::KeyspaceDef> copy_keyspace(const schema::Schema& schema,
                                                   const std::string& name) {
  return std::make_shared<schema::KeyspaceDef>(*schema.keyspaces.at(name));
}

namespace {

CqlType frozen_copy(CqlType type) {
  if (type.is_collection() || type.kind == TypeKind::kUdt || type.kind == TypeKind::kTuple) {
    type.frozen = true;
  }
  for (CqlType& param : type.params) param = frozen_copy(std::move(param));
  return type;
}

// The type as the statement wrote it (Cassandra's CQL3Type.Raw.toString): frozen<> only where
// written, UDTs by name.
std::string raw_type_name(const CqlType& type) {
  std::string inner;
  auto params = [&]() {
    std::string out;
    for (const CqlType& p : type.params) {
      if (!out.empty()) out += ", ";
      out += raw_type_name(p);
    }
    return out;
  };
  switch (type.kind) {
    case TypeKind::kList:
      inner = "list<" + params() + ">";
      break;
    case TypeKind::kSet:
      inner = "set<" + params() + ">";
      break;
    case TypeKind::kMap:
      inner = "map<" + params() + ">";
      break;
    case TypeKind::kTuple:
      return "tuple<" + params() + ">";
    case TypeKind::kUdt:
      inner = type.udt_keyspace.empty() ? maybe_quote(type.udt_name)
                                        : type.udt_keyspace + "." + maybe_quote(type.udt_name);
      break;
    default:
      return types::cql_type_name(type);
  }
  return type.frozen ? "frozen<" + inner + ">" : inner;
}

bool supports_freezing(const CqlType& type) {
  return type.is_collection() || type.kind == TypeKind::kUdt;
}

Result<CqlType> resolve(const CqlType& raw, const std::string& keyspace,
                        const schema::KeyspaceDef& definitions, bool inside_frozen) {
  CqlType type = raw;
  if (inside_frozen && supports_freezing(type)) type.frozen = true;
  switch (raw.kind) {
    case TypeKind::kUdt: {
      std::string ks = raw.udt_keyspace.empty() ? keyspace : raw.udt_keyspace;
      if (ks != keyspace) {
        return Status::invalid_argument(fmt::format(
            "Statement on keyspace {} cannot refer to a user type in keyspace {}; user types can "
            "only be used in the keyspace they are defined in",
            keyspace, ks));
      }
      auto it = definitions.types.find(raw.udt_name);
      if (it == definitions.types.end()) {
        return Status::invalid_argument(fmt::format("Unknown type {}.{}", ks, raw.udt_name));
      }
      type.udt_keyspace = ks;
      type.field_names = it->second->field_names;
      type.params = it->second->field_types;  // already resolved when the type was created
      if (type.frozen) {
        for (CqlType& param : type.params) param = frozen_copy(std::move(param));
      }
      return type;
    }
    case TypeKind::kList:
    case TypeKind::kSet:
    case TypeKind::kMap: {
      for (size_t i = 0; i < raw.params.size(); ++i) {
        const CqlType& element = raw.params[i];
        if (element.is_counter()) {
          return Status::invalid_argument(
              fmt::format("Counters are not allowed inside collections: {}", raw_type_name(raw)));
        }
        if (!type.frozen && supports_freezing(element) && !element.frozen) {
          return Status::invalid_argument(fmt::format(
              "Non-frozen {} are not allowed inside collections: {}",
              element.kind == TypeKind::kUdt ? "UDTs" : "collections", raw_type_name(raw)));
        }
        if (element.kind == TypeKind::kDuration) {
          if (raw.kind == TypeKind::kSet) {
            return Status::invalid_argument(
                fmt::format("Durations are not allowed inside sets: {}", raw_type_name(raw)));
          }
          if (raw.kind == TypeKind::kMap && i == 0) {
            return Status::invalid_argument(
                fmt::format("Durations are not allowed as map keys: {}", raw_type_name(raw)));
          }
        }
        CASSETTE_ASSIGN_OR_RETURN(
            type.params[i], resolve(element, keyspace, definitions, type.frozen || inside_frozen));
      }
      return type;
    }
    case TypeKind::kVector: {  // one cell: its element is frozen, as VectorType freezes it
      CASSETTE_ASSIGN_OR_RETURN(type.params[0],
                                resolve(raw.params[0], keyspace, definitions, true));
      return type;
    }
    case TypeKind::kTuple: {
      type.frozen = true;
      for (size_t i = 0; i < raw.params.size(); ++i) {
        if (raw.params[i].is_counter()) {
          return Status::invalid_argument(
              fmt::format("Counters are not allowed inside tuples: {}", raw_type_name(raw)));
        }
        CASSETTE_ASSIGN_OR_RETURN(type.params[i],
                                  resolve(raw.params[i], keyspace, definitions, true));
      }
      return type;
    }
    default:
      return type;
  }
}

}  // namespace

Result<CqlType> resolve_type(const CqlType& raw, const std::string& keyspace,
                             const schema::KeyspaceDef& definitions) {
  return resolve(raw, keyspace, definitions, raw.frozen);
}

bool references_type(const CqlType& type, std::string_view keyspace, std::string_view name) {
  if (type.kind == TypeKind::kUdt && type.udt_keyspace == keyspace && type.udt_name == name) {
    return true;
  }
  return std::any_of(type.params.begin(), type.params.end(),
                     [&](const CqlType& param) { return references_type(param, keyspace, name); });
}

CqlType replace_type(const CqlType& type, const schema::UserTypeDef& replacement) {
  CqlType out = type;
  for (CqlType& param : out.params) param = replace_type(param, replacement);
  if (type.kind == TypeKind::kUdt && type.udt_keyspace == replacement.keyspace &&
      type.udt_name == replacement.name) {
    out.field_names = replacement.field_names;
    out.params = replacement.field_types;
    if (out.frozen) {
      for (CqlType& param : out.params) param = frozen_copy(std::move(param));
    }
  }
  return out;
}

bool references_duration(const CqlType& type) {
  if (type.kind == TypeKind::kDuration) return true;
  return std::any_of(type.params.begin(), type.params.end(),
                     [](const CqlType& param) { return references_duration(param); });
}

namespace {

// Cassandra's reserved keywords (ReservedKeywords.java): identifiers that must be quoted.
const std::set<std::string>& reserved_keywords() {
  static const auto& kReserved = *new const std::set<std::string>{
      "add",    "allow",       "alter",  "and",          "apply",    "asc",      "authorize",
      "batch",  "begin",       "by",     "columnfamily", "create",   "default",  "delete",
      "desc",   "describe",    "drop",   "entries",      "execute",  "from",     "full",
      "grant",  "if",          "in",     "index",        "infinity", "insert",   "into",
      "is",     "keyspace",    "limit",  "materialized", "mbean",    "mbeans",   "modify",
      "nan",    "norecursive", "not",    "null",         "of",       "on",       "or",
      "order",  "primary",     "rename", "replace",      "revoke",   "schema",   "select",
      "set",    "table",       "to",     "token",        "truncate", "unlogged", "unset",
      "update", "use",         "using",  "view",         "where",    "with"};
  return kReserved;
}

}  // namespace

std::string maybe_quote(std::string_view identifier) {
  bool plain = !identifier.empty() && identifier[0] >= 'a' && identifier[0] <= 'z';
  for (char c : identifier) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) plain = false;
  }
  if (plain && !reserved_keywords().contains(std::string(identifier))) {
    return std::string(identifier);
  }
  std::string out = "\"";
  for (char c : identifier) {
    out += c;
    if (c == '"') out += '"';
  }
  out += '"';
  return out;
}

std::string type_name(const CqlType& type, std::string_view keyspace) {
  return types::cql_type_name(type, keyspace);
}

std::string random_uuid_text() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  uint64_t high = generator();
  uint64_t low = generator();
  high = (high & ~uint64_t{0xF000}) | uint64_t{0x4000};          // version 4
  low = (low & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);  // IETF variant
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                     high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFull);
}

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 48) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void sort_columns(std::vector<schema::ColumnDef>& columns) {
  std::stable_sort(columns.begin(), columns.end(),
                   [](const schema::ColumnDef& a, const schema::ColumnDef& b) {
                     int a_rank = schema::column_kind_rank(a.kind);
                     int b_rank = schema::column_kind_rank(b.kind);
                     if (a_rank != b_rank) return a_rank < b_rank;
                     if (a.is_primary_key()) return a.position < b.position;
                     bool a_complex = a.type.is_multi_cell();
                     bool b_complex = b.type.is_multi_cell();
                     if (a_complex != b_complex) return !a_complex;
                     return a.name < b.name;
                   });
}

}  // namespace cassette::cql::schema_internal
