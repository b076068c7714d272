// Internals of the WHERE-clause analysis (restrictions.h), shared by its three files:
// restrictions.cc (relations to restrictions, validation), restriction_merge.cc (merging
// restrictions on the same columns) and restriction_access_path.cc (partition keys, clustering
// ranges and row predicates from the merged restrictions).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/cql/restrictions.h"

namespace cassette::cql::restrictions_internal {

using schema::ColumnDef;
using schema::TableDef;

// One merged restriction on one column, several clustering columns, or the token.
struct Restriction {
  enum class Kind { kEq, kIn, kSlice, kContains };
  Kind kind = Kind::kEq;
  std::vector<const ColumnDef*> columns;
  bool multi = false;
  std::vector<std::vector<std::string>> values;  // kEq: one tuple; kIn: the tuples
  std::optional<std::vector<std::string>> start;
  bool start_inclusive = false;
  std::optional<std::vector<std::string>> end;
  bool end_inclusive = false;
  std::vector<RowPredicate> contains;  // kContains: CONTAINS / CONTAINS KEY / map entries
  // The token restriction's bounds (the values above hold nothing for it).
  std::optional<int64_t> token_start;
  std::optional<int64_t> token_end;

  int first_position() const { return columns.front()->position; }
  int last_position() const { return columns.back()->position; }
  bool is_slice() const { return kind == Kind::kSlice; }
};

std::string join_names(const std::vector<const ColumnDef*>& columns);
// existing.mergeWith(added), with Cassandra's messages for the combinations it rejects.
Status merge_restriction(Restriction& existing, const Restriction& added);
// A term and a relation as Cassandra's toString() prints them in messages: "(1, 2)",
// "(b, c) > (1, 2)", "v != 1", "k IN (1, 2)".
std::string tuple_text(const Term& term);
std::string relation_text(const Relation& relation);
bool is_slice_operator(Operator op);
// Sets the bound a slice operator gives.
void set_slice_bound(Restriction& r, Operator op, std::vector<std::string> tuple);

class Analyzer {
 public:
  Analyzer(const TableDef& table, const RestrictionOptions& options,
           const ExecutionContext& context)
      : table_(table), options_(options), context_(context) {
    if (context.schema) indexes_ = context.schema->indexes_on(table);
  }

  Result<SelectRestrictions> run(const std::vector<Relation>& where);

 private:
  // A restriction value; a null one is recorded (defer_bind_error) and read as empty.
  Result<std::string> value_for(const Term& term, const ColumnDef& column,
                                const types::CqlType& type, std::string_view receiver,
                                std::string_view null_what = "value");
  void defer_bind_error(Status error);
  Result<std::string> key_value(const Term& term, const ColumnDef& column);
  Result<int64_t> token_value(const Term& term);
  Status add_relation(const Relation& relation);
  Status add_token_relation(const Relation& relation);
  Status add_multi_column_relation(const Relation& relation);
  Status add_single_column_relation(const Relation& relation);
  Status add_clustering(Restriction restriction);
  Status add_to(std::vector<Restriction>& set, Restriction restriction);
  // `sai_only`: by a storage-attached index (which answers several restrictions at once).
  bool supported_by_index(const Restriction& r, bool sai_only = false) const;
  bool contains_supported_by_index(const ColumnDef& column, const RowPredicate& p,
                                   bool sai_only) const;
  bool set_supported_by_index(const std::vector<Restriction>& set) const;
  bool clustering_needs_filtering() const;
  Status process(SelectRestrictions& out);
  Status compute_partition_keys(SelectRestrictions& out);
  Status compute_clustering_ranges(SelectRestrictions& out);
  void add_predicates(const Restriction& r, SelectRestrictions& out) const;

  const TableDef& table_;
  const RestrictionOptions& options_;
  const ExecutionContext& context_;
  std::vector<std::shared_ptr<const schema::IndexDef>> indexes_;

  std::vector<Restriction> partition_;  // single-column restrictions on partition key columns
  std::optional<Restriction> token_;
  std::vector<Restriction> clustering_;  // kept sorted by first column position
  std::vector<Restriction> others_;      // static and regular columns
  Status deferred_bind_error_;           // the first null value met
};

}  // namespace cassette::cql::restrictions_internal
