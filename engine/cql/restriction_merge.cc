// Merging restrictions on the same columns (Cassandra's SingleRestriction.mergeWith,
// RestrictionSet.addRestriction and ClusteringColumnRestrictions.mergeWith), with the messages
// Cassandra gives for the combinations it rejects.
#include <algorithm>

#include "engine/cql/restrictions_internal.h"

namespace cassette::cql::restrictions_internal {

namespace {

std::string names_in_common(const Restriction& a, const Restriction& b) {
  std::vector<const ColumnDef*> common;
  for (const ColumnDef* c : a.columns) {
    if (std::find(b.columns.begin(), b.columns.end(), c) != b.columns.end()) common.push_back(c);
  }
  return join_names(common.empty() ? a.columns : common);
}

}  // namespace

std::string join_names(const std::vector<const ColumnDef*>& columns) {
  std::string out;
  for (const ColumnDef* c : columns) {
    if (!out.empty()) out += ", ";
    out += c->name;
  }
  return out;
}

Status merge_restriction(Restriction& existing, const Restriction& added) {
  const std::string common = names_in_common(existing, added);
  switch (existing.kind) {
    case Restriction::Kind::kEq:
      return Status::invalid_argument(fmt::format(
          "{} cannot be restricted by more than one relation if it includes an Equal", common));
    case Restriction::Kind::kIn:
      return Status::invalid_argument(fmt::format(
          "{} cannot be restricted by more than one relation if it includes a IN", common));
    case Restriction::Kind::kContains:
      if (added.kind != Restriction::Kind::kContains) {
        return Status::invalid_argument(fmt::format(
            "Collection column {} can only be restricted by CONTAINS, CONTAINS KEY, or map-entry "
            "equality",
            common));
      }
      existing.contains.insert(existing.contains.end(), added.contains.begin(),
                               added.contains.end());
      return Status::ok();
    case Restriction::Kind::kSlice:
      break;
  }
  if (added.kind != Restriction::Kind::kSlice) {
    // TokenRestriction.SliceRestriction says "Columns", single columns say "Column".
    const bool on_token = existing.token_start.has_value() || existing.token_end.has_value();
    return Status::invalid_argument(
        fmt::format("{} \"{}\" cannot be restricted by both an equality and an inequality relation",
                    on_token ? "Columns" : "Column", common));
  }
  if (existing.columns.front() != added.columns.front()) {
    const ColumnDef* later = existing.first_position() > added.first_position()
                                 ? existing.columns.front()
                                 : added.columns.front();
    return Status::invalid_argument(fmt::format(
        "Column \"{}\" cannot be restricted by two inequalities not starting with the same column",
        later->name));
  }
  bool has_start = existing.start || existing.token_start;
  bool has_end = existing.end || existing.token_end;
  bool adds_start = added.start || added.token_start;
  bool adds_end = added.end || added.token_end;
  if (has_start && adds_start) {
    return Status::invalid_argument(
        fmt::format("More than one restriction was found for the start bound on {}", common));
  }
  if (has_end && adds_end) {
    return Status::invalid_argument(
        fmt::format("More than one restriction was found for the end bound on {}", common));
  }
  if (adds_start) {
    existing.start = added.start;
    existing.token_start = added.token_start;
    existing.start_inclusive = added.start_inclusive;
  }
  if (adds_end) {
    existing.end = added.end;
    existing.token_end = added.token_end;
    existing.end_inclusive = added.end_inclusive;
  }
  if (added.columns.size() > existing.columns.size()) existing.columns = added.columns;
  return Status::ok();
}

std::string tuple_text(const Term& term) {
  if (term.kind != Term::Kind::kTuple) return term.source;
  std::string out = "(";
  for (size_t i = 0; i < term.elements.size(); ++i) {
    if (i > 0) out += ", ";
    out += tuple_text(*term.elements[i]);
  }
  return out + ")";
}

std::string relation_text(const Relation& relation) {
  std::string left;
  if (relation.kind == Relation::Kind::kSingleColumn) {
    left = relation.columns.empty() ? std::string() : relation.columns.front();
    if (relation.map_key) left += "[" + relation.map_key->source + "]";
  } else {
    for (const std::string& c : relation.columns) {
      if (!left.empty()) left += ", ";
      left += c;
    }
    left = (relation.kind == Relation::Kind::kToken ? "token(" : "(") + left + ")";
  }
  if (relation.op == Operator::kIn || relation.op == Operator::kNotIn) {
    std::string values = "(";
    if (relation.in_marker) {
      values = relation.value ? relation.value->source : "?";
    } else {
      for (size_t i = 0; i < relation.in_values.size(); ++i) {
        if (i > 0) values += ", ";
        values += tuple_text(*relation.in_values[i]);
      }
      values += ")";
    }
    return fmt::format("{} {} {}", left, operator_text(relation.op), values);
  }
  if (relation.op == Operator::kIsNotNull) return left + " IS NOT NULL";
  return fmt::format("{} {} {}", left, operator_text(relation.op),
                     relation.value ? tuple_text(*relation.value) : std::string());
}

bool is_slice_operator(Operator op) {
  return op == Operator::kLt || op == Operator::kLte || op == Operator::kGt || op == Operator::kGte;
}

// Sets the bound a slice operator gives.
void set_slice_bound(Restriction& r, Operator op, std::vector<std::string> tuple) {
  r.kind = Restriction::Kind::kSlice;
  if (op == Operator::kGt || op == Operator::kGte) {
    r.start = std::move(tuple);
    r.start_inclusive = op == Operator::kGte;
  } else {
    r.end = std::move(tuple);
    r.end_inclusive = op == Operator::kLte;
  }
}

// RestrictionSet.addRestriction: merges with a restriction on the same columns.
Status Analyzer::add_to(std::vector<Restriction>& set, Restriction restriction) {
  for (Restriction& existing : set) {
    for (const ColumnDef* c : restriction.columns) {
      if (std::find(existing.columns.begin(), existing.columns.end(), c) !=
          existing.columns.end()) {
        return merge_restriction(existing, restriction);
      }
    }
  }
  set.push_back(std::move(restriction));
  return Status::ok();
}

// ClusteringColumnRestrictions.mergeWith: merging, then the ordering checks.
Status Analyzer::add_clustering(Restriction restriction) {
  const Restriction* last = nullptr;
  for (const Restriction& r : clustering_) {
    if (last == nullptr || r.first_position() >= last->first_position()) last = &r;
  }
  std::optional<Restriction> last_copy;
  if (last) last_copy = *last;
  std::vector<const ColumnDef*> old_columns;
  for (const Restriction& r : clustering_) {
    old_columns.insert(old_columns.end(), r.columns.begin(), r.columns.end());
  }
  const ColumnDef* new_start = restriction.columns.front();
  bool new_is_slice = restriction.is_slice();
  // An index that answers the new restriction lifts the ordering rules (Cassandra checks them
  // only when the restriction has no supporting index).
  const bool new_indexed = supported_by_index(restriction);
  CASSETTE_RETURN_IF_ERROR(add_to(clustering_, std::move(restriction)));
  std::stable_sort(clustering_.begin(), clustering_.end(),
                   [](const Restriction& a, const Restriction& b) {
                     return a.first_position() < b.first_position();
                   });
  if (!last_copy || options_.allow_filtering || new_indexed) return Status::ok();
  const ColumnDef* last_start = last_copy->columns.front();
  if (last_copy->is_slice() && new_start->position > last_start->position) {
    return Status::invalid_argument(fmt::format(
        "Clustering column \"{}\" cannot be restricted (preceding column \"{}\" is restricted by "
        "a non-EQ relation)",
        new_start->name, last_start->name));
  }
  if (new_start->position < last_start->position && new_is_slice) {
    const ColumnDef* next = nullptr;
    for (const ColumnDef* c : old_columns) {
      if (c->position > new_start->position && (next == nullptr || c->position < next->position)) {
        next = c;
      }
    }
    return Status::invalid_argument(fmt::format(
        "PRIMARY KEY column \"{}\" cannot be restricted (preceding column \"{}\" is restricted by "
        "a non-EQ relation)",
        next ? next->name : last_start->name, new_start->name));
  }
  return Status::ok();
}

}  // namespace cassette::cql::restrictions_internal
