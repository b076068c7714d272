// The CQL tests' fixture: a session on an in-memory store with a manual clock (keyspace ks,
// in use), statements run one by one, and results printed as "a|b|c" strings in cqlsh's
// formatting.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cql/session.h"
#include "engine/storage/clock.h"
#include "engine/storage/store.h"
#include "engine/types/value.h"

namespace cassette::test {

// A serialized integer (tinyint..bigint: big-endian two's complement) as a number.
inline int64_t as_int(std::string_view bytes) {
  int64_t v = (bytes.size() && static_cast<signed char>(bytes[0]) < 0) ? -1 : 0;
  for (unsigned char c : bytes) v = static_cast<int64_t>((static_cast<uint64_t>(v) << 8) | c);
  return v;
}

class CqlFixture {
 public:
  CqlFixture() {
    storage::StoreOptions options;
    options.clock = &clock_;
    options.background_threads = false;
    store_ = storage::Store::open(":memory:", options).value();
    session_ = cql::Session::open(store_).value();
    ok("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
       "'replication_factor': 1}");
    ok("USE ks");
  }

  cql::Session& session() { return *session_; }
  storage::ManualClock& clock() { return clock_; }
  storage::Store& store() { return *store_; }

  Result<cql::ExecutionResult> run(std::string_view statement) {
    return session_->execute(statement);
  }

  void ok(std::string_view statement) {
    auto r = run(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  }

  // The error message of a statement that must fail.
  std::string error(std::string_view statement) {
    auto r = run(statement);
    INFO(statement);
    REQUIRE(!r.is_ok());
    return r.status().message();
  }

  // Result rows as "v1|v2|..." (null as "null").
  std::vector<std::string> rows(std::string_view statement) {
    auto r = run(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return lines(r->rows);
  }
  // A result set's rows as "v1|v2|..." (null as "null").
  static std::vector<std::string> lines(const cql::ResultSet& result) {
    std::vector<std::string> out;
    for (const auto& row : result.rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        if (i > 0) line += "|";
        line +=
            row[i] ? types::format_value(result.columns[i].type, *row[i], types::ValueStyle::kCqlsh)
                   : "null";
      }
      out.push_back(line);
    }
    return out;
  }

  // The values of a one-column text result, as stored (no cqlsh escaping).
  std::vector<std::string> texts(std::string_view statement) {
    auto r = run(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    std::vector<std::string> out;
    for (const auto& row : r->rows.rows) out.push_back(row.at(0).value_or("null"));
    return out;
  }

  std::vector<std::string> column_names(std::string_view statement) {
    auto r = run(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    std::vector<std::string> out;
    for (const auto& c : r->rows.columns) out.push_back(c.name);
    return out;
  }

 protected:
  storage::ManualClock clock_;
  std::shared_ptr<storage::Store> store_;
  std::unique_ptr<cql::Session> session_;
};

using Rows = std::vector<std::string>;

}  // namespace cassette::test
