// Term evaluation (term.h) and the table codec (table_codec.h) at the function level, with
// TableDefs built by hand.
#include <doctest/doctest.h>

#include "engine/codec/table_codec.h"
#include "engine/cql/execution_context.h"
#include "engine/cql/term.h"
#include "engine/types/value.h"

namespace {

using namespace cassette;
using cql::Term;
using cql::TermPtr;
using types::ConstantKind;
using types::CqlType;
using types::TypeKind;

TermPtr constant(ConstantKind kind, std::string text) {
  auto t = std::make_shared<Term>();
  t->kind = Term::Kind::kConstant;
  t->constant_kind = kind;
  t->text = std::move(text);
  return t;
}
TermPtr integer(int v) {
  return constant(ConstantKind::kInteger, std::to_string(v));
}
TermPtr string(std::string s) {
  return constant(ConstantKind::kString, std::move(s));
}
TermPtr null_term() {
  return std::make_shared<Term>();
}
TermPtr list_of(Term::Kind kind, std::vector<TermPtr> elements) {
  auto t = std::make_shared<Term>();
  t->kind = kind;
  t->elements = std::move(elements);
  return t;
}

std::string int_bytes(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}

std::string message(const Result<types::Value>& r) {
  return r.is_ok() ? "" : r.status().message();
}

CqlType int_type() {
  return CqlType::simple(TypeKind::kInt);
}
CqlType text_type() {
  return CqlType::simple(TypeKind::kText);
}

}  // namespace

TEST_CASE("cql term: constants and null") {
  cql::ExecutionContext context;
  auto v = cql::evaluate_term(*integer(42), int_type(), "k", context);
  REQUIRE(v.is_ok());
  CHECK(*v == types::Value(int_bytes(42)));
  CHECK(message(cql::evaluate_term(*string("foo"), int_type(), "k", context)) ==
        "Invalid STRING constant (foo) for \"k\" of type int");
  CHECK(message(cql::evaluate_term(*integer(3), text_type(), "t", context)) ==
        "Invalid INTEGER constant (3) for \"t\" of type text");
  auto n = cql::evaluate_term(*null_term(), int_type(), "k", context);
  REQUIRE(n.is_ok());
  CHECK(!n->has_value());
  CHECK(message(
            cql::evaluate_term(*null_term(), CqlType::simple(TypeKind::kCounter), "c", context)) ==
        "Invalid null value for counter increment/decrement");
}

TEST_CASE("cql term: collections, tuples and their messages") {
  cql::ExecutionContext context;
  auto list = list_of(Term::Kind::kList, {integer(1), integer(2)});
  auto v = cql::evaluate_term(*list, CqlType::list(int_type()), "l", context);
  REQUIRE(v.is_ok());
  CHECK(*v ==
        types::Value(types::serialize_list(std::vector<std::string>{int_bytes(1), int_bytes(2)})));
  CHECK(message(cql::evaluate_term(*list, CqlType::set(int_type()), "s", context)) ==
        "Invalid list literal for s of type set<int>");
  auto bad = list_of(Term::Kind::kSet, {string("a")});
  CHECK(message(cql::evaluate_term(*bad, CqlType::set(int_type()), "s", context)) ==
        "Invalid set literal for s: value 'a' is not of type int");
  auto with_null = list_of(Term::Kind::kList, {integer(1), null_term()});
  CHECK(message(cql::evaluate_term(*with_null, CqlType::list(int_type()), "l", context)) ==
        "null is not supported inside collections");
  auto tuple = list_of(Term::Kind::kTuple, {integer(1), string("x"), integer(3)});
  CHECK(message(
            cql::evaluate_term(*tuple, CqlType::tuple({int_type(), text_type()}), "t", context)) ==
        "Invalid tuple literal for t: too many elements. Type frozen<tuple<int, text>> expects 2 "
        "but got 3");
  auto empty_map = std::make_shared<Term>();
  empty_map->kind = Term::Kind::kMap;
  auto s = cql::evaluate_term(*empty_map, CqlType::set(int_type()), "s", context);
  REQUIRE(s.is_ok());
  CHECK(*s == types::Value(types::serialize_set(int_type(), {})));
  CHECK(cql::term_text(*list) == "[1, 2]");
  CHECK(cql::term_text(*bad) == "{'a'}");
}

TEST_CASE("cql table codec: keys, columns and element cells") {
  schema::TableDef table;
  table.keyspace = "ks";
  table.name = "t";
  schema::ColumnDef k{"k", int_type(), schema::ColumnKind::kPartitionKey, 0, false, 1, {}};
  schema::ColumnDef c{"c", int_type(), schema::ColumnKind::kClustering, 0, true, 2, {}};
  schema::ColumnDef l{"l", CqlType::list(int_type()), schema::ColumnKind::kRegular, 0, false, 3,
                      {}};
  schema::ColumnDef s{"s", CqlType::set(int_type()), schema::ColumnKind::kRegular, 0, false, 4, {}};
  table.columns = {k, c, l, s};
  table.finalize();

  std::vector<std::string> key{int_bytes(7)};
  CHECK(cql::partition_key_bytes(key) == int_bytes(7));
  auto values = cql::partition_key_values(table, int_bytes(7));
  REQUIRE(values.is_ok());
  CHECK(*values == key);

  // DESC clustering: a larger value encodes smaller.
  auto one = cql::clustering_key_bytes(table, std::vector<std::string>{int_bytes(1)});
  auto two = cql::clustering_key_bytes(table, std::vector<std::string>{int_bytes(2)});
  REQUIRE(one.is_ok());
  REQUIRE(two.is_ok());
  CHECK(*two < *one);
  auto decoded = cql::clustering_values(table, *one);
  REQUIRE(decoded.is_ok());
  CHECK(*decoded == std::vector<std::string>{int_bytes(1)});

  // A list keeps its order through timeuuid paths; a set is read back in comparator order.
  std::string list_value =
      types::serialize_list(std::vector<std::string>{int_bytes(3), int_bytes(-1), int_bytes(2)});
  auto cells = cql::element_cells(table.columns[2], list_value, 10, 0, 0, 1'700'000'000'000'000);
  REQUIRE(cells.is_ok());
  CHECK(cells->size() == 3);
  storage::Row row;
  storage::ColumnData list_column;
  list_column.id = 3;
  list_column.complex = true;
  list_column.cells = *cells;
  row.columns.push_back(list_column);
  CHECK(cql::read_column(table.columns[2], row) == types::Value(list_value));

  std::string set_value =
      types::serialize_set(int_type(), {int_bytes(5), int_bytes(-5), int_bytes(0)});
  auto set_cells = cql::element_cells(table.columns[3], set_value, 10, 0, 0, 0);
  REQUIRE(set_cells.is_ok());
  storage::ColumnData set_column;
  set_column.id = 4;
  set_column.complex = true;
  set_column.cells = *set_cells;
  row.columns.push_back(set_column);
  CHECK(
      cql::read_column(table.columns[3], row) ==
      types::Value(types::serialize_set(int_type(), {int_bytes(-5), int_bytes(0), int_bytes(5)})));

  // writetime() and ttl() of a simple cell.
  schema::ColumnDef v{"v", int_type(), schema::ColumnKind::kRegular, 0, false, 5, {}};
  storage::Row simple;
  storage::ColumnData data;
  data.id = 5;
  data.cell = storage::Cell::expiring(123, 60, 1000, int_bytes(1));
  simple.columns.push_back(data);
  CHECK(cql::column_writetime(v, simple) == std::optional<int64_t>(123));
  CHECK(cql::column_ttl(v, simple, 1010) == std::optional<int64_t>(50));
  CHECK(cql::read_column(v, simple) == types::Value(int_bytes(1)));
}
