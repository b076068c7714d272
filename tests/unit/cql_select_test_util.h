// Helpers for the SELECT tests: a session on an in-memory store with a manual clock, rows written
// straight through the storage API (so SELECT can be tested on its own), and results printed as
// "a|b|c" strings in cqlsh's formatting.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/codec/table_codec.h"
#include "engine/storage/mutation_builder.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

// Cassandra's refusal of a query that needs ALLOW FILTERING.
inline constexpr const char* kFiltering =
    "Cannot execute this query as it might involve data filtering and thus may have unpredictable "
    "performance. If you want to execute this query despite the performance unpredictability, use "
    "ALLOW FILTERING";

class SelectFixture : public CqlFixture {
 public:
  // Writes one row of `table` (values by column name, in Cassandra's string form, "null" for
  // none) as an INSERT at `timestamp` would, with an optional TTL.
  void put(const std::string& table_name, const std::map<std::string, std::string>& values,
           int64_t timestamp = 1000, int64_t ttl = 0) {
    auto schema = session_->catalog().current().value();
    auto table = schema->find_table("ks", table_name);
    REQUIRE(table != nullptr);
    std::vector<std::string> key;
    std::vector<std::string> clustering;
    for (const schema::ColumnDef* c : table->partition_key()) key.push_back(parse(*c, values));
    for (const schema::ColumnDef* c : table->clustering()) {
      if (values.count(c->name)) clustering.push_back(parse(*c, values));
    }
    const int64_t now = clock_.now_seconds();
    storage::MutationBuilder batch;
    auto& update = batch.partition(table->table_id, cql::partition_key_bytes(key));
    storage::Row row;
    storage::Row static_row;
    bool has_row = clustering.size() == table->clustering().size();
    if (has_row) {
      row.liveness.timestamp = timestamp;
      if (ttl > 0) {
        row.liveness.ttl = ttl;
        row.liveness.local_expiration_time = now + ttl;
      }
    }
    std::vector<const schema::ColumnDef*> columns;
    for (const auto& c : table->columns) columns.push_back(&c);
    std::sort(columns.begin(), columns.end(), [](auto* a, auto* b) { return a->id < b->id; });
    for (const schema::ColumnDef* c : columns) {
      if (c->is_primary_key() || !values.count(c->name)) continue;
      storage::ColumnData data;
      data.id = c->id;
      std::string text = values.at(c->name);
      if (text == "null") {
        data.cell = storage::Cell::tombstone(timestamp, now);
      } else if (ttl > 0) {
        data.cell = storage::Cell::expiring(timestamp, ttl, now, parse(*c, values));
      } else {
        data.cell = storage::Cell::live(timestamp, parse(*c, values));
      }
      (c->is_static() ? static_row : row).columns.push_back(std::move(data));
    }
    if (!static_row.columns.empty()) update.static_row = std::move(static_row);
    if (has_row) {
      update.rows.push_back(
          {cql::clustering_key_bytes(*table, clustering).value(), std::move(row)});
    }
    REQUIRE(storage::apply_mutations(*store_, batch).is_ok());
  }

 private:
  static std::string parse(const schema::ColumnDef& c,
                           const std::map<std::string, std::string>& values) {
    auto it = values.find(c.name);
    REQUIRE_MESSAGE(it != values.end(), c.name);
    auto v = types::parse_value_string(c.type, it->second);
    REQUIRE_MESSAGE(v.is_ok(), v.status().message());
    return *v;
  }
};

}  // namespace cassette::test
