// Fuzz target: CQL execution. The input is a CQL script; its first 64 statements run, one by
// one, in a fresh in-memory store (a manual clock, so TTLs do not depend on when it runs) that
// already has keyspace `fuzz` with a few tables of assorted types.
//
// Beyond "no crash, no exception out of Session::execute", it checks:
//  - a statement that fails writes nothing: the memtable and the schema version are unchanged;
//  - no statement fails with an internal error;
//  - the read path agrees with itself: every table reads the same from the memtable, after a
//    flush (from SSTables) and after a compaction. A script that wrote nothing (most mutated
//    inputs fail to parse) skips the flush and the compactions: it has no rows to compare.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/parser.h"
#include "engine/cql/session.h"
#include "engine/storage/clock.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;

constexpr size_t kMaxStatements = 64;

constexpr std::string_view kSchema[] = {
    "CREATE KEYSPACE fuzz WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TYPE fuzz.address (street text, number int, tags frozen<set<text>>)",
    "CREATE TABLE fuzz.t (k int, c text, d timestamp, v bigint, s int static, l list<int>, "
    "m map<text, double>, u fuzz.address, PRIMARY KEY (k, c, d)) "
    "WITH CLUSTERING ORDER BY (c DESC, d ASC)",
    "CREATE TABLE fuzz.kv (k text PRIMARY KEY, v blob, f float, dec decimal, vi varint, "
    "st set<uuid>, tu tuple<int, text>, ip inet, du duration)",
    "CREATE TABLE fuzz.c (k int PRIMARY KEY, n counter)",
    "CREATE TABLE fuzz.w (a text, b int, c frozen<list<int>>, v int, PRIMARY KEY ((a, b), c))",
    "CREATE INDEX ON fuzz.w (v)",
};

using TableRows = std::map<std::string, Result<cql::ResultSet>>;

// Every table's rows (by "keyspace.table"), as SELECT * returns them.
TableRows read_all_tables(cql::Session& session) {
  TableRows all;
  auto schema = session.catalog().current();
  FUZZ_CHECK(schema.is_ok(), schema.status().message());
  for (const auto& [ks_name, keyspace] : (*schema)->keyspaces) {
    for (const auto& [name, table] : keyspace->tables) {
      const std::string qualified = "\"" + ks_name + "\".\"" + name + "\"";
      auto result = session.execute("SELECT * FROM " + qualified);
      if (result.is_ok()) {
        all.emplace(qualified, std::move(result->rows));
      } else {
        all.emplace(qualified, result.status());
      }
    }
  }
  return all;
}

bool same(const TableRows& a, const TableRows& b) {
  if (a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia->first != ib->first || ia->second.is_ok() != ib->second.is_ok()) return false;
    if (ia->second.is_ok() && ia->second->rows != ib->second->rows) return false;
    if (!ia->second.is_ok() && ia->second.status().message() != ib->second.status().message()) {
      return false;
    }
  }
  return true;
}

uint64_t schema_version(cql::Session& session) {
  auto schema = session.catalog().current();
  FUZZ_CHECK(schema.is_ok(), schema.status().message());
  return (*schema)->version;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static storage::ManualClock clock(1'704'067'200'000'000);  // 2024-01-01 00:00:00 UTC
  storage::StoreOptions options;
  options.clock = &clock;
  options.sync = storage::SyncMode::kOff;
  options.background_threads = false;
  auto store = storage::Store::open(":memory:", options);
  FUZZ_CHECK(store.is_ok(), store.status().message());
  auto session = cql::Session::open(*store);
  FUZZ_CHECK(session.is_ok(), session.status().message());
  for (std::string_view statement : kSchema) {
    auto r = (*session)->execute(statement);
    FUZZ_CHECK(r.is_ok(), r.status().message());
  }

  const size_t schema_bytes = (*store)->stats().memtable_bytes;
  const uint64_t schema_only_version = schema_version(**session);
  const std::string_view script(reinterpret_cast<const char*>(data), size);
  std::vector<cql::ScriptStatement> statements = cql::split_statements(script);
  if (statements.size() > kMaxStatements) statements.resize(kMaxStatements);
  for (const cql::ScriptStatement& statement : statements) {
    const size_t memtable_bytes = (*store)->stats().memtable_bytes;
    const uint64_t version = schema_version(**session);
    auto result = (*session)->execute(statement.text);
    if (result.is_ok()) continue;
    FUZZ_CHECK(result.status().code() != StatusCode::kInternal, result.status().message());
    FUZZ_CHECK(schema_version(**session) == version,
               "a failed statement changed the schema: " + statement.text);
    FUZZ_CHECK((*store)->stats().memtable_bytes == memtable_bytes,
               "a failed statement wrote: " + statement.text);
  }

  if ((*store)->stats().memtable_bytes == schema_bytes &&
      schema_version(**session) == schema_only_version) {
    return 0;
  }
  const TableRows in_memtable = read_all_tables(**session);
  Status flushed = (*store)->flush();
  FUZZ_CHECK(flushed.is_ok(), flushed.message());
  FUZZ_CHECK(same(in_memtable, read_all_tables(**session)), "rows differ after a flush");
  auto schema = (*session)->catalog().current();
  FUZZ_CHECK(schema.is_ok(), schema.status().message());
  for (const auto& [ks_name, keyspace] : (*schema)->keyspaces) {
    for (const auto& [name, table] : keyspace->tables) {
      Status compacted = (*store)->compact(table->table_id);
      FUZZ_CHECK(compacted.is_ok(), compacted.message());
    }
  }
  FUZZ_CHECK(same(in_memtable, read_all_tables(**session)), "rows differ after a compaction");
  return 0;
}
