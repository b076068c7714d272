// The WHERE clause of modification statements (see modification_where.h).
#include "engine/cql/modification_where.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "engine/codec/table_codec.h"
#include "engine/cql/modification.h"
#include "engine/cql/restrictions.h"
#include "engine/cql/term.h"
#include "engine/query/access_path.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/partition_key.h"

namespace cassette::cql {

namespace {

// What the relations say about one column.
struct ColumnRestriction {
  enum class Kind { kNone, kEq, kIn, kSlice, kMultiColumn };
  Kind kind = Kind::kNone;
  std::vector<std::string> values;                // kEq: one; kIn: the list (deduplicated later)
  std::optional<std::vector<std::string>> lower;  // kSlice (several values: multi-column)
  bool lower_inclusive = false;
  std::optional<std::vector<std::string>> upper;
  bool upper_inclusive = false;
  // kMultiColumn: the relation's columns start here; tuples of values for them.
  size_t multi_width = 0;
  std::vector<std::vector<std::string>> tuples;
};

Status null_value(const schema::ColumnDef& column) {
  return Status::invalid_argument(
      fmt::format("Invalid null value in condition for column {}", column.name));
}

Result<std::string> evaluate_key_value(const Term& term, const schema::ColumnDef& column,
                                       const ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(types::Value v, evaluate_term(term, column.type, column.name, context));
  if (!v) return null_value(column);
  return std::move(*v);
}

bool is_slice(Operator op) {
  return op == Operator::kLt || op == Operator::kLte || op == Operator::kGt || op == Operator::kGte;
}

// One bound of a slice; a column may have one lower and one upper bound.
Status add_slice_bound(Operator op, std::vector<std::string> values,
                       const schema::ColumnDef& column, ColumnRestriction& r) {
  if (r.kind == ColumnRestriction::Kind::kEq || r.kind == ColumnRestriction::Kind::kIn) {
    return Status::invalid_argument(fmt::format(
        "Column \"{}\" cannot be restricted by both an equality and an inequality relation",
        column.name));
  }
  bool lower = op == Operator::kGt || op == Operator::kGte;
  bool inclusive = op == Operator::kGte || op == Operator::kLte;
  if (lower ? r.lower.has_value() : r.upper.has_value()) {
    return Status::invalid_argument(
        fmt::format("More than one restriction was found for the {} bound on {}",
                    lower ? "start" : "end", column.name));
  }
  r.kind = ColumnRestriction::Kind::kSlice;
  if (lower) {
    r.lower = std::move(values);
    r.lower_inclusive = inclusive;
  } else {
    r.upper = std::move(values);
    r.upper_inclusive = inclusive;
  }
  return Status::ok();
}

Status add_single_column(const Relation& relation, const schema::ColumnDef& column,
                         ColumnRestriction& r, const ExecutionContext& context,
                         const std::map<std::string, types::Value>* given_values) {
  const std::string& name = column.name;
  if (r.kind == ColumnRestriction::Kind::kEq) {
    return Status::invalid_argument(fmt::format(
        "{} cannot be restricted by more than one relation if it includes an Equal", name));
  }
  if (r.kind == ColumnRestriction::Kind::kIn) {
    return Status::invalid_argument(
        fmt::format("{} cannot be restricted by more than one relation if it includes a IN", name));
  }
  if (relation.op == Operator::kEq || relation.op == Operator::kIn) {
    if (r.kind == ColumnRestriction::Kind::kSlice) {
      return Status::invalid_argument(fmt::format(
          "Column \"{}\" cannot be restricted by both an equality and an inequality relation",
          name));
    }
    if (relation.op == Operator::kEq && relation.value == nullptr) {
      types::Value given;
      if (given_values != nullptr) {
        auto it = given_values->find(column.name);
        if (it != given_values->end()) given = it->second;
      }
      if (!given) return null_value(column);
      r.kind = ColumnRestriction::Kind::kEq;
      r.values.push_back(std::move(*given));
      return Status::ok();
    }
    if (relation.op == Operator::kEq) {
      CASSETTE_ASSIGN_OR_RETURN(std::string v,
                                evaluate_key_value(*relation.value, column, context));
      r.kind = ColumnRestriction::Kind::kEq;
      r.values.push_back(std::move(v));
      return Status::ok();
    }
    if (relation.in_marker) {
      return Status::invalid_argument("Bind variables are not supported (no prepared statements)");
    }
    r.kind = ColumnRestriction::Kind::kIn;
    for (const TermPtr& t : relation.in_values) {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, evaluate_key_value(*t, column, context));
      r.values.push_back(std::move(v));
    }
    return Status::ok();
  }
  if (is_slice(relation.op)) {
    CASSETTE_ASSIGN_OR_RETURN(types::Value v,
                              evaluate_term(*relation.value, column.type, column.name, context));
    if (!v) return null_value(column);
    return add_slice_bound(relation.op, {std::move(*v)}, column, r);
  }
  return unsupported_relation(relation.op, relation.source);
}

// The cartesian product of per-column value lists.
std::vector<std::vector<std::string>> product(
    const std::vector<std::vector<std::vector<std::string>>>& groups) {
  std::vector<std::vector<std::string>> out{{}};
  for (const auto& group : groups) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : out) {
      for (const auto& values : group) {
        std::vector<std::string> combined = prefix;
        combined.insert(combined.end(), values.begin(), values.end());
        next.push_back(std::move(combined));
      }
    }
    out = std::move(next);
  }
  return out;
}

std::string join_names(const std::vector<const schema::ColumnDef*>& columns) {
  std::string out;
  for (const schema::ColumnDef* c : columns) {
    if (!out.empty()) out += ", ";
    out += c->name;
  }
  return out;
}

}  // namespace

std::string_view statement_type_name(StatementType type) {
  switch (type) {
    case StatementType::kInsert:
      return "INSERT";
    case StatementType::kUpdate:
      return "UPDATE";
    case StatementType::kDelete:
      return "DELETE";
  }
  return "?";
}

Result<ModificationTargets> resolve_modification_where(
    const schema::TableDef& table, const std::vector<Relation>& relations, StatementType type,
    bool only_static, const ExecutionContext& context,
    const std::map<std::string, types::Value>* given_values) {
  std::string_view type_name = statement_type_name(type);
  const std::vector<const schema::ColumnDef*>& partition = table.partition_key();
  const std::vector<const schema::ColumnDef*>& clustering = table.clustering();
  std::map<const schema::ColumnDef*, ColumnRestriction> restrictions;
  std::vector<const schema::ColumnDef*> non_key;  // in the order they appear
  bool on_token = false;

  // 1. Each relation on its own (Cassandra's Relation.toRestriction and the merging of two
  //    restrictions of one column).
  for (const Relation& relation : relations) {
    if ((relation.op == Operator::kContains || relation.op == Operator::kContainsKey) &&
        relation.kind == Relation::Kind::kSingleColumn) {
      CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column,
                                existing_column(table, relation.columns.at(0)));
      if (relation.op == Operator::kContains && !column->type.is_collection()) {
        return Status::invalid_argument(
            fmt::format("Cannot use CONTAINS on non-collection column {}", column->name));
      }
      if (relation.op == Operator::kContainsKey && column->type.kind != types::TypeKind::kMap) {
        return Status::invalid_argument(
            fmt::format("Cannot use CONTAINS KEY on non-map column {}", column->name));
      }
      if (!column->is_primary_key()) {
        if (std::find(non_key.begin(), non_key.end(), column) == non_key.end()) {
          non_key.push_back(column);
        }
        continue;
      }
      return Status::invalid_argument(
          fmt::format("Cannot use {} with {}", type_name, operator_text(relation.op)));
    }
    if (relation.kind == Relation::Kind::kToken) {
      on_token = true;
      continue;
    }
    if (relation.kind == Relation::Kind::kMultiColumn) {
      std::vector<const schema::ColumnDef*> columns;
      for (const std::string& name : relation.columns) {
        CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column, existing_column(table, name));
        if (column->kind != schema::ColumnKind::kClustering) {
          return Status::invalid_argument(fmt::format(
              "Multi-column relations can only be applied to clustering columns but was "
              "applied to: {}",
              column->name));
        }
        if (std::find(columns.begin(), columns.end(), column) != columns.end()) {
          return Status::invalid_argument(fmt::format(
              "Column \"{}\" appeared twice in a relation: {}", column->name, relation.source));
        }
        columns.push_back(column);
      }
      for (size_t i = 1; i < columns.size(); ++i) {
        if (columns[i]->position != columns[i - 1]->position + 1) {
          return Status::invalid_argument(
              fmt::format("Clustering columns must appear in the PRIMARY KEY order in multi-column "
                          "relations: {}",
                          relation.source));
        }
      }
      if (is_slice(relation.op)) {
        if (type != StatementType::kDelete) {
          return Status::invalid_argument(
              fmt::format("Slice restrictions are not supported on the clustering columns in {} "
                          "statements",
                          type_name));
        }
        const Term& tuple = *relation.value;
        if (tuple.kind != Term::Kind::kTuple || tuple.elements.size() != columns.size()) {
          return Status::invalid_argument(fmt::format(
              "Expected {} elements in value tuple, but got {}: {}", columns.size(),
              tuple.kind == Term::Kind::kTuple ? tuple.elements.size() : 1, term_text(tuple)));
        }
        std::vector<std::string> values;
        for (size_t i = 0; i < columns.size(); ++i) {
          CASSETTE_ASSIGN_OR_RETURN(std::string v,
                                    evaluate_key_value(*tuple.elements[i], *columns[i], context));
          values.push_back(std::move(v));
        }
        CASSETTE_RETURN_IF_ERROR(
            add_slice_bound(relation.op, std::move(values), *columns[0], restrictions[columns[0]]));
        continue;
      }
      if (relation.op != Operator::kEq && relation.op != Operator::kIn) {
        return unsupported_relation(relation.op, relation.source);
      }
      for (const schema::ColumnDef* c : columns) {
        if (restrictions[c].kind != ColumnRestriction::Kind::kNone) {
          return Status::invalid_argument(fmt::format(
              "{} cannot be restricted by more than one relation if it includes an Equal",
              c->name));
        }
      }
      std::vector<const Term*> tuples;
      if (relation.op == Operator::kEq) {
        tuples.push_back(relation.value.get());
      } else {
        for (const TermPtr& t : relation.in_values) tuples.push_back(t.get());
      }
      ColumnRestriction r;
      r.kind = ColumnRestriction::Kind::kMultiColumn;
      r.multi_width = columns.size();
      for (const Term* tuple : tuples) {
        if (tuple->kind != Term::Kind::kTuple || tuple->elements.size() != columns.size()) {
          return Status::invalid_argument(fmt::format(
              "Expected {} elements in value tuple, but got {}: {}", columns.size(),
              tuple->kind == Term::Kind::kTuple ? tuple->elements.size() : 1, term_text(*tuple)));
        }
        std::vector<std::string> values;
        for (size_t i = 0; i < columns.size(); ++i) {
          CASSETTE_ASSIGN_OR_RETURN(std::string v,
                                    evaluate_key_value(*tuple->elements[i], *columns[i], context));
          values.push_back(std::move(v));
        }
        r.tuples.push_back(std::move(values));
      }
      restrictions[columns[0]] = std::move(r);
      for (size_t i = 1; i < columns.size(); ++i) {
        restrictions[columns[i]].kind = ColumnRestriction::Kind::kMultiColumn;
      }
      continue;
    }
    CASSETTE_ASSIGN_OR_RETURN(const schema::ColumnDef* column,
                              existing_column(table, relation.columns.at(0)));
    if (!column->is_primary_key()) {
      if (std::find(non_key.begin(), non_key.end(), column) == non_key.end()) {
        non_key.push_back(column);
      }
      continue;
    }
    CASSETTE_RETURN_IF_ERROR(
        add_single_column(relation, *column, restrictions[column], context, given_values));
  }

  // 2. The partition key.
  if (on_token) {
    return Status::invalid_argument(fmt::format(
        "The token function cannot be used in WHERE clauses for {} statements", type_name));
  }
  std::vector<const schema::ColumnDef*> missing;
  for (const schema::ColumnDef* c : partition) {
    if (restrictions[c].kind == ColumnRestriction::Kind::kNone) missing.push_back(c);
  }
  if (!missing.empty()) {
    return Status::invalid_argument(
        fmt::format("Some partition key parts are missing: {}", join_names(missing)));
  }
  for (const schema::ColumnDef* c : partition) {
    if (restrictions[c].kind == ColumnRestriction::Kind::kSlice) {
      return Status::invalid_argument(fmt::format(
          "Only EQ and IN relation are supported on the partition key (unless you use the "
          "token() function) for {} statements",
          type_name));
    }
  }

  // 3. Static-only modifications must not name rows (INSERT may, and then writes both).
  ModificationTargets targets;
  targets.clustering_column_count = clustering.size();
  for (const schema::ColumnDef* c : clustering) {
    if (restrictions[c].kind != ColumnRestriction::Kind::kNone)
      targets.clustering_restricted = true;
  }
  if (only_static && targets.clustering_restricted && type != StatementType::kInsert) {
    return Status::invalid_argument(fmt::format(
        "Invalid restrictions on clustering columns since the {} statement modifies only static "
        "columns",
        type_name));
  }

  // 4. Clustering columns: an =/IN prefix, then (DELETE only) one slice.
  bool slices_allowed = type == StatementType::kDelete;
  size_t position = 0;
  std::vector<std::vector<std::vector<std::string>>> groups;
  while (position < clustering.size()) {
    const schema::ColumnDef* c = clustering[position];
    ColumnRestriction& r = restrictions[c];
    if (r.kind == ColumnRestriction::Kind::kEq || r.kind == ColumnRestriction::Kind::kIn) {
      std::vector<std::vector<std::string>> group;
      for (const std::string& v : r.values) group.push_back({v});
      if (r.kind == ColumnRestriction::Kind::kIn) targets.clustering_has_in = true;
      groups.push_back(std::move(group));
      ++position;
    } else if (r.kind == ColumnRestriction::Kind::kMultiColumn && r.multi_width > 0) {
      if (r.tuples.size() != 1) targets.clustering_has_in = true;
      groups.push_back(r.tuples);
      position += r.multi_width;
    } else {
      break;
    }
  }
  targets.clustering_equality_columns = position;
  if (position < clustering.size() &&
      restrictions[clustering[position]].kind == ColumnRestriction::Kind::kSlice) {
    if (!slices_allowed) {
      return Status::invalid_argument(fmt::format(
          "Slice restrictions are not supported on the clustering columns in {} statements",
          type_name));
    }
    const ColumnRestriction& r = restrictions[clustering[position]];
    ClusteringSlice slice;
    slice.column = clustering[position];
    slice.lower = r.lower;
    slice.lower_inclusive = r.lower_inclusive;
    slice.upper = r.upper;
    slice.upper_inclusive = r.upper_inclusive;
    targets.slice = slice;
    for (size_t i = position + 1; i < clustering.size(); ++i) {
      if (restrictions[clustering[i]].kind != ColumnRestriction::Kind::kNone) {
        return Status::invalid_argument(fmt::format(
            "Clustering column \"{}\" cannot be restricted (preceding column \"{}\" is restricted "
            "by a non-EQ relation)",
            clustering[i]->name, clustering[position]->name));
      }
    }
  } else {
    for (size_t i = position; i < clustering.size(); ++i) {
      if (restrictions[clustering[i]].kind == ColumnRestriction::Kind::kSlice && !slices_allowed) {
        return Status::invalid_argument(fmt::format(
            "Slice restrictions are not supported on the clustering columns in {} statements",
            type_name));
      }
    }
    for (size_t i = position; i < clustering.size(); ++i) {
      if (restrictions[clustering[i]].kind != ColumnRestriction::Kind::kNone) {
        if (!slices_allowed) break;  // reported below as missing keys
        return Status::invalid_argument(fmt::format(
            "PRIMARY KEY column \"{}\" cannot be restricted as preceding column \"{}\" is not "
            "restricted",
            clustering[i]->name, clustering[position]->name));
      }
    }
  }
  if (!slices_allowed && !only_static && position < clustering.size()) {
    std::vector<const schema::ColumnDef*> unrestricted;
    for (const schema::ColumnDef* c : clustering) {
      if (restrictions[c].kind == ColumnRestriction::Kind::kNone) unrestricted.push_back(c);
    }
    if (unrestricted.empty()) unrestricted.push_back(clustering[position]);
    return Status::invalid_argument(
        fmt::format("Some clustering keys are missing: {}", join_names(unrestricted)));
  }

  // 5. Nothing else may be restricted.
  if (!non_key.empty()) {
    return Status::invalid_argument(
        fmt::format("Non PRIMARY KEY columns found in where clause: {} ", join_names(non_key)));
  }

  // The partition keys: the product of each column's values, as Cassandra orders them.
  std::vector<std::vector<std::vector<std::string>>> key_groups;
  for (const schema::ColumnDef* c : partition) {
    const ColumnRestriction& r = restrictions[c];
    if (r.kind == ColumnRestriction::Kind::kIn) targets.partition_has_in = true;
    std::vector<std::vector<std::string>> group;
    std::vector<std::string> seen;
    for (const std::string& v : r.values) {
      if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(v);
      group.push_back({v});
    }
    key_groups.push_back(std::move(group));
  }
  for (const std::vector<std::string>& components : product(key_groups)) {
    CASSETTE_RETURN_IF_ERROR(validate_partition_key_values(components));
    std::string key = partition_key_bytes(components);
    if (std::find(targets.partition_keys.begin(), targets.partition_keys.end(), key) ==
        targets.partition_keys.end()) {
      targets.partition_keys.push_back(std::move(key));
    }
  }

  // The clustering prefixes, deduplicated and in clustering order (as Cassandra's sorted set).
  targets.clustering_prefixes = product(groups);
  std::vector<std::vector<std::string>> unique;
  for (auto& prefix : targets.clustering_prefixes) {
    if (std::find(unique.begin(), unique.end(), prefix) == unique.end()) {
      unique.push_back(std::move(prefix));
    }
  }
  targets.clustering_prefixes = std::move(unique);
  for (const auto& prefix : targets.clustering_prefixes) {
    CASSETTE_RETURN_IF_ERROR(validate_clustering_values(prefix));
  }
  std::vector<std::pair<std::string, size_t>> ordered;
  for (size_t i = 0; i < targets.clustering_prefixes.size(); ++i) {
    CASSETTE_ASSIGN_OR_RETURN(std::string encoded,
                              clustering_key_bytes(table, targets.clustering_prefixes[i]));
    ordered.emplace_back(std::move(encoded), i);
  }
  std::sort(ordered.begin(), ordered.end());
  std::vector<std::vector<std::string>> sorted;
  for (const auto& [encoded, index] : ordered) sorted.push_back(targets.clustering_prefixes[index]);
  targets.clustering_prefixes = std::move(sorted);
  return targets;
}

Result<std::vector<std::string>> encoded_prefixes(const schema::TableDef& table,
                                                  const ModificationTargets& targets) {
  std::vector<std::string> out;
  for (const auto& prefix : targets.clustering_prefixes) {
    CASSETTE_ASSIGN_OR_RETURN(std::string encoded, clustering_key_bytes(table, prefix));
    out.push_back(std::move(encoded));
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> clustering_ranges(
    const schema::TableDef& table, const ModificationTargets& targets) {
  query::SliceBounds bounds;
  if (targets.slice) {
    const ClusteringSlice& slice = *targets.slice;
    bounds.descending = slice.column->descending;
    if (slice.lower) bounds.lower = query::SliceBound{*slice.lower, slice.lower_inclusive};
    if (slice.upper) bounds.upper = query::SliceBound{*slice.upper, slice.upper_inclusive};
  }
  // One range tombstone per prefix, each with its end written out.
  return query::clustering_ranges(table, targets.clustering_prefixes, &bounds,
                                  {.merge = false, .explicit_end = true});
}

}  // namespace cassette::cql
