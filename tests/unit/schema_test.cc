// TableDef's key layout: computed once by finalize(), in key order, and owned by each copy.
#include "engine/schema/schema.h"

#include <doctest/doctest.h>

namespace cassette::schema {
namespace {

using types::CqlType;
using types::TypeKind;

ColumnDef column(std::string name, CqlType type, ColumnKind kind, int position, bool descending,
                 storage::ColumnId id) {
  return ColumnDef{std::move(name), std::move(type), kind, position, descending, id, {}};
}

// PRIMARY KEY ((k1, k2), c1, c2) WITH CLUSTERING ORDER BY (c1 DESC), the columns out of key
// order and the non-key columns out of id order.
TableDef sample_table() {
  TableDef table;
  table.keyspace = "ks";
  table.name = "t";
  const CqlType int_type = CqlType::simple(TypeKind::kInt);
  const CqlType text_type = CqlType::simple(TypeKind::kText);
  table.columns = {column("k2", text_type, ColumnKind::kPartitionKey, 1, false, 1),
                   column("k1", int_type, ColumnKind::kPartitionKey, 0, false, 0),
                   column("c2", text_type, ColumnKind::kClustering, 1, false, 3),
                   column("c1", int_type, ColumnKind::kClustering, 0, true, 2),
                   column("v", int_type, ColumnKind::kRegular, 0, false, 5),
                   column("a", text_type, ColumnKind::kRegular, 0, false, 4)};
  table.next_column_id = 6;
  table.finalize();
  return table;
}

std::vector<std::string> names(const std::vector<const ColumnDef*>& columns) {
  std::vector<std::string> out;
  for (const ColumnDef* c : columns) out.push_back(c->name);
  return out;
}

bool points_into(const TableDef& table, const std::vector<const ColumnDef*>& columns) {
  for (const ColumnDef* c : columns) {
    if (c < table.columns.data() || c >= table.columns.data() + table.columns.size()) return false;
  }
  return true;
}

TEST_CASE("schema: finalize lays out the key in key order") {
  TableDef table = sample_table();
  CHECK(names(table.partition_key()) == std::vector<std::string>{"k1", "k2"});
  CHECK(names(table.clustering()) == std::vector<std::string>{"c1", "c2"});
  const KeyLayout& layout = table.layout();
  REQUIRE(layout.clustering_types.size() == 2);
  CHECK(layout.clustering_types[0] == CqlType::simple(TypeKind::kInt));
  CHECK(layout.clustering_types[1] == CqlType::simple(TypeKind::kText));
  REQUIRE(layout.clustering_orders().size() == 2);
  CHECK(layout.clustering_orders()[0]);
  CHECK_FALSE(layout.clustering_orders()[1]);
  REQUIRE(layout.columns.size() == 6);
  CHECK(layout.columns[0].kind == ColumnKind::kPartitionKey);
  CHECK(layout.columns[0].position == 1);
  CHECK(layout.columns[5].id == 4);
  // The non-key columns v (id 5) and a (id 4), and the same in id order: a, v.
  CHECK(layout.non_key_columns == std::vector<size_t>{4, 5});
  CHECK(layout.non_key_by_id == std::vector<size_t>{1, 0});
  CHECK(layout.single_cell_rows);
  CHECK_FALSE(table.has_static_columns());
  CHECK_FALSE(table.is_counter_table());
}

TEST_CASE("schema: static, multi-cell and counter columns are in the layout") {
  TableDef table = sample_table();
  table.columns[4].kind = ColumnKind::kStatic;
  table.finalize();
  CHECK(table.has_static_columns());
  CHECK_FALSE(table.layout().single_cell_rows);

  table = sample_table();
  table.columns[5].type = CqlType::list(CqlType::simple(TypeKind::kInt));
  table.finalize();
  CHECK_FALSE(table.layout().single_cell_rows);

  table = sample_table();
  table.columns[4].type = CqlType::simple(TypeKind::kCounter);
  table.columns[5].type = CqlType::simple(TypeKind::kCounter);
  table.finalize();
  CHECK(table.is_counter_table());
  CHECK_FALSE(table.layout().single_cell_rows);
}

TEST_CASE("schema: a copy lays out its own columns, a move keeps the layout") {
  auto original = std::make_unique<TableDef>(sample_table());
  TableDef copy = *original;
  TableDef assigned;
  assigned = *original;
  CHECK(points_into(copy, copy.partition_key()));
  CHECK(points_into(copy, copy.clustering()));
  CHECK(points_into(assigned, assigned.clustering()));
  original.reset();  // the copies must not read the original's columns
  CHECK(names(copy.clustering()) == std::vector<std::string>{"c1", "c2"});
  CHECK(names(assigned.partition_key()) == std::vector<std::string>{"k1", "k2"});

  TableDef moved = std::move(copy);
  CHECK(points_into(moved, moved.clustering()));
  CHECK(names(moved.clustering()) == std::vector<std::string>{"c1", "c2"});
}

}  // namespace
}  // namespace cassette::schema
