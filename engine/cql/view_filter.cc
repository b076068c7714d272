#include "engine/cql/view_filter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <variant>

#include "engine/cql/execute_schema_internal.h"
#include "engine/cql/parser.h"

namespace cassette::cql {

namespace {

bool term_has_bind_marker(const TermPtr& term) {
  if (term == nullptr) return false;
  if (term->kind == Term::Kind::kBindMarker) return true;
  for (const TermPtr& e : term->elements) {
    if (term_has_bind_marker(e)) return true;
  }
  for (const auto& [k, v] : term->entries) {
    if (term_has_bind_marker(k) || term_has_bind_marker(v)) return true;
  }
  for (const auto& field : term->fields) {
    if (term_has_bind_marker(field.second)) return true;
  }
  return false;
}

// Whether a stored clause can hold more than IS NOT NULL relations: those need none of these.
bool may_restrict(std::string_view clause) {
  if (clause.find_first_of("=<>") != std::string_view::npos) return true;
  for (size_t i = 0; i + 2 < clause.size(); ++i) {
    if ((clause[i] == 'I' || clause[i] == 'i') && (clause[i + 1] == 'N' || clause[i + 1] == 'n') &&
        (i == 0 || clause[i - 1] == ' ') && (clause[i + 2] == ' ' || clause[i + 2] == '(')) {
      return true;
    }
  }
  return false;
}

// The relations of a stored clause, parsed again.
Result<std::vector<Relation>> parse_where(const schema::TableDef& base,
                                          const schema::TableDef& view) {
  const std::string text = "SELECT * FROM " + schema_internal::maybe_quote(base.keyspace) + "." +
                           schema_internal::maybe_quote(base.name) + " WHERE " +
                           view.view->where_clause;
  CASSETTE_ASSIGN_OR_RETURN(Statement statement, parse_statement(text));
  auto* select = std::get_if<SelectStatement>(&statement);
  if (select == nullptr) {
    return Status::corruption(fmt::format("materialized view {}.{}: malformed WHERE clause {}",
                                          view.keyspace, view.name, view.view->where_clause));
  }
  return std::move(select->where);
}

std::string term_text(const TermPtr& term) {
  return term == nullptr ? std::string() : term->source;
}

}  // namespace

std::string view_where_text(const std::vector<Relation>& where,
                            const std::map<std::string, std::string>& renames) {
  std::vector<std::string> parts;
  for (const Relation& relation : where) {
    std::vector<std::string> names;
    for (const std::string& column : relation.columns) {
      auto it = renames.find(column);
      names.push_back(schema_internal::maybe_quote(it == renames.end() ? column : it->second));
    }
    std::string columns = relation.kind == Relation::Kind::kMultiColumn
                              ? "(" + fmt::format("{}", fmt::join(names, ", ")) + ")"
                          : names.empty() ? std::string()
                                          : names[0];
    if (relation.op == Operator::kIsNotNull) {
      parts.push_back(columns + " IS NOT NULL");
    } else if (relation.op == Operator::kIn && relation.value == nullptr) {
      std::vector<std::string> values;
      for (const TermPtr& v : relation.in_values) values.push_back(term_text(v));
      parts.push_back(fmt::format("{} IN ({})", columns, fmt::join(values, ", ")));
    } else {
      parts.push_back(
          fmt::format("{} {} {}", columns, operator_text(relation.op), term_text(relation.value)));
    }
  }
  return fmt::format("{}", fmt::join(parts, " AND "));
}

Result<std::string> renamed_view_where(const schema::TableDef& base, const schema::TableDef& view,
                                       const std::map<std::string, std::string>& renames) {
  if (!view.view) return std::string();
  CASSETTE_ASSIGN_OR_RETURN(std::vector<Relation> where, parse_where(base, view));
  return view_where_text(where, renames);
}

bool has_bind_marker(const Relation& relation) {
  if (term_has_bind_marker(relation.value) || term_has_bind_marker(relation.map_key)) return true;
  return std::any_of(relation.in_values.begin(), relation.in_values.end(),
                     [](const TermPtr& t) { return term_has_bind_marker(t); });
}

Result<ViewKeyFilter> ViewKeyFilter::make(const schema::TableDef& base,
                                          const std::vector<Relation>& where,
                                          const schema::Schema& schema, int64_t now_micros) {
  std::vector<Relation> restrictions;
  for (const Relation& relation : where) {
    if (relation.op != Operator::kIsNotNull) restrictions.push_back(relation);
  }
  ViewKeyFilter filter;
  if (restrictions.empty()) return filter;
  ExecutionContext context;
  // Not owned: the analysis reads the schema (types, functions) only while it runs.
  context.schema =
      std::shared_ptr<const schema::Schema>(std::shared_ptr<const schema::Schema>(), &schema);
  context.keyspace = base.keyspace;
  context.now_micros = now_micros;
  RestrictionOptions options;
  options.allow_filtering = true;
  CASSETTE_ASSIGN_OR_RETURN(SelectRestrictions analysed,
                            analyze_restrictions(base, restrictions, options, context));
  CASSETTE_RETURN_IF_ERROR(analysed.bind_error);
  filter.predicates_ = std::move(analysed.predicates);
  return filter;
}

Result<ViewKeyFilter> ViewKeyFilter::of_view(const schema::TableDef& base,
                                             const schema::TableDef& view,
                                             const schema::Schema& schema, int64_t now_micros) {
  if (!view.view || !may_restrict(view.view->where_clause)) return ViewKeyFilter();
  CASSETTE_ASSIGN_OR_RETURN(std::vector<Relation> where, parse_where(base, view));
  return make(base, where, schema, now_micros);
}

Result<std::shared_ptr<const ViewKeyFilter>> ViewKeyFilter::cached_of_view(
    const std::shared_ptr<const schema::TableDef>& base, const schema::TableDef& view,
    const schema::Schema& schema, int64_t now_micros) {
  static const auto& kNone =
      *new const std::shared_ptr<const ViewKeyFilter>(std::make_shared<const ViewKeyFilter>());
  if (!view.view || !may_restrict(view.view->where_clause)) return kNone;
  struct Entry {
    std::weak_ptr<const schema::TableDef> base;  // the predicates point into it
    std::string where;
    std::shared_ptr<const ViewKeyFilter> filter;
  };
  static std::mutex mutex;
  // by the view's table id; never destroyed (writers of other threads may run until exit)
  static auto& cache = *new std::unordered_map<storage::TableId, Entry>();
  {
    std::lock_guard guard(mutex);
    auto it = cache.find(view.table_id);
    if (it != cache.end() && it->second.base.lock() == base &&
        it->second.where == view.view->where_clause) {
      return it->second.filter;
    }
  }
  CASSETTE_ASSIGN_OR_RETURN(ViewKeyFilter made, of_view(*base, view, schema, now_micros));
  auto filter = std::make_shared<const ViewKeyFilter>(std::move(made));
  std::lock_guard guard(mutex);
  cache[view.table_id] = Entry{base, view.view->where_clause, filter};
  return filter;
}

bool ViewKeyFilter::matches(const schema::TableDef& base, const std::vector<std::string>& partition,
                            const std::vector<std::string>& clustering) const {
  if (predicates_.empty()) return true;
  RowValues row(base.columns.size());
  for (size_t i = 0; i < base.columns.size(); ++i) {
    const schema::ColumnDef& column = base.columns[i];
    const auto position = static_cast<size_t>(column.position);
    if (column.kind == schema::ColumnKind::kPartitionKey && position < partition.size()) {
      row[i] = partition[position];
    } else if (column.kind == schema::ColumnKind::kClustering && position < clustering.size()) {
      row[i] = clustering[position];
    }
  }
  return std::all_of(predicates_.begin(), predicates_.end(),
                     [&](const RowPredicate& p) { return row_matches(p, base, row); });
}

}  // namespace cassette::cql
