// Analysis of a SELECT's WHERE clause (see restrictions.h). The structure follows Cassandra's
// StatementRestrictions: relations become restrictions grouped by partition key / clustering /
// other columns, restrictions on the same columns are merged (with Cassandra's messages for the
// combinations it rejects), then each group is validated and turned into an access path.
#include "engine/cql/restrictions.h"

#include <algorithm>
#include <map>

#include "engine/codec/table_codec.h"
#include "engine/cql/restrictions_internal.h"
#include "engine/cql/term.h"
#include "engine/schema/index_components.h"
#include "engine/types/murmur3.h"
#include "engine/types/scalar.h"

namespace cassette::cql {

const char* const kRequiresAllowFilteringMessage =
    "Cannot execute this query as it might involve data filtering and thus may have unpredictable "
    "performance. If you want to execute this query despite the performance unpredictability, use "
    "ALLOW FILTERING";

Status unsupported_relation(Operator op, std::string_view text) {
  // 5.0's grammar has no NOT IN; its refusal here keeps the same shape.
  return Status::invalid_argument(
      fmt::format("Unsupported \"{}\" relation: {}", operator_text(op), text));
}

namespace restrictions_internal {

namespace {

// AbstractType.referencesDuration: the type is, or contains, a duration.
bool references_duration(const types::CqlType& type) {
  if (type.kind == types::TypeKind::kDuration) return true;
  for (const types::CqlType& p : type.params) {
    if (references_duration(p)) return true;
  }
  return false;
}

}  // namespace

void Analyzer::defer_bind_error(Status error) {
  if (deferred_bind_error_.is_ok()) deferred_bind_error_ = std::move(error);
}

Result<std::string> Analyzer::value_for(const Term& term, const ColumnDef& column,
                                        const types::CqlType& type, std::string_view receiver,
                                        std::string_view null_what) {
  CASSETTE_ASSIGN_OR_RETURN(types::Value value, evaluate_term(term, type, receiver, context_));
  if (!value) {
    // Cassandra finds null values when it binds them, after every preparation check (an
    // unfiltered `v = null` reports ALLOW FILTERING first): remember the first, go on.
    if (column.is_primary_key()) {
      defer_bind_error(Status::invalid_argument(
          fmt::format("Invalid null value in condition for column {}", column.name)));
    } else {
      defer_bind_error(Status::invalid_argument(
          fmt::format("Unsupported null {} for column {}", null_what, column.name)));
    }
    return std::string();
  }
  return *value;
}

Result<std::string> Analyzer::key_value(const Term& term, const ColumnDef& column) {
  return value_for(term, column, column.type, column.name);
}

Result<int64_t> Analyzer::token_value(const Term& term) {
  // token(1, 2) on the right side: the token of that partition key.
  if (term.kind == Term::Kind::kFunctionCall &&
      (term.function.keyspace.empty() || term.function.keyspace == "system") &&
      (term.function.name == "token" || term.function.name == "system.token")) {
    const std::vector<const ColumnDef*>& key = table_.partition_key();
    if (term.elements.size() != key.size()) {
      return Status::invalid_argument(fmt::format(
          "Invalid number of arguments in call to function system.token: {} required but {} "
          "provided",
          key.size(), term.elements.size()));
    }
    std::vector<std::string> components;
    for (size_t i = 0; i < key.size(); ++i) {
      CASSETTE_ASSIGN_OR_RETURN(
          types::Value v, evaluate_term(*term.elements[i], key[i]->type, key[i]->name, context_));
      if (!v) {
        // TokenFct returns null for a null component: a null token bound.
        defer_bind_error(Status::invalid_argument("Invalid null token value"));
        return int64_t{0};
      }
      components.push_back(std::move(*v));
    }
    return types::murmur3_token(partition_key_bytes(components));
  }
  CASSETTE_ASSIGN_OR_RETURN(types::Value value,
                            evaluate_term(term, types::CqlType::simple(types::TypeKind::kBigint),
                                          "partition key token", context_));
  if (!value || value->size() != 8) {
    // Found when binding, after the preparation checks, like the other null values.
    defer_bind_error(Status::invalid_argument("Invalid null token value"));
    return int64_t{0};
  }
  return types::read_int64(*value);
}

Status Analyzer::add_relation(const Relation& relation) {
  switch (relation.kind) {
    case Relation::Kind::kToken:
      return add_token_relation(relation);
    case Relation::Kind::kMultiColumn:
      return add_multi_column_relation(relation);
    case Relation::Kind::kSingleColumn:
      return add_single_column_relation(relation);
  }
  return Status::ok();
}

Status Analyzer::add_token_relation(const Relation& relation) {
  const std::vector<const ColumnDef*>& key = table_.partition_key();
  std::vector<const ColumnDef*> columns;
  for (const std::string& name : relation.columns) {
    const ColumnDef* c = table_.find_column(name);
    if (c == nullptr) {
      return Status::invalid_argument(fmt::format("Undefined column name {}", name));
    }
    columns.push_back(c);
  }
  if (columns != key) {
    for (const ColumnDef* k : key) {
      if (std::find(columns.begin(), columns.end(), k) == columns.end()) {
        return Status::invalid_argument(
            "The token() function must be applied to all partition key components or none of "
            "them");
      }
    }
    for (size_t i = 0; i < columns.size(); ++i) {
      for (size_t j = i + 1; j < columns.size(); ++j) {
        if (columns[i] == columns[j]) {
          return Status::invalid_argument(
              "The token() function contains duplicate partition key components");
        }
      }
      if (columns[i]->kind != schema::ColumnKind::kPartitionKey) {
        return Status::invalid_argument(
            "The token() function must contains only partition key components");
      }
    }
    return Status::invalid_argument(fmt::format(
        "The token function arguments must be in the partition key order: {}", join_names(key)));
  }
  Restriction r;
  r.columns = key;
  switch (relation.op) {
    case Operator::kEq: {
      CASSETTE_ASSIGN_OR_RETURN(int64_t t, token_value(*relation.value));
      r.kind = Restriction::Kind::kEq;
      r.token_start = t;
      r.token_end = t;
      r.start_inclusive = r.end_inclusive = true;
      break;
    }
    case Operator::kGt:
    case Operator::kGte: {
      CASSETTE_ASSIGN_OR_RETURN(int64_t t, token_value(*relation.value));
      r.kind = Restriction::Kind::kSlice;
      r.token_start = t;
      r.start_inclusive = relation.op == Operator::kGte;
      break;
    }
    case Operator::kLt:
    case Operator::kLte: {
      CASSETTE_ASSIGN_OR_RETURN(int64_t t, token_value(*relation.value));
      r.kind = Restriction::Kind::kSlice;
      r.token_end = t;
      r.end_inclusive = relation.op == Operator::kLte;
      break;
    }
    default:
      return Status::invalid_argument(
          fmt::format("{} cannot be used with the token function", operator_text(relation.op)));
  }
  if (!token_) {
    token_ = std::move(r);
    return Status::ok();
  }
  return merge_restriction(*token_, r);
}

Status Analyzer::add_multi_column_relation(const Relation& relation) {
  // Relation.toRestriction rejects the operator before MultiColumnRelation checks its columns.
  if (relation.op == Operator::kNeq || relation.op == Operator::kNotIn) {
    return unsupported_relation(relation.op, relation_text(relation));
  }
  Restriction r;
  r.multi = true;
  int previous = -1;
  for (const std::string& name : relation.columns) {
    const ColumnDef* c = table_.find_column(name);
    if (c == nullptr) {
      return Status::invalid_argument(fmt::format("Undefined column name {}", name));
    }
    if (c->kind != schema::ColumnKind::kClustering) {
      return Status::invalid_argument(fmt::format(
          "Multi-column relations can only be applied to clustering columns but was applied to: "
          "{}",
          c->name));
    }
    if (std::find(r.columns.begin(), r.columns.end(), c) != r.columns.end()) {
      return Status::invalid_argument(fmt::format("Column \"{}\" appeared twice in a relation: {}",
                                                  c->name, relation_text(relation)));
    }
    if (previous >= 0 && c->position != previous + 1) {
      return Status::invalid_argument(fmt::format(
          "Clustering columns must appear in the PRIMARY KEY order in multi-column relations: {}",
          relation_text(relation)));
    }
    previous = c->position;
    r.columns.push_back(c);
  }
  // MultiColumnRelation.newINRestriction turns an IN of one tuple into an EQRestriction.
  const bool in = relation.op == Operator::kIn && relation.in_values.size() != 1;
  const bool eq = relation.op == Operator::kEq || (relation.op == Operator::kIn && !in);
  auto tuple_of = [&](const Term& term) -> Result<std::vector<std::string>> {
    if (term.kind != Term::Kind::kTuple) {
      return Status::invalid_argument(
          fmt::format("Invalid multi-column relation value {}: a tuple of {} values is expected",
                      term.source, r.columns.size()));
    }
    if (term.elements.size() != r.columns.size()) {
      return Status::invalid_argument(
          fmt::format("Expected {} elements in value tuple, but got {}: {}", r.columns.size(),
                      term.elements.size(), tuple_text(term)));
    }
    std::vector<std::string> out;
    for (size_t i = 0; i < r.columns.size(); ++i) {
      const ColumnDef& c = *r.columns[i];
      CASSETTE_ASSIGN_OR_RETURN(types::Value v,
                                evaluate_term(*term.elements[i], c.type, c.name, context_));
      if (!v) {
        // MultiColumnRestriction.INRestriction names every column; EQ and slices name one.
        // Reported after the preparation checks, as value_for does.
        if (in) {
          defer_bind_error(Status::invalid_argument(fmt::format(
              "Invalid null value in condition for columns: [{}]", join_names(r.columns))));
        } else if (eq) {
          defer_bind_error(
              Status::invalid_argument(fmt::format("Invalid null value for column {}", c.name)));
        } else {
          defer_bind_error(Status::invalid_argument(
              fmt::format("Invalid null value in condition for column {}", c.name)));
        }
        v = std::string();
      }
      out.push_back(std::move(*v));
    }
    return out;
  };
  if (relation.op == Operator::kEq) {
    r.kind = Restriction::Kind::kEq;
    CASSETTE_ASSIGN_OR_RETURN(auto tuple, tuple_of(*relation.value));
    r.values.push_back(std::move(tuple));
  } else if (eq) {
    r.kind = Restriction::Kind::kEq;
    CASSETTE_ASSIGN_OR_RETURN(auto tuple, tuple_of(*relation.in_values.front()));
    r.values.push_back(std::move(tuple));
  } else if (relation.op == Operator::kIn) {
    r.kind = Restriction::Kind::kIn;
    if (relation.in_marker) {
      return Status::invalid_argument("Bind markers are not supported by this executor");
    }
    for (const TermPtr& t : relation.in_values) {
      CASSETTE_ASSIGN_OR_RETURN(auto tuple, tuple_of(*t));
      r.values.push_back(std::move(tuple));
    }
  } else if (is_slice_operator(relation.op)) {
    CASSETTE_ASSIGN_OR_RETURN(auto tuple, tuple_of(*relation.value));
    set_slice_bound(r, relation.op, std::move(tuple));
  } else {
    return unsupported_relation(relation.op, relation_text(relation));
  }
  return add_clustering(std::move(r));
}

Status Analyzer::add_single_column_relation(const Relation& relation) {
  const std::string& name = relation.columns.front();
  const ColumnDef* column = table_.find_column(name);
  if (column == nullptr) {
    return Status::invalid_argument(fmt::format("Undefined column name {}", name));
  }
  const types::CqlType& type = column->type;
  switch (relation.op) {
    case Operator::kNeq:
    case Operator::kNotIn:
      return unsupported_relation(relation.op, relation_text(relation));
    case Operator::kIsNotNull:
      return Status::invalid_argument(
          fmt::format("Unsupported restriction: {}", relation_text(relation)));
    default:
      break;
  }
  // SingleColumnRelation.newSliceRestriction rejects durations before any receiver check.
  if (is_slice_operator(relation.op) && !relation.map_key && references_duration(type)) {
    const char* what = type.is_collection()                   ? "collections containing durations"
                       : type.kind == types::TypeKind::kTuple ? "tuples containing durations"
                       : type.kind == types::TypeKind::kUdt   ? "UDTs containing durations"
                                                              : "duration columns";
    return Status::invalid_argument(
        fmt::format("Slice restrictions are not supported on {}", what));
  }
  if (relation.op == Operator::kContainsKey && type.kind != types::TypeKind::kMap) {
    return Status::invalid_argument(
        fmt::format("Cannot use CONTAINS KEY on non-map column {}", column->name));
  }
  if (relation.op == Operator::kContains && !type.is_collection()) {
    return Status::invalid_argument(
        fmt::format("Cannot use CONTAINS on non-collection column {}", column->name));
  }
  if (relation.map_key) {
    if (type.kind == types::TypeKind::kList) {
      return Status::invalid_argument(
          fmt::format("Indexes on list entries ({}[index] = value) are not currently supported.",
                      column->name));
    }
    if (type.kind != types::TypeKind::kMap) {
      return Status::invalid_argument(
          fmt::format("Column {} cannot be used as a map", column->name));
    }
    if (!type.is_multi_cell()) {
      return Status::invalid_argument(fmt::format(
          "Map-entry equality predicates on frozen map column {} are not supported", column->name));
    }
    if (relation.op != Operator::kEq) {
      return Status::invalid_argument("Only EQ relations are supported on map entries");
    }
  } else if (type.is_collection() && type.is_multi_cell() && relation.op != Operator::kContains &&
             relation.op != Operator::kContainsKey) {
    return Status::invalid_argument(fmt::format(
        "Collection column '{}' ({}) cannot be restricted by a '{}' relation", column->name,
        types::cql_type_name(type, table_.keyspace), operator_text(relation.op)));
  }
  if (type.kind == types::TypeKind::kUdt && type.is_multi_cell()) {
    return Status::invalid_argument(
        fmt::format("Non-frozen UDT column '{}' ({}) cannot be restricted by any relation",
                    column->name, types::cql_type_name(type, table_.keyspace)));
  }
  // LIKE needs a SASI index, which a single node shell does not have; the receiver checks above
  // come first, as in SingleColumnRelation.toReceivers.
  if (relation.op == Operator::kLike) {
    return Status::invalid_argument(fmt::format(
        "LIKE restriction is only supported on properly indexed columns. {} is not valid.",
        relation_text(relation)));
  }

  Restriction r;
  r.columns = {column};
  if (relation.map_key) {
    r.kind = Restriction::Kind::kContains;
    RowPredicate p;
    p.kind = RowPredicate::Kind::kMapEntry;
    p.columns = {column};
    // SingleColumnRelation.toReceivers: the key and value receivers of MapType, named
    // key(m) and value(m) in errors.
    CASSETTE_ASSIGN_OR_RETURN(std::string key,
                              value_for(*relation.map_key, *column, type.params[0],
                                        fmt::format("key({})", column->name), "map key"));
    CASSETTE_ASSIGN_OR_RETURN(std::string value,
                              value_for(*relation.value, *column, type.params[1],
                                        fmt::format("value({})", column->name), "map value"));
    p.values.push_back({std::move(key), std::move(value)});
    r.contains.push_back(std::move(p));
  } else if (relation.op == Operator::kContains || relation.op == Operator::kContainsKey) {
    r.kind = Restriction::Kind::kContains;
    RowPredicate p;
    p.columns = {column};
    const types::CqlType* element = &type.params.back();  // list/set element, map value
    if (relation.op == Operator::kContainsKey) {
      p.kind = RowPredicate::Kind::kContainsKey;
      element = &type.params[0];
    } else {
      p.kind = RowPredicate::Kind::kContains;
    }
    // The collection's element receiver (CollectionType.makeCollectionReceiver): key(m) for
    // CONTAINS KEY, value(c) for CONTAINS.
    const std::string receiver = fmt::format(
        "{}({})", p.kind == RowPredicate::Kind::kContainsKey ? "key" : "value", column->name);
    CASSETTE_ASSIGN_OR_RETURN(std::string v,
                              value_for(*relation.value, *column, *element, receiver));
    p.values.push_back({std::move(v)});
    r.contains.push_back(std::move(p));
  } else if (relation.op == Operator::kEq) {
    r.kind = Restriction::Kind::kEq;
    CASSETTE_ASSIGN_OR_RETURN(std::string v, key_value(*relation.value, *column));
    r.values.push_back({std::move(v)});
  } else if (relation.op == Operator::kIn && !relation.in_marker &&
             relation.in_values.size() == 1) {
    // SingleColumnRelation.newINRestriction: an IN of one value is an EQRestriction.
    r.kind = Restriction::Kind::kEq;
    CASSETTE_ASSIGN_OR_RETURN(std::string v, key_value(*relation.in_values.front(), *column));
    r.values.push_back({std::move(v)});
  } else if (relation.op == Operator::kIn) {
    r.kind = Restriction::Kind::kIn;
    if (relation.in_marker) {
      return Status::invalid_argument("Bind markers are not supported by this executor");
    }
    for (const TermPtr& t : relation.in_values) {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, key_value(*t, *column));
      r.values.push_back({std::move(v)});
    }
  } else {
    CASSETTE_ASSIGN_OR_RETURN(std::string v, key_value(*relation.value, *column));
    set_slice_bound(r, relation.op, {std::move(v)});
  }

  switch (column->kind) {
    case schema::ColumnKind::kPartitionKey:
      return add_to(partition_, std::move(r));
    case schema::ColumnKind::kClustering:
      return add_clustering(std::move(r));
    default:
      return add_to(others_, std::move(r));
  }
}

bool Analyzer::contains_supported_by_index(const ColumnDef& column, const RowPredicate& p,
                                           bool sai_only) const {
  using Target = schema::IndexDef::Target;
  const Target wanted = p.kind == RowPredicate::Kind::kContains      ? Target::kValues
                        : p.kind == RowPredicate::Kind::kContainsKey ? Target::kKeys
                                                                     : Target::kEntries;
  for (const auto& index : indexes_) {
    if (index->column != column.name) continue;
    const bool sai = schema::is_sai_index(*index);
    if (sai_only && !sai) continue;
    if (!index->custom_class.empty() && !sai) return true;
    if (index->target == wanted) return true;
  }
  return false;
}

bool Analyzer::supported_by_index(const Restriction& r, bool sai_only) const {
  if (r.multi) {
    // A tuple equality is answered by indexes only when every column it names has one (a
    // CassandraIndex supports EQ only): `(b) = (1)` uses an index on b, `(b, c) = (1, 1)` filters.
    if (r.kind != Restriction::Kind::kEq) return false;
    for (const ColumnDef* column : r.columns) {
      Restriction single;
      single.kind = Restriction::Kind::kEq;
      single.columns = {column};
      if (!supported_by_index(single, sai_only)) return false;
    }
    return true;
  }
  if (r.columns.size() != 1) return false;
  const ColumnDef* column = r.columns.front();
  for (const auto& index : indexes_) {
    if (index->column != column->name) continue;
    const bool sai = schema::is_sai_index(*index);
    if (sai_only && !sai) continue;
    if (!index->custom_class.empty() && !sai) return true;
    switch (r.kind) {
      case Restriction::Kind::kEq:
        if (index->target == schema::IndexDef::Target::kFull ||
            (index->target == schema::IndexDef::Target::kValues && !column->type.is_collection())) {
          return true;
        }
        break;
      case Restriction::Kind::kContains:
        // Each CONTAINS / CONTAINS KEY / [key] = value of the column may be answered by a
        // different index on it (keys, values, entries: MultipleColumnIndexTest).
        return std::all_of(r.contains.begin(), r.contains.end(), [&](const RowPredicate& p) {
          return contains_supported_by_index(*column, p, sai_only);
        });
      case Restriction::Kind::kSlice:
        // SAI answers ranges on numeric, date and time values, not on text ("literal") ones.
        if (sai && schema::sai_supports_ranges(column->type)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

bool Analyzer::set_supported_by_index(const std::vector<Restriction>& set) const {
  for (const Restriction& r : set) {
    if (supported_by_index(r)) return true;
  }
  return false;
}

// ClusteringColumnRestrictions.needFiltering.
bool Analyzer::clustering_needs_filtering() const {
  int position = 0;
  bool has_contains = false;
  for (const Restriction& r : clustering_) {
    if (r.kind == Restriction::Kind::kContains || r.first_position() != position) return true;
    if (!r.is_slice()) position = r.last_position() + 1;
    has_contains = has_contains || r.kind == Restriction::Kind::kContains;
  }
  return has_contains;
}

Result<SelectRestrictions> Analyzer::run(const std::vector<Relation>& where) {
  for (const Relation& relation : where) CASSETTE_RETURN_IF_ERROR(add_relation(relation));
  SelectRestrictions out;
  CASSETTE_RETURN_IF_ERROR(process(out));
  out.bind_error = deferred_bind_error_;
  return out;
}

Status Analyzer::process(SelectRestrictions& out) {
  const bool allow_filtering = options_.allow_filtering;
  const size_t key_size = table_.partition_key().size();
  const bool has_index = set_supported_by_index(partition_) ||
                         set_supported_by_index(clustering_) || set_supported_by_index(others_);

  // ---- partition key ----
  bool pk_has_slice = false;
  bool pk_has_contains = false;
  bool pk_has_in = false;
  for (const Restriction& r : partition_) {
    pk_has_slice = pk_has_slice || r.is_slice();
    pk_has_contains = pk_has_contains || r.kind == Restriction::Kind::kContains;
    pk_has_in = pk_has_in || r.kind == Restriction::Kind::kIn;
  }
  const bool pk_needs_filtering =
      !partition_.empty() && (partition_.size() < key_size || pk_has_slice || pk_has_contains);
  if (token_) {
    out.has_token_restriction = true;
    if (pk_has_slice || pk_has_contains) {
      return Status::invalid_argument(
          "Only EQ and IN relation are supported on the partition key (unless you use the token() "
          "function)");
    }
    // TokenFilter.isOnToken: with every key column restricted by = / IN the token only filters
    // the keys, and the query stays a single-partition one.
    if (pk_needs_filtering || partition_.size() < key_size) out.is_key_range = true;
  }
  bool uses_index = false;
  if (partition_.empty() && !token_) {
    out.is_key_range = true;
    uses_index = has_index;
  }
  if (pk_needs_filtering) {
    if (!allow_filtering && !has_index) {
      return Status::invalid_argument(kRequiresAllowFilteringMessage);
    }
    // Cassandra 4.1 filters with IN on partition key columns too (CASSANDRA-14344).
    out.is_key_range = true;
    uses_index = has_index;
  }
  size_t filter_restrictions = 0;
  bool filter_unsupported = false;
  bool not_sai = false;  // a restriction no storage-attached index answers
  if (uses_index || pk_needs_filtering) {
    filter_restrictions += partition_.size();
    for (const Restriction& r : partition_) {
      filter_unsupported |= !supported_by_index(r);
      not_sai |= !supported_by_index(r, true);
    }
  }

  // ---- clustering ----
  if (options_.selects_only_static_columns && !clustering_.empty()) {
    return Status::invalid_argument(
        "Cannot restrict clustering columns when selecting only static columns");
  }
  bool clustering_contains = false;
  for (const Restriction& r : clustering_) {
    clustering_contains = clustering_contains || r.kind == Restriction::Kind::kContains;
  }
  if (clustering_contains && !has_index && !allow_filtering) {
    return Status::invalid_argument(
        "Clustering columns can only be restricted with CONTAINS with a secondary index or "
        "filtering");
  }
  const bool clustering_filtering = !clustering_.empty() && clustering_needs_filtering();
  if (clustering_filtering) {
    if (has_index) {
      uses_index = true;
    } else if (!allow_filtering) {
      std::vector<const ColumnDef*> restricted;
      for (const Restriction& r : clustering_) {
        restricted.insert(restricted.end(), r.columns.begin(), r.columns.end());
      }
      std::sort(restricted.begin(), restricted.end(),
                [](const ColumnDef* a, const ColumnDef* b) { return a->position < b->position; });
      const std::vector<const ColumnDef*>& clustering_columns = table_.clustering();
      for (size_t i = 0; i < restricted.size(); ++i) {
        if (clustering_columns[i] != restricted[i]) {
          return Status::invalid_argument(fmt::format(
              "PRIMARY KEY column \"{}\" cannot be restricted as preceding column \"{}\" is not "
              "restricted",
              restricted[i]->name, clustering_columns[i]->name));
        }
      }
    }
  }
  if (out.is_key_range && set_supported_by_index(clustering_)) uses_index = true;
  if (uses_index || clustering_filtering) {
    filter_restrictions += clustering_.size();
    for (const Restriction& r : clustering_) {
      filter_unsupported |= !supported_by_index(r);
      not_sai |= !supported_by_index(r, true);
    }
  }

  // ---- other columns ----
  size_t contains_count = 0;
  if (!others_.empty()) {
    if (has_index) {
      uses_index = true;
    } else if (!allow_filtering) {
      return Status::invalid_argument(kRequiresAllowFilteringMessage);
    }
    filter_restrictions += others_.size();
    for (const Restriction& r : others_) {
      filter_unsupported |= !supported_by_index(r);
      not_sai |= !supported_by_index(r, true);
      contains_count += r.contains.size();
      out.non_primary_key_columns.push_back(r.columns.front());
      if (r.columns.front()->kind == schema::ColumnKind::kRegular) {
        out.has_regular_restrictions = true;
      }
    }
    out.has_non_primary_key_restrictions = true;
  }
  if (uses_index) {
    // StatementRestrictions.validateSecondaryIndexSelections.
    if (pk_has_in) {
      return Status::invalid_argument(
          "Select on indexed columns and with IN clause for the PRIMARY KEY are not supported");
    }
    if (options_.selects_only_static_columns) {
      return Status::invalid_argument(
          "Queries using 2ndary indexes don't support selecting only static columns");
    }
  }
  // SelectStatement.checkNeedsFiltering (run by the executor after its own checks): a range or
  // index query that still has to filter.
  if ((uses_index || out.is_key_range) && !allow_filtering) {
    // Storage-attached indexes answer an AND of their restrictions together (Cassandra 5.0's
    // index query plan); a legacy index answers one and filters the rest.
    if (filter_unsupported || (not_sai && (filter_restrictions > 1 || contains_count > 1)) ||
        (filter_restrictions == 0 && !clustering_.empty())) {
      out.requires_allow_filtering = true;
    }
  }
  out.uses_secondary_index = uses_index;
  out.partition_key_has_in = pk_has_in;
  out.has_partition_key_restrictions = !partition_.empty() || token_.has_value();
  out.has_clustering_restrictions = !clustering_.empty();

  for (const auto* set : {&partition_, &clustering_, &others_}) {
    for (const Restriction& r : *set) {
      add_predicates(r, out);
      if (r.kind == Restriction::Kind::kEq) {
        for (const ColumnDef* c : r.columns) out.eq_restricted.insert(c);
      }
    }
  }

  if (token_) {
    storage::TokenRange range;
    // Cassandra reads the minimum token as "no bound"; murmur3 never produces it.
    if (token_->token_start && *token_->token_start != INT64_MIN) {
      range.start = token_->token_start;
      range.start_inclusive = token_->start_inclusive;
    }
    if (token_->token_end && *token_->token_end != INT64_MIN) {
      range.end = token_->token_end;
      range.end_inclusive = token_->end_inclusive;
    }
    out.token_range = range;
  }
  // With a null value the statement fails when the executor reports it; no keys to build.
  if (!deferred_bind_error_.is_ok()) return Status::ok();
  if (!out.is_key_range) CASSETTE_RETURN_IF_ERROR(compute_partition_keys(out));
  return compute_clustering_ranges(out);
}

}  // namespace restrictions_internal

Result<SelectRestrictions> analyze_restrictions(const schema::TableDef& table,
                                                const std::vector<Relation>& where,
                                                const RestrictionOptions& options,
                                                const ExecutionContext& context) {
  restrictions_internal::Analyzer analyzer(table, options, context);
  return analyzer.run(where);
}

}  // namespace cassette::cql
