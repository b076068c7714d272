#include "engine/cql/index_read.h"

#include "engine/schema/index_components.h"
#include "engine/types/byte_comparable.h"

namespace cassette::cql {

namespace {

std::optional<std::string> term_of(const types::CqlType& type, const std::string& value,
                                   std::string prefix = {}) {
  if (!types::encode_key_component(type, value, false, &prefix).is_ok()) return std::nullopt;
  return prefix;
}

// The term range of predicate `p` for `index`, when that index answers it.
std::optional<storage::TermRange> range_for(const RowPredicate& p, const schema::IndexDef& index,
                                            const schema::ColumnDef& column) {
  using Kind = RowPredicate::Kind;
  using Target = schema::IndexDef::Target;
  if (p.columns.size() != 1 || p.columns.front() != &column || p.values.empty() ||
      p.values[0].empty()) {
    return std::nullopt;
  }
  const types::CqlType& type = column.type;
  const uint8_t analysis = schema::sai_text_analysis(index, column);
  if (analysis != (p.kind == Kind::kEq ? p.text_analysis : 0)) return std::nullopt;
  const std::string v =
      analysis != 0 ? schema::sai_analyze(analysis, p.values[0][0]) : p.values[0][0];
  const bool multi = type.is_collection() && type.is_multi_cell();
  std::optional<std::string> term;
  switch (p.kind) {
    case Kind::kEq:
    case Kind::kLt:
    case Kind::kLte:
    case Kind::kGt:
    case Kind::kGte:
      if (multi || (index.target != Target::kValues && index.target != Target::kFull)) {
        return std::nullopt;
      }
      term = term_of(type, v);
      break;
    case Kind::kContains:
      if (!multi || index.target != Target::kValues) return std::nullopt;
      term = term_of(type.kind == types::TypeKind::kMap ? type.params[1] : type.params[0], v);
      break;
    case Kind::kContainsKey:
      if (!multi || index.target != Target::kKeys) return std::nullopt;
      term = term_of(type.params[0], v);
      break;
    case Kind::kMapEntry: {
      if (!multi || index.target != Target::kEntries || p.values[0].size() < 2) {
        return std::nullopt;
      }
      std::optional<std::string> key = term_of(type.params[0], v);
      if (!key) return std::nullopt;
      term = term_of(type.params[1], p.values[0][1], *key);
      break;
    }
    default:
      return std::nullopt;
  }
  if (!term) return std::nullopt;
  // A decimal or varint term ends with a tie-break (5E+3 and 5000 encode apart): the values equal
  // to the bound are the terms in [P, P + 0xFF), P its bytes without the tie-break, as Cassandra
  // compares them (BigDecimal.compareTo). A map entry's key keeps its tie-break.
  const types::CqlType& term_type =
      p.kind == Kind::kContains
          ? (type.kind == types::TypeKind::kMap ? type.params[1] : type.params[0])
      : p.kind == Kind::kContainsKey ? type.params[0]
                                     : type;
  if (p.kind != Kind::kMapEntry &&
      (term_type.kind == types::TypeKind::kDecimal || term_type.kind == types::TypeKind::kVarint)) {
    Result<size_t> length = types::value_order_length(term_type, *term);
    if (!length.is_ok()) return std::nullopt;
    term->resize(*length);
    storage::TermRange range;
    // An empty value is no term (see below); its encoding sorts before every other value's.
    const std::string empty_term = term_of(term_type, std::string()).value_or(std::string());
    if (*term == empty_term) {
      range.lower = range.upper = empty_term;
      range.lower_inclusive = range.upper_inclusive = false;
      return range;
    }
    if (p.kind == Kind::kLt || p.kind == Kind::kLte) {
      range.lower = empty_term;
      range.lower_inclusive = false;
    }
    switch (p.kind) {
      case Kind::kLt:
        range.upper = std::move(*term);
        range.upper_inclusive = false;
        break;
      case Kind::kGte:
        range.lower = std::move(*term);
        break;
      case Kind::kGt:
        range.lower = types::prefix_end_bound(*term);
        range.lower_inclusive = false;
        break;
      case Kind::kLte:
        range.upper = types::prefix_end_bound(*term);
        range.upper_inclusive = false;
        break;
      default:
        range.upper = types::prefix_end_bound(*term);
        range.upper_inclusive = false;
        range.lower = std::move(*term);
    }
    return range;
  }
  // An empty value of a type with ranges (an int, a uuid...) is no term (add_term): nothing
  // equals it through the index, and no range reaches it, even in an SSTable indexed before.
  const bool skips_empty = p.kind != Kind::kMapEntry && schema::sai_supports_ranges(term_type);
  const std::string empty_term = term_of(term_type, std::string()).value_or(std::string());
  if (skips_empty && *term == empty_term) {
    storage::TermRange none;
    none.lower = none.upper = empty_term;
    none.lower_inclusive = none.upper_inclusive = false;
    return none;
  }
  storage::TermRange range;
  switch (p.kind) {
    case Kind::kLt:
    case Kind::kLte:
      range.upper = std::move(*term);
      range.upper_inclusive = p.kind == Kind::kLte;
      if (skips_empty) {
        range.lower = empty_term;
        range.lower_inclusive = false;
      }
      break;
    case Kind::kGt:
    case Kind::kGte:
      range.lower = std::move(*term);
      range.lower_inclusive = p.kind == Kind::kGte;
      break;
    default:
      range = storage::TermRange::equal(std::move(*term));
  }
  return range;
}

// The terms of an IN on `column` (one equality each) when `index` answers it; none otherwise.
std::vector<storage::TermRange> in_ranges_for(const RowPredicate& p, const schema::IndexDef& index,
                                              const schema::ColumnDef& column) {
  std::vector<storage::TermRange> out;
  if (p.columns.size() != 1 || p.columns.front() != &column || p.values.empty()) return out;
  RowPredicate one = p;
  one.kind = RowPredicate::Kind::kEq;
  for (const std::vector<std::string>& value : p.values) {
    one.values = {value};
    std::optional<storage::TermRange> r = range_for(one, index, column);
    if (!r) return {};
    out.push_back(std::move(*r));
  }
  return out;
}

// An equality's range: one term, or one value's terms (a decimal's [P, P + 0xFF)).
bool is_equality(const storage::TermRange& r) {
  return r.lower && r.upper &&
         (*r.lower == *r.upper ||
          (!r.upper_inclusive && *r.upper == types::prefix_end_bound(*r.lower)));
}

}  // namespace

std::optional<IndexRead> choose_index_read(const schema::TableDef& table,
                                           const SelectRestrictions& restrictions,
                                           const ExecutionContext& context) {
  if (restrictions.partition_keys || context.schema == nullptr ||
      !restrictions.bind_error.is_ok()) {
    return std::nullopt;
  }
  std::optional<IndexRead> best;
  int best_rank = 4;  // 0: equality, 1: IN, 2: CONTAINS, 3: range
  for (const auto& index : context.schema->indexes_on(table)) {
    std::optional<schema::SaiIndex> sai = schema::sai_index(table, *index);
    if (!sai) continue;
    const schema::ColumnDef* column = table.find_column(index->column);
    std::optional<storage::TermRange> range;
    std::vector<storage::TermRange> in_ranges;
    for (const RowPredicate& p : restrictions.predicates) {
      if (p.kind == RowPredicate::Kind::kIn) {
        if (in_ranges.empty()) in_ranges = in_ranges_for(p, *index, *column);
        continue;
      }
      std::optional<storage::TermRange> r = range_for(p, *index, *column);
      if (!r) continue;
      if (!range || is_equality(*r)) {
        range = std::move(r);
      } else if (!is_equality(*range)) {
        // Both ends of a range: the tighter of each.
        if (r->lower && (!range->lower || *r->lower > *range->lower ||
                         (*r->lower == *range->lower && !r->lower_inclusive))) {
          range->lower = r->lower;
          range->lower_inclusive = r->lower_inclusive;
        }
        if (r->upper && (!range->upper || *r->upper < *range->upper ||
                         (*r->upper == *range->upper && !r->upper_inclusive))) {
          range->upper = r->upper;
          range->upper_inclusive = r->upper_inclusive;
        }
      }
      if (is_equality(*range)) break;
    }
    if (range && is_equality(*range) && !column->type.is_multi_cell()) {
      in_ranges.clear();  // an equality is read rather than an IN
    }
    if (!range && in_ranges.empty()) continue;
    int rank = !in_ranges.empty()    ? 1
               : is_equality(*range) ? (column->type.is_multi_cell() ? 2 : 0)
                                     : 3;
    if (rank < best_rank) {
      best_rank = rank;
      if (rank == 1) {
        best = IndexRead{sai->component, sai->column, std::move(in_ranges)};
      } else {
        best = IndexRead{sai->component, sai->column, {std::move(*range)}};
      }
    }
  }
  return best;
}

}  // namespace cassette::cql
