// The abstract syntax of CQL statements, as the parser (parser.h) produces them and the
// executors consume them. It records what was written, not what it means: names are already
// case-folded (an unquoted identifier is lower-cased, a "quoted" one kept as written), literals
// keep their text and lexical kind (their type is only known once the executor finds the
// receiver), and nothing is checked against the schema yet.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/types/constant.h"
#include "engine/types/cql_type.h"

namespace cassette::cql {

// ks.name, or name alone (keyspace empty: the session's current keyspace).
struct QualifiedName {
  std::string keyspace;
  std::string name;
};

// ---- terms: values written in a statement ---------------------------------------------------

struct Term;
using TermPtr = std::shared_ptr<const Term>;

struct Term {
  enum class Kind {
    kConstant,      // constant_kind + text
    kNull,          // null
    kBindMarker,    // ? or :name, bind_index its position (executors reject unbound ones)
    kBoundValue,    // a value bound to a marker (bind_markers.h): bound_value of `type`
    kList,          // [a, b]                      elements
    kSet,           // {a, b}                      elements
    kMap,           // {k: v, ...}, and {}          entries (an empty {} may also be a set)
    kTuple,         // (a, b)                      elements
    kUserType,      // {field: v, ...}             fields (keys are identifiers)
    kFunctionCall,  // f(a, b) / ks.f(a)           function, elements are the arguments
    kTypeHint,      // (int) 3                     type + elements[0]
    kNegation,      // -x applied to a non-literal (a negative literal is a kConstant "-3")
  };
  Kind kind = Kind::kNull;
  types::ConstantKind constant_kind = types::ConstantKind::kString;
  std::string text;  // constant: as written, strings unquoted and unescaped; bind marker: name
  std::vector<TermPtr> elements;
  std::vector<std::pair<TermPtr, TermPtr>> entries;
  std::vector<std::pair<std::string, TermPtr>> fields;
  QualifiedName function;
  types::CqlType type;  // kTypeHint; a UDT is named, not resolved (see CqlType::udt_name)
  std::string source;   // the term as written in the statement, for error messages

  // kBindMarker: 0 for the statement's first marker, 1 for the next, ...
  int bind_index = -1;
  // kBoundValue: the serialized value (a bound null is a kNull term)
  std::string bound_value;
};

// ---- selectors: what a SELECT returns ---------------------------------------------------------

struct Selector;
using SelectorPtr = std::shared_ptr<const Selector>;

struct Selector {
  enum class Kind {
    kColumn,        // v
    kWritetime,     // writetime(v)            column; writetime(m['k']), writetime(u.f): also
                    //                         arguments[0], the element or field selection
    kMaxWritetime,  // maxwritetime(v)         column (Cassandra 5.0)
    kTtl,           // ttl(v)                  column (and arguments[0] as for writetime)
    kFunction,      // f(args) incl. token(), aggregates, toJson()   function + arguments
    kCountStar,     // count(*) / count(1)
    kCast,          // CAST(x AS type)         arguments[0] + type
    kFieldAccess,   // x.field                 arguments[0] + field
    kElement,  // x[key]                  arguments[0] + key  (Cassandra 4.0 collection element)
    kSlice,    // x[a..b]                 arguments[0] + key, key_end (either may be null)
    kTerm,     // a literal, e.g. SELECT 1, (int) 2, [1, 2]   term
  };
  Kind kind = Kind::kColumn;
  std::string column;
  QualifiedName function;
  std::vector<SelectorPtr> arguments;
  types::CqlType type;
  std::string field;
  TermPtr key;
  TermPtr key_end;
  TermPtr term;
  std::optional<std::string> alias;  // AS name
  std::string source;                // as written, for messages
  // (x), ((x)): pairs of parentheses written around it; its column name keeps them, as
  // Cassandra's: SELECT (c - b) / a names its column "(c - b) / a".
  int parentheses = 0;
};

// ---- WHERE relations and IF conditions ----------------------------------------------------------

enum class Operator {
  kEq,           // =
  kNeq,          // !=
  kLt,           // <
  kLte,          // <=
  kGt,           // >
  kGte,          // >=
  kIn,           // IN
  kContains,     // CONTAINS
  kContainsKey,  // CONTAINS KEY
  kIsNotNull,    // IS NOT NULL
  kLike,         // LIKE
  kNotIn,        // NOT IN (Cassandra 5.0)
};

// The operator as CQL writes it, for error messages ("IS NOT" for IS NOT NULL, as Cassandra's).
constexpr std::string_view operator_text(Operator op) {
  switch (op) {
    case Operator::kEq:
      return "=";
    case Operator::kNeq:
      return "!=";
    case Operator::kLt:
      return "<";
    case Operator::kLte:
      return "<=";
    case Operator::kGt:
      return ">";
    case Operator::kGte:
      return ">=";
    case Operator::kIn:
      return "IN";
    case Operator::kContains:
      return "CONTAINS";
    case Operator::kContainsKey:
      return "CONTAINS KEY";
    case Operator::kIsNotNull:
      return "IS NOT";
    case Operator::kLike:
      return "LIKE";
    case Operator::kNotIn:
      return "NOT IN";
  }
  return "?";
}

struct Relation {
  enum class Kind {
    kSingleColumn,  // c op value, c IN (...), c CONTAINS v, m[k] = v (key set)
    kMultiColumn,   // (a, b) op (1, 2), (a, b) IN ((1, 2), (3, 4)), (a, b) IN ?
    kToken,         // token(a, b) op value
  };
  Kind kind = Kind::kSingleColumn;
  std::vector<std::string> columns;  // one for kSingleColumn; the list for the others
  Operator op = Operator::kEq;
  TermPtr value;                   // the right side (for kMultiColumn a kTuple term)
  std::vector<TermPtr> in_values;  // IN (a, b, ...): each a term (tuples for kMultiColumn)
  bool in_marker = false;          // IN ? / IN :name: `value` holds the bind marker
  TermPtr map_key;                 // m[k] = v
  std::string source;
};

// IF conditions: IF EXISTS, IF NOT EXISTS, or IF c op v AND ...
struct Condition {
  std::string column;
  TermPtr element;    // c[k] op v
  std::string field;  // c.f op v
  Operator op = Operator::kEq;
  TermPtr value;
  std::vector<TermPtr> in_values;
  std::string source;
};

// ---- DML ----------------------------------------------------------------------------------------

struct UsingClause {
  TermPtr ttl;        // USING TTL n
  TermPtr timestamp;  // USING TIMESTAMP n
};

struct InsertStatement {
  QualifiedName table;
  std::vector<std::string> columns;  // INSERT ... (a, b) VALUES (...)
  std::vector<TermPtr> values;
  bool json = false;  // INSERT JSON '...'
  TermPtr json_value;
  bool json_default_unset = false;  // DEFAULT UNSET (DEFAULT NULL is the default)
  bool if_not_exists = false;
  UsingClause using_clause;
};

struct Assignment {
  enum class Kind {
    kSet,         // c = v
    kSetElement,  // c[k] = v      (list index or map key)
    kSetField,    // c.f = v       (non-frozen UDT field)
    kAdd,         // c = c + v     (counter, list append, set/map add); also c += v
    kPrepend,     // c = v + c     (list prepend)
    kSubtract,    // c = c - v     (counter, list/set element removal, map key removal); c -= v
  };
  Kind kind = Kind::kSet;
  std::string column;
  TermPtr key;        // kSetElement
  std::string field;  // kSetField
  TermPtr value;
  std::string source;
};

struct UpdateStatement {
  QualifiedName table;
  UsingClause using_clause;
  std::vector<Assignment> assignments;
  std::vector<Relation> where;
  bool if_exists = false;
  std::vector<Condition> conditions;
};

// DELETE a, b[k], c.f FROM t ... : what to delete from the matched rows (empty: the rows).
struct DeleteTarget {
  std::string column;
  TermPtr element;    // b[k]: list index, map key, set element
  std::string field;  // c.f
  std::string source;
};

struct DeleteStatement {
  QualifiedName table;
  std::vector<DeleteTarget> targets;
  UsingClause using_clause;  // only TIMESTAMP is valid (TTL is a syntax error in Cassandra)
  std::vector<Relation> where;
  bool if_exists = false;
  std::vector<Condition> conditions;
};

struct BatchStatement {
  enum class Type { kLogged, kUnlogged, kCounter };
  Type type = Type::kLogged;
  UsingClause using_clause;
  std::vector<std::variant<InsertStatement, UpdateStatement, DeleteStatement>> statements;
};

struct OrderingClause {
  std::string column;
  bool descending = false;
  TermPtr ann_of;  // ORDER BY column ANN OF <vector>: nearest first (Cassandra 5.0)
};

struct SelectStatement {
  QualifiedName table;
  bool json = false;
  bool distinct = false;
  std::vector<SelectorPtr> selectors;  // empty: SELECT *
  std::vector<Relation> where;
  std::vector<SelectorPtr> group_by;  // columns, or a function of one (floor(t, 1h))
  std::vector<OrderingClause> order_by;
  TermPtr per_partition_limit;
  TermPtr limit;
  bool allow_filtering = false;
};

// ---- DDL ----------------------------------------------------------------------------------------

// A WITH option's value: a constant (its lexical kind kept), or a map literal of constants
// ({'class': 'SimpleStrategy', 'replication_factor': 1}).
struct PropertyValue {
  bool is_map = false;
  types::ConstantKind constant_kind = types::ConstantKind::kString;
  std::string text;
  std::vector<std::pair<std::string, std::string>> map;  // map keys/values as written (unquoted)
};

// WITH a = x AND b = {...} AND CLUSTERING ORDER BY (c DESC) AND COMPACT STORAGE
struct TableProperties {
  std::vector<std::pair<std::string, PropertyValue>> properties;  // names lower-cased
  std::vector<OrderingClause> clustering_order;
  bool compact_storage = false;
};

struct CreateKeyspaceStatement {
  std::string keyspace;
  bool if_not_exists = false;
  std::vector<std::pair<std::string, PropertyValue>> properties;  // replication, durable_writes
};

struct AlterKeyspaceStatement {
  std::string keyspace;
  bool if_exists = false;
  std::vector<std::pair<std::string, PropertyValue>> properties;
};

struct DropKeyspaceStatement {
  std::string keyspace;
  bool if_exists = false;
};

// MASKED WITH f(args) / MASKED WITH DEFAULT (mask_default()): a column mask (Cassandra 5.0's
// dynamic data masking). The masked column is the function's implicit first argument.
struct ColumnMaskClause {
  QualifiedName function;
  std::vector<TermPtr> arguments;  // the partial arguments, after the column's value
  std::string source;
};

struct ColumnDefinition {
  std::string name;
  types::CqlType type;  // UDTs named, not resolved
  bool is_static = false;
  bool primary_key = false;  // `k int PRIMARY KEY`
  std::optional<ColumnMaskClause> mask;
};

struct CreateTableStatement {
  QualifiedName table;
  bool if_not_exists = false;
  std::vector<ColumnDefinition> columns;
  // PRIMARY KEY ((a, b), c, d): partition_key {a, b}, clustering {c, d}. Empty when the key is
  // given inline on a column.
  std::vector<std::string> partition_key;
  std::vector<std::string> clustering;
  int primary_key_clauses = 0;  // how many PRIMARY KEY declarations were written (>1 is an error)
  TableProperties properties;
};

struct AlterTableStatement {
  // kMask: ALTER c MASKED WITH f(...) (added[0].mask set) / ALTER c DROP MASKED (unset)
  enum class Kind { kAdd, kDrop, kRename, kWith, kAlterColumnType, kMask };
  Kind kind = Kind::kAdd;
  QualifiedName table;
  bool if_exists = false;                 // ALTER TABLE IF EXISTS
  bool column_if_not_exists = false;      // ADD IF NOT EXISTS
  bool column_if_exists = false;          // DROP IF EXISTS / RENAME IF EXISTS
  std::vector<ColumnDefinition> added;    // kAdd; kAlterColumnType: one (name, type); kMask: one
  std::vector<std::string> dropped;       // kDrop
  std::optional<int64_t> drop_timestamp;  // DROP ... USING TIMESTAMP n
  std::vector<std::pair<std::string, std::string>> renames;  // kRename: (from, to)
  TableProperties properties;                                // kWith
};

struct DropTableStatement {
  QualifiedName table;
  bool if_exists = false;
};

// CREATE MATERIALIZED VIEW [IF NOT EXISTS] v AS SELECT ... FROM base WHERE ... PRIMARY KEY (...)
// [WITH ...]
struct CreateViewStatement {
  QualifiedName view;
  bool if_not_exists = false;
  SelectStatement select;  // selectors (empty: *), table and where; nothing else is allowed
  std::vector<std::string> partition_key;
  std::vector<std::string> clustering;
  TableProperties properties;
};

struct AlterViewStatement {
  QualifiedName view;
  bool if_exists = false;
  TableProperties properties;
};

struct DropViewStatement {
  QualifiedName view;
  bool if_exists = false;
};

struct TruncateStatement {
  QualifiedName table;
};

struct CreateIndexStatement {
  std::string name;  // empty: Cassandra's default <table>_<column>_idx
  QualifiedName table;
  bool if_not_exists = false;
  enum class Target { kValues, kKeys, kEntries, kFull };
  Target target = Target::kValues;
  bool target_written = false;  // values(c) was written, not just c
  std::string column;
  bool custom = false;  // CREATE CUSTOM INDEX ... USING 'class'
  std::string custom_class;
  std::vector<std::pair<std::string, PropertyValue>> options;
};

struct DropIndexStatement {
  QualifiedName index;
  bool if_exists = false;
};

struct CreateTypeStatement {
  QualifiedName type;
  bool if_not_exists = false;
  std::vector<std::pair<std::string, types::CqlType>> fields;
};

struct AlterTypeStatement {
  enum class Kind { kAdd, kRename, kAlterFieldType };
  Kind kind = Kind::kAdd;
  QualifiedName type;
  bool if_exists = false;
  bool field_if_not_exists = false;
  bool field_if_exists = false;  // RENAME IF EXISTS
  std::vector<std::pair<std::string, types::CqlType>> added;
  std::vector<std::pair<std::string, std::string>> renames;
};

struct DropTypeStatement {
  QualifiedName type;
  bool if_exists = false;
};

struct UseStatement {
  std::string keyspace;
};

struct DescribeStatement {
  enum class Kind {
    kKeyspaces,  // DESCRIBE KEYSPACES
    kKeyspace,   // DESCRIBE KEYSPACE [ks]  (name empty: the current keyspace)
    kTables,     // DESCRIBE TABLES
    kTable,      // DESCRIBE TABLE t / DESCRIBE COLUMNFAMILY t
    kTypes,      // DESCRIBE TYPES
    kType,       // DESCRIBE TYPE t
    kIndex,      // DESCRIBE INDEX i
    kView,       // DESCRIBE MATERIALIZED VIEW v
    kSchema,     // DESCRIBE SCHEMA / DESCRIBE FULL SCHEMA
    kName,       // DESCRIBE x: a keyspace, or else a table/type/index in the current keyspace
  };
  Kind kind = Kind::kKeyspaces;
  QualifiedName name;
  bool only = false;  // DESCRIBE ONLY KEYSPACE
  bool full = false;  // DESCRIBE FULL SCHEMA
};

using Statement =
    std::variant<SelectStatement, InsertStatement, UpdateStatement, DeleteStatement, BatchStatement,
                 UseStatement, CreateKeyspaceStatement, AlterKeyspaceStatement,
                 DropKeyspaceStatement, CreateTableStatement, AlterTableStatement,
                 DropTableStatement, TruncateStatement, CreateIndexStatement, DropIndexStatement,
                 CreateTypeStatement, AlterTypeStatement, DropTypeStatement, DescribeStatement,
                 CreateViewStatement, AlterViewStatement, DropViewStatement>;

}  // namespace cassette::cql
