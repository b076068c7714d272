// engine/query: the access-path planner (plan_query), the plan's text form, and the cursor that
// executes a plan against real data written through CQL.
#include <doctest/doctest.h>

#include <algorithm>

#include "engine/query/query.h"
#include "engine/storage/sai_component.h"
#include "engine/util/coding.h"
#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

namespace {

using query::AccessKind;
using query::Constraint;
using query::Operator;
using query::Plan;
using query::PlanRequest;

std::string int_value(int32_t v) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8)
    out += static_cast<char>((static_cast<uint32_t>(v) >> shift) & 0xff);
  return out;
}
std::string bigint_value(int64_t v) {
  std::string out;
  coding::put_big_endian64(&out, static_cast<uint64_t>(v));
  return out;
}

Constraint C(int column, Operator op, bool usable = true, std::optional<int64_t> count = {}) {
  Constraint c;
  c.column = column;
  c.op = op;
  c.usable = usable;
  c.known_count = count;
  return c;
}

// events(source text, hour int, ts bigint, kind text, payload text,
//        PRIMARY KEY ((source, hour), ts)) WITH CLUSTERING ORDER BY (ts DESC)
struct Fixture : CqlFixture {
  std::shared_ptr<const schema::TableDef> table;

  Fixture() {
    ok("CREATE TABLE ks.events (source text, hour int, ts bigint, kind text, payload text, "
       "PRIMARY KEY ((source, hour), ts)) WITH CLUSTERING ORDER BY (ts DESC)");
    ok("CREATE INDEX ON ks.events (kind)");
    for (const char* source : {"a", "b"}) {
      for (int hour = 0; hour < 3; ++hour) {
        for (int ts = 0; ts < 10; ++ts) {
          ok(fmt::format(
              "INSERT INTO ks.events (source, hour, ts, kind, payload) VALUES ('{}', {}, "
              "{}, '{}', 'p') USING TTL 100",
              source, hour, ts, ts % 2 ? "odd" : "even"));
        }
      }
    }
    table = session().catalog().current().value()->find_table("ks", "events");
  }
  // Runs the plan; each row as "source|hour|ts".
  std::vector<std::string> run(const Plan& plan, query::Bindings bindings) {
    auto snapshot = store().snapshot().value();
    auto cursor = query::QueryCursor::open(store(), snapshot, table, plan, std::move(bindings));
    REQUIRE_MESSAGE(cursor.is_ok(), cursor.status().message());
    std::vector<std::string> rows;
    while (cursor.value()->next()) {
      auto& c = *cursor.value();
      rows.push_back(fmt::format("{}|{}|{}", std::string(*c.value(0)), as_int(*c.value(1)),
                                 as_int(*c.value(2))));
    }
    REQUIRE(cursor.value()->status().is_ok());
    return rows;
  }
  query::TableStatistics stats() {
    return query::table_statistics(*store().snapshot().value(), *table);
  }
};

}  // namespace

TEST_CASE("query planner: partition lookups, clustering slices, order and limit") {
  Fixture f;
  query::TableStatistics stats = f.stats();
  CHECK(stats.rows == 60);

  PlanRequest request;
  request.constraints = {C(0, Operator::kEq), C(1, Operator::kEq), C(2, Operator::kLt),
                         C(-1, Operator::kLimit, true, 3)};
  request.order_by = {{2, true}};
  Plan plan = query::plan_query(*f.table, request, stats);
  CHECK(plan.access == AccessKind::kPartitions);
  CHECK(plan.order_satisfied);
  CHECK_FALSE(plan.reverse);  // ts DESC is the clustering order
  CHECK(plan.limit_consumed);
  CHECK(plan.argument_of == std::vector<int>{0, 1, 2, 3});
  CHECK(plan.encode(*f.table) == "partitions source= hour= ts< limit");
  CHECK(plan.explain(*f.table) ==
        "partition lookup on (source, hour), clustering slice on ts, limit");
  query::Bindings b;
  b.values = {{"a"}, {int_value(1)}, {bigint_value(7)}};
  b.limit = 3;
  CHECK(f.run(plan, b) == std::vector<std::string>{"a|1|6", "a|1|5", "a|1|4"});

  // A slice bounded on both sides names its column once.
  PlanRequest both;
  both.constraints = {C(0, Operator::kEq), C(1, Operator::kEq), C(2, Operator::kGt),
                      C(2, Operator::kLt)};
  Plan sliced = query::plan_query(*f.table, both, stats);
  CHECK(sliced.encode(*f.table) == "partitions source= hour= ts> ts<");
  CHECK(sliced.explain(*f.table) == "partition lookup on (source, hour), clustering slice on ts");

  // ORDER BY ts ASC: the reverse of the clustering order.
  request.order_by = {{2, false}};
  plan = query::plan_query(*f.table, request, stats);
  CHECK(plan.order_satisfied);
  CHECK(plan.reverse);
  CHECK(plan.encode(*f.table) == "partitions source= hour= ts< reverse limit");
  CHECK(f.run(plan, b) == std::vector<std::string>{"a|1|0", "a|1|1", "a|1|2"});

  // The text form decodes to the same plan.
  Plan decoded = Plan::decode(plan.encode(*f.table), *f.table).value();
  CHECK(decoded.encode(*f.table) == plan.encode(*f.table));
  CHECK(f.run(decoded, b) == std::vector<std::string>{"a|1|0", "a|1|1", "a|1|2"});
  CHECK(Plan::decode("partitions nope=", *f.table).status().message() ==
        "Malformed query plan \"partitions nope=\"");
}

TEST_CASE("query planner: the columns a host reads travel in the plan and bound the decoding") {
  Fixture f;
  f.ok("UPDATE ks.events SET payload = 'only payload' WHERE source = 'c' AND hour = 0 AND ts = 1");
  f.ok("UPDATE ks.events SET kind = 'only kind' WHERE source = 'c' AND hour = 0 AND ts = 2");
  PlanRequest request;
  request.constraints = {C(0, Operator::kEq), C(1, Operator::kEq)};
  Plan plan = query::plan_query(*f.table, request, f.stats());
  plan.value_columns = std::vector<int>{2, 3};  // ts, kind
  CHECK(plan.encode(*f.table) == "partitions source= hour= values(ts,kind)");
  Plan decoded = Plan::decode(plan.encode(*f.table), *f.table).value();
  CHECK(decoded.value_columns == plan.value_columns);
  plan.value_columns = std::vector<int>{};
  CHECK(plan.encode(*f.table) == "partitions source= hour= values()");
  CHECK(Plan::decode("scan values()", *f.table).value().value_columns == std::vector<int>{});
  CHECK_FALSE(Plan::decode("scan", *f.table).value().value_columns.has_value());
  for (const char* bad :
       {"scan values(", "scan values(ts", "scan values(nope)", "scan values(ts kind)"}) {
    CAPTURE(bad);
    CHECK_FALSE(Plan::decode(bad, *f.table).is_ok());
  }

  // Reading ts and kind of partition (c, 0): the row live only through payload (not decoded)
  // is still a row, kind null; payload is not to be asked for.
  plan.value_columns = std::vector<int>{2, 3};
  query::Bindings b;
  b.values = {{std::string("c")}, {int_value(0)}};
  auto snapshot = f.store().snapshot().value();
  auto cursor = query::QueryCursor::open(f.store(), snapshot, f.table, plan, b).value();
  std::vector<std::string> rows;
  while (cursor->next()) {
    const std::string_view* values = cursor->row_values();
    REQUIRE(values != nullptr);
    CHECK(cursor->value(2) == values[2]);
    rows.push_back(fmt::format("{}|{}", as_int(values[2]),
                               values[3].data() ? std::string(values[3]) : "null"));
  }
  REQUIRE(cursor->status().is_ok());
  CHECK(rows == std::vector<std::string>{"2|only kind", "1|null"});
  cursor = query::QueryCursor::open(f.store(), snapshot, f.table, plan, b).value();
  REQUIRE(cursor->next());
  CHECK_FALSE(cursor->value(4).has_value());
  CHECK(cursor->status().message() ==
        "Column payload was read but is not among the columns of the query plan.");
  CHECK_FALSE(cursor->next());
}

TEST_CASE("query planner: IN lists, unusable constraints and filters left to the host") {
  Fixture f;
  PlanRequest request;
  request.constraints = {C(0, Operator::kIn), C(1, Operator::kEq),        C(2, Operator::kGe),
                         C(2, Operator::kLe), C(3, Operator::kEq, false), C(-1, Operator::kLimit)};
  Plan plan = query::plan_query(*f.table, request, f.stats());
  CHECK(plan.access == AccessKind::kPartitions);
  CHECK(plan.argument_of == std::vector<int>{0, 1, 2, 3, -1, -1});  // kind unusable: no LIMIT
  CHECK_FALSE(plan.limit_consumed);
  query::Bindings b;
  b.values = {{"b", "a", "b", std::nullopt}, {int_value(2)}, {bigint_value(3)}, {bigint_value(4)}};
  // Partitions in token order; rows in clustering (DESC) order.
  std::vector<std::string> rows = f.run(plan, b);
  CHECK(rows.size() == 4);
  CHECK(std::count(rows.begin(), rows.end(), "a|2|4") == 1);
  CHECK(std::count(rows.begin(), rows.end(), "b|2|3") == 1);

  // ORDER BY over several partitions is not the store's order.
  request.order_by = {{2, true}};
  plan = query::plan_query(*f.table, request, f.stats());
  CHECK_FALSE(plan.order_satisfied);

  // A null bound matches nothing.
  b.values = {{"a"}, {int_value(2)}, {std::nullopt}, {bigint_value(4)}};
  CHECK(f.run(plan, b).empty());
}

TEST_CASE("query planner: scans, token ranges, index and costs") {
  Fixture f;
  query::TableStatistics stats = f.stats();
  PlanRequest scan;
  Plan full = query::plan_query(*f.table, scan, stats);
  CHECK(full.access == AccessKind::kFullScan);
  CHECK(full.encode(*f.table) == "scan");
  CHECK(f.run(full, {}).size() == 60);

  PlanRequest lookup;
  lookup.constraints = {C(0, Operator::kEq), C(1, Operator::kEq)};
  Plan by_key = query::plan_query(*f.table, lookup, stats);
  CHECK(by_key.estimated_cost < full.estimated_cost);

  PlanRequest range;
  range.constraints = {C(query::kTokenColumn, Operator::kGe), C(query::kTokenColumn, Operator::kLt),
                       C(2, Operator::kGt)};
  range.order_by = {{query::kTokenColumn, false}};
  Plan tokens = query::plan_query(*f.table, range, stats);
  CHECK(tokens.access == AccessKind::kTokenRange);
  CHECK(tokens.order_satisfied);
  CHECK(tokens.encode(*f.table) == "token-range token()>= token()< ts>");
  query::Bindings b;
  b.values = {{bigint_value(INT64_MIN)}, {bigint_value(INT64_MAX)}, {bigint_value(7)}};
  CHECK(f.run(tokens, b).size() == 12);  // 6 partitions x ts 8, 9
  // Token order: nondecreasing tokens.
  auto snapshot = f.store().snapshot().value();
  auto cursor = query::QueryCursor::open(f.store(), snapshot, f.table, tokens, b).value();
  int64_t last = INT64_MIN;
  while (cursor->next()) {
    CHECK(cursor->token() >= last);
    last = cursor->token();
    CHECK(cursor->ttl(3).has_value());
    CHECK(*cursor->ttl(3) <= 100);
    CHECK(cursor->writetime(3).has_value());
    CHECK_FALSE(cursor->writetime(0).has_value());
  }

  PlanRequest indexed;
  indexed.constraints = {C(3, Operator::kEq)};
  Plan no_index = query::plan_query(*f.table, indexed, stats);
  CHECK(no_index.access == AccessKind::kFullScan);
  CHECK(no_index.argument_of == std::vector<int>{-1});
  indexed.indexed_columns = {3};
  Plan index = query::plan_query(*f.table, indexed, stats);
  CHECK(index.access == AccessKind::kIndexScan);
  CHECK(index.encode(*f.table) == "index kind=");
  // An index read (the index components, then the candidate partitions) costs less than the scan.
  CHECK(index.estimated_cost < full.estimated_cost);
  query::Bindings odd;
  odd.values = {{"odd"}};
  CHECK(f.run(index, odd).size() == 30);
  // An IN on the indexed column reads the index too, one term per value, costed per value.
  PlanRequest indexed_in;
  indexed_in.constraints = {C(3, Operator::kIn)};
  indexed_in.indexed_columns = {3};
  Plan index_in = query::plan_query(*f.table, indexed_in, stats);
  CHECK(index_in.access == AccessKind::kIndexScan);
  CHECK(index_in.estimated_cost > index.estimated_cost);
  CHECK(index_in.estimated_cost < full.estimated_cost);
  query::Bindings odd_or_none;
  odd_or_none.values = {{"odd", "none"}};
  CHECK(f.run(index_in, odd_or_none).size() == 30);

  // Bindings must fit the plan.
  CHECK(query::QueryCursor::open(f.store(), snapshot, f.table, index, {}).status().message() ==
        "The values bound to a query plan do not match its arguments.");
}

}  // namespace cassette::test

namespace cassette::test {

// A range on an indexed number column (SQL hosts: <, <=, >, >=, BETWEEN) is one term range of
// the index when its candidates cost less than the scan: both bounds (SQLite's guess: 1/64 of
// the rows) do, one bound (a quarter) does not; float and double columns never (SQL's zero is
// both of their zeros, which the index keeps apart).
TEST_CASE("query planner: ranges on an indexed column read the index when they cost less") {
  CqlFixture f;
  f.ok("CREATE TABLE ks.people (id int PRIMARY KEY, age int, score double)");
  f.ok("CREATE CUSTOM INDEX ON ks.people (age) USING 'sai'");
  f.ok("CREATE CUSTOM INDEX ON ks.people (score) USING 'sai'");
  for (int id = 0; id < 300; ++id) {
    f.ok(fmt::format("INSERT INTO ks.people (id, age, score) VALUES ({}, {}, {})", id, id % 100,
                     id * 0.5));
  }
  REQUIRE(f.store().flush().is_ok());
  f.ok("INSERT INTO ks.people (id, age, score) VALUES (1000, 41, 1)");  // the memtable's
  f.ok("UPDATE ks.people SET age = 99 WHERE id = 42");  // an SSTable entry now stale
  auto table = f.session().catalog().current().value()->find_table("ks", "people");
  auto stats = query::table_statistics(*f.store().snapshot().value(), *table);
  const int age = 1, score = 2;

  PlanRequest between;
  between.constraints = {C(age, Operator::kGe), C(age, Operator::kLt)};
  between.indexed_columns = {age, score};
  Plan index = query::plan_query(*table, between, stats);
  CHECK(index.access == AccessKind::kIndexScan);
  CHECK(index.encode(*table) == "index age>= age<");
  CHECK(index.argument_of == std::vector<int>{0, 1});
  PlanRequest unindexed = between;
  unindexed.indexed_columns.clear();
  Plan full = query::plan_query(*table, unindexed, stats);
  CHECK(full.access == AccessKind::kFullScan);
  CHECK(index.estimated_cost < full.estimated_cost);

  query::Bindings b;
  b.values = {{int_value(41)}, {int_value(43)}};
  const uint64_t reads = storage::sai_index_reads();
  auto cursor =
      query::QueryCursor::open(f.store(), f.store().snapshot().value(), table, index, b).value();
  std::vector<int32_t> ids;
  while (cursor->next()) ids.push_back(as_int(*cursor->value(0)));
  REQUIRE(cursor->status().is_ok());
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<int32_t>{41, 141, 142, 241, 242, 1000});  // not 42: now 99
  CHECK(storage::sai_index_reads() - reads == 1);

  PlanRequest above;
  above.constraints = {C(age, Operator::kGt)};
  above.indexed_columns = {age};
  Plan scan = query::plan_query(*table, above, stats);
  CHECK(scan.access == AccessKind::kFullScan);
  CHECK(scan.argument_of == std::vector<int>{-1});  // the host checks it

  PlanRequest doubles;
  doubles.constraints = {C(score, Operator::kGe), C(score, Operator::kLe)};
  doubles.indexed_columns = {age, score};
  CHECK(query::plan_query(*table, doubles, stats).access == AccessKind::kFullScan);
}

}  // namespace cassette::test
