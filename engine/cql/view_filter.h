// The restrictions of a materialized view's WHERE clause beyond IS NOT NULL: Cassandra 5.0 takes
// =, IN, ranges and multi-column relations on the base table's primary-key columns (with
// function calls and casts in their values; not bind markers, token() or, in its default
// configuration, restrictions of other columns), and the view holds only the base rows whose
// key satisfies them. They are analysed as a SELECT's WHERE with ALLOW FILTERING
// (restrictions.h), so CREATE MATERIALIZED VIEW reports what a SELECT would, and each base row's
// key is checked against the predicates that gives. A view keeps its clause as text
// (ViewDef::where_clause); its writes parse it again (only when it holds more than IS NOT NULL).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/cql/restrictions.h"
#include "engine/schema/schema.h"
#include "engine/util/status.h"

namespace cassette::cql {

class ViewKeyFilter {
 public:
  // The relations of `where` other than IS NOT NULL, on `base` (each on its primary-key columns:
  // the caller checks that), analysed under `schema`; evaluated values use `now_micros`.
  static Result<ViewKeyFilter> make(const schema::TableDef& base,
                                    const std::vector<Relation>& where,
                                    const schema::Schema& schema, int64_t now_micros);
  // The filter of `view` on `base`: its stored WHERE clause parsed and analysed again.
  static Result<ViewKeyFilter> of_view(const schema::TableDef& base, const schema::TableDef& view,
                                       const schema::Schema& schema, int64_t now_micros);
  // of_view, remembered for each view while its clause and its base table's definition (the same
  // object) do not change: a write pays the parse once, not per statement. Thread-safe.
  static Result<std::shared_ptr<const ViewKeyFilter>> cached_of_view(
      const std::shared_ptr<const schema::TableDef>& base, const schema::TableDef& view,
      const schema::Schema& schema, int64_t now_micros);

  bool empty() const { return predicates_.empty(); }
  // Whether the base row with these primary-key values (serialized, in key order) belongs to the
  // view. REQUIRES: `base` is the table the filter was made for (the same object).
  bool matches(const schema::TableDef& base, const std::vector<std::string>& partition,
               const std::vector<std::string>& clustering) const;

 private:
  std::vector<RowPredicate> predicates_;
};

// Whether `relation` holds a bind marker anywhere in its values.
bool has_bind_marker(const Relation& relation);

// A view's WHERE clause as system_schema.views and DESCRIBE print it: the relations joined by
// AND, each with its columns' names (after `renames`: old name -> new) quoted as CQL needs,
// Cassandra's operator and its values as written ("k IS NOT NULL AND c > 1").
std::string view_where_text(const std::vector<Relation>& where,
                            const std::map<std::string, std::string>& renames = {});

// `view`'s stored WHERE clause with base columns renamed (ALTER TABLE ... RENAME on its base
// table `base`, as Cassandra renames them in its views).
Result<std::string> renamed_view_where(const schema::TableDef& base, const schema::TableDef& view,
                                       const std::map<std::string, std::string>& renames);

}  // namespace cassette::cql
