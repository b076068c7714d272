// SELECT: prepares the selection and the restrictions, checks the statement-level rules
// (DISTINCT, GROUP BY, ORDER BY, LIMIT, PER PARTITION LIMIT) with Cassandra 4.1's messages, then
// reads the partitions and rows the restrictions name, filters them, and produces the result
// rows (grouped and aggregated when the selection or GROUP BY asks for it, sorted in memory for
// ORDER BY over an IN on the partition key, and as JSON for SELECT JSON).
//
// ORDER BY with an IN on the partition key: Cassandra refuses it only for paged queries ("Cannot
// page queries with both ORDER BY and a IN restriction on the partition key; ..."); with paging
// disabled it sorts the rows in memory.
//
// Paging (StatementOptions::page_size): a page stops after its last row, and the paging state
// holds that row's position (partition key and clustering) with the rows counted so far for
// LIMIT and PER PARTITION LIMIT. The next page's read starts strictly after that position
// (query::AccessPath::resume_after), so that rows written between pages appear once if they lie
// after it and no row that existed throughout is skipped. Under GROUP BY a page ends after a
// whole group and resumes after that group's last row.
//
//   SELECT k, max(v) FROM ks.t WHERE k IN (1, 2) GROUP BY k;
#include <algorithm>

#include "engine/codec/table_codec.h"
#include "engine/cql/ann_index.h"
#include "engine/cql/column_mask.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/functions_internal.h"
#include "engine/cql/index_read.h"
#include "engine/cql/modification.h"
#include "engine/cql/restrictions.h"
#include "engine/cql/select_ann.h"
#include "engine/cql/selection.h"
#include "engine/cql/selection_internal.h"
#include "engine/cql/term.h"
#include "engine/query/query.h"
#include "engine/types/murmur3.h"
#include "engine/types/scalar.h"
#include "engine/util/coding.h"

namespace cassette::cql {

namespace {

using schema::ColumnDef;
using schema::TableDef;

struct Limits {
  std::optional<int64_t> limit;
  std::optional<int64_t> per_partition;
};

Result<std::optional<int64_t>> evaluate_limit(const TermPtr& term, std::string_view receiver,
                                              std::string_view null_name, std::string_view keyword,
                                              const ExecutionContext& context) {
  if (!term) return std::optional<int64_t>();
  CASSETTE_ASSIGN_OR_RETURN(
      types::Value v,
      evaluate_term(*term, types::CqlType::simple(types::TypeKind::kInt), receiver, context));
  if (!v) return Status::invalid_argument(fmt::format("Invalid null value of {}", null_name));
  const auto n = static_cast<int32_t>(types::read_unsigned(*v));
  if (n <= 0) return Status::invalid_argument(fmt::format("{} must be strictly positive", keyword));
  return std::optional<int64_t>(n);
}

// Where a paged read stopped, and what it had counted: the opaque paging state.
struct PageState {
  query::ReadPosition position;  // the last row returned (GROUP BY: of the last group)
  int64_t rows_returned = 0;     // over every page so far, for LIMIT
  int64_t partition_rows = 0;    // in position's partition, for PER PARTITION LIMIT and DISTINCT
};

constexpr uint8_t kPageStateVersion = 1;

std::string encode_page_state(const PageState& state) {
  std::string out(1, static_cast<char>(kPageStateVersion));
  coding::put_length_prefixed(&out, state.position.partition_key);
  coding::put_length_prefixed(&out, state.position.clustering);
  out.push_back(state.position.static_only ? 1 : 0);
  coding::put_varint64(&out, static_cast<uint64_t>(state.rows_returned));
  coding::put_varint64(&out, static_cast<uint64_t>(state.partition_rows));
  return out;
}

Result<PageState> decode_page_state(std::string_view in) {
  PageState state;
  uint8_t version = 0, static_only = 0;
  std::string_view partition_key, clustering;
  uint64_t rows_returned = 0, partition_rows = 0;
  if (!coding::get_byte(&in, &version) || version != kPageStateVersion ||
      !coding::get_length_prefixed(&in, &partition_key) ||
      !coding::get_length_prefixed(&in, &clustering) || !coding::get_byte(&in, &static_only) ||
      static_only > 1 || !coding::get_varint64(&in, &rows_returned) ||
      !coding::get_varint64(&in, &partition_rows) || !in.empty()) {
    return Status::invalid_argument("Invalid value for the paging state");
  }
  state.position = {std::string(partition_key), std::string(clustering), static_only == 1};
  state.rows_returned = static_cast<int64_t>(rows_returned);
  state.partition_rows = static_cast<int64_t>(partition_rows);
  return state;
}

// A read's paging: the page size (nullopt: unpaged) and where it resumes.
struct Paging {
  std::optional<int64_t> page_size;
  std::optional<PageState> resume;
};

// The plan the checks produce, for the read loop.
struct SelectPlan {
  const TableDef* table = nullptr;
  SelectRestrictions restrictions;
  bool reversed = false;
  size_t group_clustering_prefix = 0;  // GROUP BY: clustering columns in the group key
  bool grouped = false;                // GROUP BY given
  // GROUP BY ..., floor(t, 5m): the function, prepared as a one-selector selection; its value
  // stands for its clustering column (the last of the group key) in the group key.
  std::shared_ptr<const Selection> group_function;
  bool aggregate_everything = false;  // aggregates without GROUP BY
  bool distinct = false;
  Limits limits;
  bool emit_static_only = true;
  std::vector<std::pair<const ColumnDef*, bool>> ordering;  // ORDER BY (column, descending)
  bool sort_in_memory = false;
};

Status check_distinct(const SelectStatement& statement, const Selection& selection,
                      const SelectRestrictions& restrictions, const TableDef& table) {
  if (statement.per_partition_limit) {
    return Status::invalid_argument(
        "PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries");
  }
  bool non_pk_static_only = true;
  for (const ColumnDef* c : restrictions.non_primary_key_columns) {
    non_pk_static_only = non_pk_static_only && c->is_static();
  }
  // 5.0's StatementRestrictions adds an ORDER BY ... ANN OF as a restriction on the vector
  // column, which validateDistinctSelection then counts like any other.
  bool ann_on_regular = false;
  for (const OrderingClause& o : statement.order_by) {
    const ColumnDef* c = o.ann_of != nullptr ? table.find_column(o.column) : nullptr;
    ann_on_regular = ann_on_regular || (c != nullptr && !c->is_static());
  }
  if (restrictions.has_clustering_restrictions || ann_on_regular ||
      (restrictions.has_non_primary_key_restrictions && !non_pk_static_only)) {
    return Status::invalid_argument(
        "SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or "
        "static columns.");
  }
  for (const ColumnDef* c : selection.referenced_columns()) {
    if (c->kind != schema::ColumnKind::kPartitionKey && !c->is_static()) {
      return Status::invalid_argument(fmt::format(
          "SELECT DISTINCT queries must only request partition key columns and/or static columns "
          "(not {})",
          c->name));
    }
  }
  if (restrictions.is_key_range) {
    const auto& referenced = selection.referenced_columns();
    for (const ColumnDef* c : table.partition_key()) {
      if (std::find(referenced.begin(), referenced.end(), c) == referenced.end()) {
        return Status::invalid_argument(fmt::format(
            "SELECT DISTINCT queries must request all the partition key columns (missing {})",
            c->name));
      }
    }
  }
  return Status::ok();
}

// Whether a bind marker is written inside `selector` (GROUP BY floor(t, ?)).
bool has_bind_marker(const Selector& selector) {
  auto in_term = [](const Term& term, const auto& self) -> bool {
    if (term.kind == Term::Kind::kBindMarker) return true;
    for (const TermPtr& e : term.elements)
      if (e && self(*e, self)) return true;
    for (const auto& [k, v] : term.entries)
      if ((k && self(*k, self)) || (v && self(*v, self))) return true;
    for (const auto& [name, v] : term.fields)
      if (v && self(*v, self)) return true;
    return false;
  };
  for (const TermPtr& t : {selector.term, selector.key, selector.key_end})
    if (t && in_term(*t, in_term)) return true;
  for (const SelectorPtr& a : selector.arguments)
    if (a && has_bind_marker(*a)) return true;
  return false;
}

// The native functions Cassandra declares monotonic (ScalarFunction.isMonotonic /
// isPartialApplicationMonotonic): floor in its first argument, the time conversions in theirs.
bool monotonic_in_first_argument(std::string_view name) {
  if (name.starts_with("system.")) name.remove_prefix(7);
  for (std::string_view f : {"floor", "todate", "to_date", "totimestamp", "to_timestamp",
                             "tounixtimestamp", "to_unix_timestamp"}) {
    if (name == f) return true;
  }
  return false;
}

// Selector.validateForGroupBy: columns, and monotonic functions of one non-constant argument.
// The function is named as the partial application Cassandra builds of it prints itself
// ("system.floor : (timestamp, duration(constant), timestamp) -> timestamp").
Status validate_for_group_by(const SelectorNode& node) {
  if (node.kind == SelectorNode::Kind::kColumn) return Status::ok();
  if (node.kind != SelectorNode::Kind::kScalar || node.function == nullptr) {
    return Status::invalid_argument(
        "Only column names and monotonic scalar functions are supported in the GROUP BY clause.");
  }
  const ScalarFunction& f = *node.function;
  bool monotonic = monotonic_in_first_argument(f.name);
  for (size_t i = 1; i < node.args.size(); ++i) {
    monotonic = monotonic && node.args[i]->kind == SelectorNode::Kind::kTerm;
  }
  if (!monotonic) {
    std::unique_ptr<bool[]> constant(new bool[node.args.size()]);
    for (size_t i = 0; i < node.args.size(); ++i)
      constant[i] = node.args[i]->kind == SelectorNode::Kind::kTerm;
    return Status::invalid_argument(
        fmt::format("Only monotonic functions are supported in the GROUP BY clause. Got: {} ",
                    functions_internal::signature(f, {constant.get(), node.args.size()})));
  }
  for (const auto& arg : node.args) {
    if (arg->kind != SelectorNode::Kind::kTerm)
      CASSETTE_RETURN_IF_ERROR(validate_for_group_by(*arg));
  }
  return Status::ok();
}

// GROUP BY's last element as a function of a clustering column (floor(t, 1h)): prepares it and
// returns that column, with Cassandra's messages (SelectStatement.getAggregationSpecFactory);
// validate_for_group_by checks it is monotonic.
Result<const ColumnDef*> prepare_group_function(const SelectorPtr& selector, const TableDef& table,
                                                const ExecutionContext& context, SelectPlan& plan) {
  if (selector->kind != Selector::Kind::kFunction && selector->kind != Selector::Kind::kCountStar) {
    return Status::invalid_argument(
        "Only column names and monotonic scalar functions are supported in the GROUP BY clause.");
  }
  SelectStatement single;
  single.selectors.push_back(selector);
  ExecutionContext clear = context;  // groups are of the clear values, masked or not
  clear.unmask = true;
  CASSETTE_ASSIGN_OR_RETURN(Selection selection, Selection::prepare(table, single, clear));
  const SelectorNode& node = selection.node(0);
  if (node.kind == SelectorNode::Kind::kAggregate) {
    std::string name = node.aggregate.name;
    if (name.find('.') == std::string::npos) name = "system." + name;
    return Status::invalid_argument(fmt::format(
        "Aggregate functions are not supported within the GROUP BY clause, got: {}", name));
  }
  const std::vector<const ColumnDef*>& columns = selection.referenced_columns();
  if (columns.empty()) {
    return Status::invalid_argument(
        "GROUP BY functions must have one clustering column name as parameter");
  }
  if (columns.size() > 1) {
    std::string names;
    for (const ColumnDef* c : columns) names += (names.empty() ? "" : ",") + c->name;
    return Status::invalid_argument(fmt::format(
        "GROUP BY functions accept only one clustering column as parameter, got: {}", names));
  }
  if (columns[0]->kind != schema::ColumnKind::kClustering) {
    return Status::invalid_argument(fmt::format(
        "Group by functions are only supported on clustering columns, got {}", columns[0]->name));
  }
  const ColumnDef* column = columns[0];
  plan.group_function = std::make_shared<const Selection>(std::move(selection));
  return column;
}

Status check_group_by(const SelectStatement& statement, const TableDef& table,
                      const SelectRestrictions& restrictions, const ExecutionContext& context,
                      SelectPlan& plan) {
  const std::vector<const ColumnDef*>& key = table.partition_key();
  std::vector<const ColumnDef*> primary = key;
  for (const ColumnDef* c : table.clustering()) primary.push_back(c);
  size_t next = 0;
  const char* kOrderMessage =
      "Group by currently only support groups of columns following their declared order in the "
      "PRIMARY KEY";
  for (const SelectorPtr& selector : statement.group_by) {
    const ColumnDef* def = nullptr;
    if (selector->kind == Selector::Kind::kColumn) {
      def = table.find_column(selector->column);
      if (def == nullptr)
        return Status::invalid_argument(fmt::format("Undefined column name {}", selector->column));
    }
    if (def == nullptr) {
      if (has_bind_marker(*selector))
        return Status::invalid_argument("Bind markers are not supported in GROUP BY functions");
      CASSETTE_ASSIGN_OR_RETURN(def, prepare_group_function(selector, table, context, plan));
    } else {
      if (!def->is_primary_key()) {
        return Status::invalid_argument(fmt::format(
            "Group by is currently only supported on the columns of the PRIMARY KEY, got {}",
            def->name));
      }
      if (plan.group_function) {
        return Status::invalid_argument(
            "Functions are only supported on the last element of the GROUP BY clause");
      }
    }
    while (true) {
      if (next >= primary.size()) return Status::invalid_argument(kOrderMessage);
      const ColumnDef* pk = primary[next++];
      if (pk->kind == schema::ColumnKind::kClustering) ++plan.group_clustering_prefix;
      if (pk == def) break;
      if (!restrictions.eq_restricted.count(pk)) return Status::invalid_argument(kOrderMessage);
    }
  }
  if (next < primary.size() && primary[next]->kind == schema::ColumnKind::kPartitionKey) {
    return Status::invalid_argument(
        "Group by is not supported on only a part of the partition key");
  }
  if (plan.group_clustering_prefix > 0 && statement.distinct) {
    return Status::invalid_argument(
        "Grouping on clustering columns is not allowed for SELECT DISTINCT queries");
  }
  // Cassandra checks the function only when it runs the statement (AggregationSpecification's
  // factory), after every other GROUP BY rule.
  if (plan.group_function) {
    CASSETTE_RETURN_IF_ERROR(validate_for_group_by(plan.group_function->node(0)));
  }
  plan.grouped = true;
  return Status::ok();
}

Status check_order_by(const SelectStatement& statement, const TableDef& table,
                      const SelectRestrictions& restrictions, SelectPlan& plan) {
  for (const OrderingClause& o : statement.order_by) {
    // Cassandra 5.0 binds an ordering with getExistingColumn ("... in table ks.t")
    CASSETTE_ASSIGN_OR_RETURN(const ColumnDef* def, existing_column(table, o.column));
    plan.ordering.emplace_back(def, o.descending);
  }
  if (restrictions.uses_secondary_index) {
    return Status::invalid_argument("ORDER BY with 2ndary indexes is not supported.");
  }
  if (restrictions.is_key_range) {
    return Status::invalid_argument(
        "ORDER BY is only supported when the partition key is restricted by an EQ or an IN.");
  }
  const std::vector<const ColumnDef*>& clustering = table.clustering();
  std::optional<bool> reversed;
  size_t i = 0;
  for (const auto& [def, descending] : plan.ordering) {
    if (def->kind != schema::ColumnKind::kClustering) {
      return Status::invalid_argument(fmt::format(
          "Order by is currently only supported on the clustered columns of the PRIMARY KEY, got "
          "{}",
          def->name));
    }
    while (i != static_cast<size_t>(def->position)) {
      if (i >= clustering.size() || !restrictions.eq_restricted.count(clustering[i++])) {
        return Status::invalid_argument(
            "Order by currently only supports the ordering of columns following their declared "
            "order in the PRIMARY KEY");
      }
    }
    ++i;
    bool r = descending != def->descending;
    if (reversed && *reversed != r)
      return Status::invalid_argument("Unsupported order by relation");
    reversed = r;
  }
  plan.reversed = reversed.value_or(false);
  plan.sort_in_memory = restrictions.partition_key_has_in && restrictions.partition_keys &&
                        restrictions.partition_keys->size() > 1;
  return Status::ok();
}

// The WHERE clause's predicates as the read's filter. It loads the columns the statement uses
// (the key columns, the selected ones and those of the predicates; the others stay null) into
// `values`, where the selection reads them once the row is returned.
class PredicateFilter final : public query::RowFilter {
 public:
  PredicateFilter(const TableDef& table, const std::vector<RowPredicate>& predicates,
                  const std::vector<const ColumnDef*>& selected, const ExecutionContext& context)
      : table_(table), predicates_(predicates), context_(context), values_(table.columns.size()) {
    std::vector<bool> used(table.columns.size(), false);
    auto use = [&](const ColumnDef* c) {
      used[static_cast<size_t>(c - table.columns.data())] = true;
    };
    for (const ColumnDef* c : table.layout().partition_key) use(c);
    for (const ColumnDef* c : table.layout().clustering) use(c);  // GROUP BY's key
    for (const ColumnDef* c : selected) use(c);
    for (const RowPredicate& p : predicates) {
      for (const ColumnDef* c : p.columns) use(c);
    }
    for (size_t i = 0; i < used.size(); ++i) {
      if (used[i]) loaded_.push_back(i);
    }
  }

  Result<bool> matches(query::QueryCursor& row) override {
    CASSETTE_RETURN_IF_ERROR(context_.check_interrupt());
    for (size_t i : loaded_) {
      std::optional<std::string_view> v = row.value(i);
      values_[i] = v ? types::Value(std::string(*v)) : types::Value();
    }
    CASSETTE_RETURN_IF_ERROR(row.status());  // a clustering key that does not decode
    for (const RowPredicate& p : predicates_) {
      if (!row_matches(p, table_, values_)) return false;
    }
    return true;
  }
  const RowValues& values() const { return values_; }

 private:
  const TableDef& table_;
  const std::vector<RowPredicate>& predicates_;
  const ExecutionContext& context_;
  std::vector<size_t> loaded_;  // the columns read into values_, by index in TableDef::columns
  RowValues values_;
};

// The read as an access path of engine/query, read by the cursor the SQL hosts use: CQL's
// partitions in key-value order (not reversed by ORDER BY), its static-only rule, a scan's
// ranges as one hull, and the predicates as the filter.
Result<std::unique_ptr<query::QueryCursor>> open_rows(
    const SelectPlan& plan, std::shared_ptr<const TableDef> table,
    std::shared_ptr<PredicateFilter> filter, const std::optional<query::ReadPosition>& resume,
    const ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot,
                            context.read_snapshot(*table));
  const SelectRestrictions& r = plan.restrictions;
  query::AccessPath path;
  // A scan an index answers reads the candidate partitions only, and in them the candidate
  // rows by key (index_read.h).
  std::optional<std::vector<storage::SaiPartitionCandidates>> indexed;
  if (!r.partition_keys) {
    if (std::optional<IndexRead> read = choose_index_read(*table, r, context)) {
      CASSETTE_ASSIGN_OR_RETURN(
          indexed, storage::sai_candidate_rows(*snapshot, table->table_id, read->component,
                                               read->column, read->ranges, r.token_range));
    }
  }
  if (indexed && resume && std::none_of(indexed->begin(), indexed->end(), [&](const auto& c) {
        return c.partition_key == resume->partition_key;
      })) {
    // The page before ended in a partition the index no longer names (its value changed since):
    // it stays in the list, in token order, for the read to resume after it (no row of it is
    // read: its rows after the position are no candidates).
    const std::string& after = resume->partition_key;
    const int64_t token = types::murmur3_token(after);
    auto at = std::find_if(indexed->begin(), indexed->end(), [&](const auto& c) {
      int64_t t = types::murmur3_token(c.partition_key);
      return t > token || (t == token && c.partition_key > after);
    });
    indexed->insert(at, {after, std::vector<std::string>()});
  }
  if (r.partition_keys) {
    path.partitions = query::AccessPath::Partitions::kKeys;
    path.keys.reserve(r.partition_keys->size());
    for (const std::string& key : *r.partition_keys) {
      path.keys.push_back({key, types::murmur3_token(key)});
    }
  } else if (indexed) {
    path.partitions = query::AccessPath::Partitions::kKeys;
    path.keys.reserve(indexed->size());
    for (storage::SaiPartitionCandidates& c : *indexed) {
      const int64_t token = types::murmur3_token(c.partition_key);
      path.keys.push_back(
          {std::move(c.partition_key), token, std::move(c.rows), std::move(c.positions)});
    }
  } else {
    path.tokens = r.token_range;
    path.scan_hull = true;
  }
  path.ranges = r.clustering_ranges;
  path.reverse_rows = plan.reversed;
  path.emit_static_only = plan.emit_static_only;
  path.filter = std::move(filter);
  if (resume) path.resume_after(*resume);
  return query::QueryCursor::open(*context.store, std::move(snapshot), std::move(table),
                                  std::move(path));
}

// What the read loop does after a row.
enum class Next { kContinue, kSkipPartition, kStop };

// The group a row belongs to under GROUP BY: its partition and clustering prefix, the last
// clustering value replaced by `function_value` under GROUP BY ..., floor(t, 5m).
std::string group_key(const std::string& partition_key, const std::vector<types::Value>& values,
                      const TableDef& table, size_t prefix, const types::Value* function_value) {
  std::string key = partition_key;
  key += '\0';
  for (const ColumnDef* c : table.clustering()) {
    const size_t position = static_cast<size_t>(c->position);
    if (position >= prefix) break;
    const types::Value& v = function_value != nullptr && position + 1 == prefix
                                ? *function_value
                                : values[static_cast<size_t>(c - table.columns.data())];
    if (!v) {
      key += "\x01";
      continue;
    }
    key += fmt::format("{}:", v->size());
    key += *v;
  }
  return key;
}

// The rows of one page (all of them when unpaged), and where the next page starts when the
// page filled up.
struct ReadResult {
  std::vector<std::vector<types::Value>> rows;
  std::optional<PageState> next_page;
};

Result<ReadResult> read_rows(SelectPlan& plan, std::shared_ptr<const TableDef> shared,
                             Selection& selection, const Paging& paging,
                             const ExecutionContext& context) {
  const TableDef& table = *plan.table;
  ReadResult result;
  std::vector<std::vector<types::Value>>& rows = result.rows;
  const bool grouping = plan.grouped || plan.aggregate_everything;
  // LIMIT counts result rows; with ORDER BY sorted in memory it applies after sorting.
  const std::optional<int64_t> limit = plan.sort_in_memory ? std::nullopt : plan.limits.limit;
  const std::optional<int64_t> per_partition = plan.limits.per_partition;
  // Aggregates without GROUP BY make one row: one page.
  const std::optional<int64_t> page_size =
      plan.aggregate_everything ? std::nullopt : paging.page_size;
  const int64_t returned_before = paging.resume ? paging.resume->rows_returned : 0;

  // A resumed read continues the counts of the partition it stopped in.
  std::string last_partition = paging.resume ? paging.resume->position.partition_key : "";
  int64_t partition_count = paging.resume ? paging.resume->partition_rows : 0;
  std::optional<Selection::Group> group;
  std::string current_group;
  std::string group_partition = last_partition;
  // Under paged GROUP BY, the last row of the group being read: where its page ends.
  query::ReadPosition previous_row;
  bool page_full = false;

  auto total = [&]() { return returned_before + static_cast<int64_t>(rows.size()); };
  auto reached_limit = [&]() { return limit && total() >= *limit; };
  auto reached_page = [&]() {
    return page_size && static_cast<int64_t>(rows.size()) >= *page_size;
  };
  auto flush_group = [&]() -> Status {
    if (!group || group->empty()) return Status::ok();
    CASSETTE_ASSIGN_OR_RETURN(auto values, group->result());
    rows.push_back(std::move(values));
    group.reset();
    return Status::ok();
  };

  auto on_row = [&](const SelectionRow& row, const RowValues& values,
                    const std::string& partition_key) -> Result<Next> {
    if (partition_key != last_partition) {
      last_partition = partition_key;
      partition_count = 0;
    }
    if (grouping) {
      if (plan.grouped) {
        std::optional<types::Value> bucket;
        if (plan.group_function) {
          CASSETTE_ASSIGN_OR_RETURN(auto out, plan.group_function->evaluate(row));
          bucket = std::move(out[0]);
        }
        std::string key = group_key(partition_key, values, table, plan.group_clustering_prefix,
                                    bucket ? &*bucket : nullptr);
        if (!group || key != current_group) {
          if (group) {
            CASSETTE_RETURN_IF_ERROR(flush_group());
            if (group_partition == partition_key) ++partition_count;
            if (reached_limit()) return Next::kStop;
            if (reached_page()) {
              page_full = true;
              return Next::kStop;
            }
          }
          if (per_partition && group_partition == partition_key &&
              partition_count >= *per_partition) {
            return Next::kSkipPartition;
          }
          current_group = key;
          group_partition = partition_key;
          group.emplace(selection);
        }
      } else if (!group) {
        group.emplace(selection);
      }
      CASSETTE_RETURN_IF_ERROR(group->add(row));
      // DISTINCT sees one row per partition, whatever the grouping.
      return plan.distinct ? Next::kSkipPartition : Next::kContinue;
    }
    // A page that ended on a DISTINCT row or at the per-partition limit resumes in its partition.
    if ((plan.distinct && partition_count > 0) ||
        (per_partition && partition_count >= *per_partition)) {
      return Next::kSkipPartition;
    }
    CASSETTE_ASSIGN_OR_RETURN(auto out, selection.evaluate(row));
    rows.push_back(std::move(out));
    ++partition_count;
    if (reached_limit()) return Next::kStop;
    if (reached_page()) {
      page_full = true;
      return Next::kStop;
    }
    if (plan.distinct) return Next::kSkipPartition;
    if (per_partition && partition_count >= *per_partition) {
      return Next::kSkipPartition;
    }
    return Next::kContinue;
  };
  auto filter = std::make_shared<PredicateFilter>(table, plan.restrictions.predicates,
                                                  selection.referenced_columns(), context);
  std::optional<query::ReadPosition> resume;
  if (paging.resume) resume = paging.resume->position;
  CASSETTE_ASSIGN_OR_RETURN(std::unique_ptr<query::QueryCursor> cursor,
                            open_rows(plan, std::move(shared), filter, resume, context));
  const bool track_previous = plan.grouped && page_size;
  while (cursor->next()) {
    SelectionRow row;
    row.values = &filter->values();
    row.row = cursor->stored_row();
    row.static_row = cursor->stored_static_row();
    row.token = cursor->token();
    row.now_seconds = context.now_seconds();
    CASSETTE_ASSIGN_OR_RETURN(Next next, on_row(row, filter->values(), cursor->partition_key()));
    if (next == Next::kStop) {
      if (page_full) {
        // A row ended the page: after it; a new group ended it: after the previous group.
        PageState state;
        state.position = plan.grouped ? std::move(previous_row) : cursor->position();
        state.rows_returned = total();
        state.partition_rows = partition_count;
        if (plan.grouped && state.position.partition_key != cursor->partition_key()) {
          state.partition_rows = 0;  // the group was its partition's last
        }
        result.next_page = std::move(state);
      }
      break;
    }
    if (track_previous) previous_row = cursor->position();
    if (next == Next::kSkipPartition) cursor->skip_partition();
  }
  CASSETTE_RETURN_IF_ERROR(cursor->status());
  if (grouping && !page_full) {
    if (plan.aggregate_everything && !group) group.emplace(selection);
    if (group) {
      if (plan.aggregate_everything) {
        CASSETTE_ASSIGN_OR_RETURN(auto values, group->result());
        rows.push_back(std::move(values));
      } else if (!reached_limit()) {
        CASSETTE_RETURN_IF_ERROR(flush_group());
      }
    }
  }
  return result;
}

// ORDER BY ANN OF over the whole table (no partition or token restriction) reads the ANN
// index's candidate partitions (ann_index.h) instead of scanning: the `fetch` nearest of each
// SSTable's graph and of the memtables, re-read with the statement's restrictions and scored
// exactly by keep_nearest. When the restrictions leave fewer rows with a vector than the LIMIT
// and some source held more vectors than were fetched, it fetches 4 times as many again.
bool reads_ann_index(const SelectPlan& plan, const Paging& paging,
                     const ExecutionContext& context) {
  const storage::TokenRange& tokens = plan.restrictions.token_range;
  return context.store != nullptr && !plan.restrictions.partition_keys && !tokens.start &&
         !tokens.end && !paging.resume;
}

Result<ReadResult> read_ann_candidates(SelectPlan& plan, std::shared_ptr<const TableDef> table,
                                       Selection& selection, const Paging& paging,
                                       const ExecutionContext& context, const AnnOrdering& ann,
                                       size_t vector_index) {
  constexpr size_t kMinFetch = 40, kOverFetch = 4;  // per source: recall (bench_ann.sh)
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> snapshot,
                            context.read_snapshot(*table));
  const size_t limit = static_cast<size_t>(*plan.limits.limit);
  for (size_t fetch = std::max(kMinFetch, limit * kOverFetch);; fetch *= 4) {
    CASSETTE_ASSIGN_OR_RETURN(
        AnnCandidates candidates,
        ann_candidate_partitions(*context.store, snapshot, table, *ann.column, ann.index, ann.query,
                                 fetch, context.catalog));
    plan.restrictions.partition_keys = std::move(candidates.keys);
    CASSETTE_ASSIGN_OR_RETURN(ReadResult read, read_rows(plan, table, selection, paging, context));
    const size_t with_vector = static_cast<size_t>(std::count_if(
        read.rows.begin(), read.rows.end(), [&](const auto& row) { return !!row[vector_index]; }));
    if (candidates.complete || with_vector >= limit) return read;
  }
}

// The statement's paging, as SelectStatement.execute decides it: none without a positive page
// size, nor when the LIMIT fits in one page (GROUP BY aside). A paged ORDER BY over several
// partitions of an IN cannot be sorted in memory, and is refused.
Result<Paging> paging_of(const SelectPlan& plan, const ExecutionContext& context) {
  Paging paging;
  const StatementOptions* options = context.options;
  if (options == nullptr || !options->page_size || *options->page_size <= 0) return paging;
  const int64_t page_size = *options->page_size;
  if (!plan.grouped && plan.limits.limit && *plan.limits.limit <= page_size) return paging;
  if (plan.sort_in_memory) {
    return Status::invalid_argument(
        "Cannot page queries with both ORDER BY and a IN restriction on the partition key; you "
        "must either remove the ORDER BY or the IN and sort client side, or disable paging for "
        "this query");
  }
  paging.page_size = page_size;
  if (options->paging_state) {
    CASSETTE_ASSIGN_OR_RETURN(paging.resume, decode_page_state(*options->paging_state));
  }
  return paging;
}

}  // namespace

Result<ExecutionResult> execute_select(const SelectStatement& statement,
                                       ExecutionContext& context) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableDef> table,
                            context.resolve_table(statement.table));
  // The steps in SelectStatement.RawStatement.prepare's order, so that a statement with several
  // faults reports the one Cassandra reports: selected columns, ORDER BY columns, the WHERE
  // clause, the selectors, then DISTINCT, GROUP BY, ORDER BY and filtering rules.
  CASSETTE_ASSIGN_OR_RETURN(bool selects_only_static, Selection::check_columns(*table, statement));
  for (const OrderingClause& o : statement.order_by) {
    CASSETTE_RETURN_IF_ERROR(existing_column(*table, o.column).status());
  }
  SelectPlan plan;
  plan.table = table.get();
  plan.distinct = statement.distinct;
  RestrictionOptions options;
  options.allow_filtering = statement.allow_filtering;
  options.selects_only_static_columns = selects_only_static;
  Result<SelectRestrictions> analyzed =
      analyze_restrictions(*table, statement.where, options, context);
  const bool has_ann = std::any_of(statement.order_by.begin(), statement.order_by.end(),
                                   [](const OrderingClause& o) { return o.ann_of != nullptr; });
  if (!analyzed.is_ok() && has_ann && !options.allow_filtering) {
    // Cassandra refuses an ANN query's unindexed restrictions before it asks for ALLOW FILTERING
    RestrictionOptions filtering = options;
    filtering.allow_filtering = true;
    Result<SelectRestrictions> relaxed =
        analyze_restrictions(*table, statement.where, filtering, context);
    if (relaxed.is_ok()) {
      CASSETTE_RETURN_IF_ERROR(check_ann_restrictions(*relaxed, *table, context, true));
    }
  }
  if (!analyzed.is_ok()) return analyzed.status();
  plan.restrictions = std::move(analyzed).value();
  const SelectRestrictions& restrictions = plan.restrictions;
  CASSETTE_ASSIGN_OR_RETURN(Selection selection, Selection::prepare(*table, statement, context));

  if (statement.distinct) {
    CASSETTE_RETURN_IF_ERROR(check_distinct(statement, selection, restrictions, *table));
  }
  if (!statement.group_by.empty()) {
    CASSETTE_RETURN_IF_ERROR(check_group_by(statement, *table, restrictions, context, plan));
  } else if (selection.is_aggregate()) {
    plan.aggregate_everything = true;
    if (statement.per_partition_limit) {
      return Status::invalid_argument("PER PARTITION LIMIT is not allowed with aggregate queries.");
    }
  }
  CASSETTE_ASSIGN_OR_RETURN(std::optional<AnnOrdering> ann,
                            prepare_ann_ordering(statement, *table, context));
  CASSETTE_RETURN_IF_ERROR(check_ann_restrictions(restrictions, *table, context, ann.has_value()));
  if (!statement.order_by.empty() && !ann) {
    CASSETTE_RETURN_IF_ERROR(check_order_by(statement, *table, restrictions, plan));
  }
  if (restrictions.requires_allow_filtering) {
    return Status::invalid_argument(kRequiresAllowFilteringMessage);
  }
  // SelectStatement.checkAccess, after the statement is prepared and before it runs.
  CASSETTE_RETURN_IF_ERROR(check_masked_columns_query(context.schema.get(), *table, statement.where,
                                                      context.masked_query_user));
  // SelectStatement.getLimit serves both limits, with the same messages.
  CASSETTE_ASSIGN_OR_RETURN(plan.limits.limit,
                            evaluate_limit(statement.limit, "[limit]", "limit", "LIMIT", context));
  CASSETTE_ASSIGN_OR_RETURN(plan.limits.per_partition,
                            evaluate_limit(statement.per_partition_limit, "[per_partition_limit]",
                                           "limit", "LIMIT", context));
  CASSETTE_RETURN_IF_ERROR(restrictions.bind_error);
  if (ann) {
    // SelectStatement.execute (5.0): top-k queries are not paged, so they cannot aggregate.
    if (plan.aggregate_everything || !statement.group_by.empty()) {
      return Status::invalid_argument("Top-K queries can not be run with aggregation");
    }
    // SelectStatement.TOPK_PARTITION_LIMIT_ERROR (the index's warning lists PER PARTITION LIMIT
    // as unsupported): the nearest rows are chosen over the whole result, not per partition.
    if (plan.limits.limit && plan.limits.per_partition) {
      return Status::invalid_argument("Top-K queries do not support per-partition limits");
    }
    CASSETTE_RETURN_IF_ERROR(check_ann_limit(plan.limits.limit));
    plan.sort_in_memory = true;  // read every candidate; keep_nearest applies the LIMIT
  }

  // A partition with only static data is a result row only when the query selects whole
  // partitions (SelectStatement.queriesFullPartitions / returnStaticContentOnPartitionWithNoRows).
  plan.emit_static_only =
      !restrictions.has_clustering_restrictions && !restrictions.has_regular_restrictions;

  const size_t ann_vector_index = ann ? selection.index_of_column(*ann->column) : 0;
  std::vector<size_t> sort_indexes;
  if (plan.sort_in_memory && !ann) {
    for (const auto& [column, descending] : plan.ordering) {
      sort_indexes.push_back(selection.index_of_column(*column));
    }
  }

  CASSETTE_ASSIGN_OR_RETURN(Paging paging, paging_of(plan, context));
  ReadResult read;
  if (ann && reads_ann_index(plan, paging, context)) {
    CASSETTE_ASSIGN_OR_RETURN(
        read, read_ann_candidates(plan, table, selection, paging, context, *ann, ann_vector_index));
  } else {
    CASSETTE_ASSIGN_OR_RETURN(read, read_rows(plan, table, selection, paging, context));
  }
  std::vector<std::vector<types::Value>>& rows = read.rows;

  if (ann) {
    keep_nearest(*ann, ann_vector_index, *plan.limits.limit, &rows);
  } else if (plan.sort_in_memory) {
    // Cassandra sorts by the ordering columns in clustering order, reversed as a whole when the
    // ORDER BY reverses the clustering order.
    std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
      for (size_t i = 0; i < sort_indexes.size(); ++i) {
        const ColumnDef* column = plan.ordering[i].first;
        const types::Value& x = a[sort_indexes[i]];
        const types::Value& y = b[sort_indexes[i]];
        int c = 0;
        if (!x || !y) {
          c = x ? 1 : (y ? -1 : 0);
        } else {
          c = types::compare_values(column->type, *x, *y);
        }
        if (column->descending) c = -c;
        if (plan.reversed) c = -c;
        if (c != 0) return c < 0;
      }
      return false;
    });
    if (plan.limits.limit && static_cast<int64_t>(rows.size()) > *plan.limits.limit) {
      rows.resize(static_cast<size_t>(*plan.limits.limit));
    }
  }

  ExecutionResult result;
  result.kind = ExecutionResult::Kind::kRows;
  if (read.next_page) result.paging_state = encode_page_state(*read.next_page);
  // The client warnings Cassandra gives for aggregation over several partitions.
  if (plan.grouped || plan.aggregate_everything) {
    if (!restrictions.has_partition_key_restrictions) {
      result.warnings.push_back("Aggregation query used without partition key");
    } else if (restrictions.partition_key_has_in) {
      result.warnings.push_back(
          "Aggregation query used on multiple partition keys (IN restriction)");
    }
  }
  const size_t visible = selection.visible_count();
  if (statement.json) {
    result.rows.columns.push_back({"[json]", types::CqlType::simple(types::TypeKind::kText)});
    for (const auto& row : rows) {
      result.rows.rows.push_back({types::Value(row_to_json(selection.columns(), visible, row))});
    }
    return result;
  }
  result.rows.columns.assign(selection.columns().begin(), selection.columns().begin() + visible);
  for (auto& row : rows) {
    row.resize(visible);
    result.rows.rows.push_back(std::move(row));
  }
  return result;
}

}  // namespace cassette::cql
