// RowEncoder, the one INSERT encoder (engine/write/row_encoder.h): its entries byte for byte,
// each NULL policy, each refusal with CQL's message, static-only rows, counter tables, TTL and
// timestamp; and rows written through it read back as CQL INSERTs of the same rows do.
#include "engine/write/row_encoder.h"

#include <doctest/doctest.h>

#include "engine/codec/current_row.h"
#include "engine/cql/execution_context.h"
#include "engine/storage/row_codec.h"
#include "engine/types/scalar_text.h"
#include "tests/unit/cql_test_fixture.h"

using namespace cassette;
using write::NullPolicy;
using write::RowEncoder;

namespace {

types::Value text(std::string s) {
  return types::Value(std::move(s));
}
types::Value int32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[static_cast<size_t>(i)] = static_cast<char>(v >> (24 - 8 * i));
  return out;
}

// The entries a RowSink was given, as (partition key, static?, clustering, value) text.
struct RecordingSink : write::RowSink {
  struct Entry {
    std::string key, clustering, value;
    bool is_static;
  };
  std::vector<Entry> entries;
  Status add_row(std::string_view key, bool is_static, std::string_view clustering,
                 std::string_view value) override {
    entries.push_back({std::string(key), std::string(clustering), std::string(value), is_static});
    return Status::ok();
  }
};

// A session with tables in ks, and encoders for rows of some of their columns.
struct EncoderFixture : test::CqlFixture {
  std::shared_ptr<const schema::TableDef> table(std::string_view name) {
    auto schema = session().catalog().current();
    REQUIRE(schema.is_ok());
    cql::ExecutionContext context;
    context.schema = *schema;
    auto def = context.resolve_table({"ks", std::string(name)});
    REQUIRE(def.is_ok());
    return *def;
  }
  static std::vector<size_t> columns(const schema::TableDef& def, std::vector<std::string> names) {
    std::vector<size_t> out;
    for (const std::string& name : names) {
      const schema::ColumnDef* found = def.find_column(name);
      REQUIRE(found != nullptr);
      out.push_back(static_cast<size_t>(found - def.columns.data()));
    }
    return out;
  }
  static storage::ColumnId id(const schema::TableDef& def, std::string_view name) {
    return def.find_column(name)->id;
  }
  // An encoder with an INSERT's parameters at the store's "now".
  std::unique_ptr<RowEncoder> encoder(const std::shared_ptr<const schema::TableDef>& def,
                                      std::vector<std::string> names, NullPolicy nulls) {
    auto made = RowEncoder::make(def, columns(*def, std::move(names)), nulls);
    REQUIRE(made.is_ok());
    (*made)->set_parameters(RowEncoder::parameters(*def, store().clock().now_micros()));
    return std::move(*made);
  }
  static std::string error(RowEncoder& encoder, std::vector<types::Value> values,
                           write::RowSink& sink) {
    Status s = encoder.insert(values, sink);
    return s.is_ok() ? std::string("ok") : s.message();
  }
};

storage::Row decoded(std::string_view value) {
  storage::Row row;
  REQUIRE(storage::decode_row(value, &row));
  return row;
}

}  // namespace

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder writes what INSERT writes") {
  ok("CREATE TABLE t (k int, c text, v text, n int, f frozen<list<int>>, PRIMARY KEY (k, c)) "
     "WITH default_time_to_live = 100");
  ok("CREATE TABLE twin (k int, c text, v text, n int, f frozen<list<int>>, PRIMARY KEY (k, c)) "
     "WITH default_time_to_live = 100");
  auto def = table("t");
  auto encoder = this->encoder(def, {"c", "v", "k", "n", "f"}, NullPolicy::kTombstone);
  storage::EncodedBatch batch;
  write::BatchSink sink(batch, def->table_id);
  std::vector<types::Value> row1{
      text("a"), text("x"), int32(1), std::nullopt,
      types::parse_value_string(def->find_column("f")->type, "[1, 2]").value()};
  REQUIRE(encoder->insert(row1, sink).is_ok());
  std::vector<types::Value> row2{text("b"), std::nullopt, int32(1), int32(7), std::nullopt};
  REQUIRE(encoder->insert(row2, sink).is_ok());
  CHECK(batch.entry_count() == 2);

  // The entry itself: row marker and cells with the default TTL, a NULL as a tombstone.
  storage::Row row = decoded(batch.entry_at(0).value);
  const int64_t now = store().clock().now_seconds();
  CHECK(row.liveness.timestamp == storage::kAutoTimestamp);
  CHECK(row.liveness.ttl == 100);
  CHECK(row.liveness.local_expiration_time == now + 100);
  REQUIRE(row.columns.size() == 3);
  const storage::ColumnData* v = row.find_column(id(*def, "v"));
  const storage::ColumnData* n = row.find_column(id(*def, "n"));
  const storage::ColumnData* f = row.find_column(id(*def, "f"));
  REQUIRE((v != nullptr && n != nullptr && f != nullptr));
  CHECK(v->cell.value == "x");
  CHECK(v->cell.is_expiring());
  CHECK(v->cell.ttl == 100);
  CHECK(v->cell.timestamp == storage::kAutoTimestamp);
  CHECK(v->cell.local_deletion_time == now + 100);
  CHECK(n->cell.is_tombstone());
  CHECK(n->cell.local_deletion_time == now);
  CHECK(types::to_hex(f->cell.value) ==
        "00000002000000040000000100000004"
        "00000002");

  REQUIRE(store().apply(batch).is_ok());
  ok("INSERT INTO twin (c, v, k, n, f) VALUES ('a', 'x', 1, null, [1, 2])");
  ok("INSERT INTO twin (c, v, k, n, f) VALUES ('b', null, 1, 7, null)");
  CHECK(rows("SELECT k, c, f, n, v, ttl(n), ttl(v) FROM twin") ==
        std::vector<std::string>{"1|a|[1, 2]|null|x|null|100", "1|b|null|7|null|100|null"});
  CHECK(rows("SELECT k, c, f, n, v, ttl(n), ttl(v) FROM t") ==
        rows("SELECT k, c, f, n, v, ttl(n), ttl(v) FROM twin"));
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder's bytes: the direct path and the Row path agree") {
  ok("CREATE TABLE t (k int, c int, a text, b int, PRIMARY KEY (k, c))");
  ok("CREATE TABLE s (k int, c int, a text, b int, st int STATIC, PRIMARY KEY (k, c))");
  const int64_t now_micros = store().clock().now_micros();
  const int64_t now = now_micros / 1'000'000;
  // USING TIMESTAMP 42 and a TTL of 7: every cell and the row marker carry both.
  auto expected = [&](const schema::TableDef& def) {
    storage::Row row;
    row.liveness = storage::LivenessInfo::written(42, 7, now);
    storage::ColumnData a, b;
    a.id = id(def, "a");
    a.cell = storage::Cell::expiring(42, 7, now, "x");
    b.id = id(def, "b");
    b.cell = storage::Cell::tombstone(42, now);
    row.columns = {a, b};
    std::string out;
    storage::encode_row(row, &out);
    return out;
  };
  for (std::string name : {"t", "s"}) {
    CAPTURE(name);
    auto def = table(name);
    auto made = RowEncoder::make(def, columns(*def, {"k", "c", "b", "a"}), NullPolicy::kTombstone);
    REQUIRE(made.is_ok());
    RowEncoder& encoder = **made;
    encoder.set_parameters(RowEncoder::parameters(*def, now_micros, 7, 42));
    RecordingSink sink;
    REQUIRE(error(encoder, {int32(1), int32(2), std::nullopt, text("x")}, sink) == "ok");
    REQUIRE(sink.entries.size() == 1);
    CHECK(types::to_hex(sink.entries[0].key) == "00000001");
    CHECK(types::to_hex(sink.entries[0].clustering) == "0480000002");  // byte_comparable.h
    CHECK(!sink.entries[0].is_static);
    CHECK(types::to_hex(sink.entries[0].value) == types::to_hex(expected(*def)));
  }
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder refuses rows as INSERT does, writing nothing") {
  ok("CREATE TABLE t (k text, c int, v int, PRIMARY KEY (k, c))");
  ok("CREATE TABLE p (a int, b int, v int, PRIMARY KEY ((a, b)))");
  auto def = table("t");
  auto encoder = this->encoder(def, {"v", "c", "k"}, NullPolicy::kTombstone);
  storage::EncodedBatch batch;
  write::BatchSink sink(batch, def->table_id);
  CHECK(error(*encoder, {int32(1), std::nullopt, std::nullopt}, sink) ==
        "Invalid null value in condition for column c");
  CHECK(error(*encoder, {int32(1), int32(1), std::nullopt}, sink) ==
        "Invalid null value in condition for column k");
  CHECK(error(*encoder, {int32(1), int32(1), text("")}, sink) == "Key may not be empty");
  CHECK(error(*encoder, {int32(1), int32(1), text(std::string(65536, 'k'))}, sink) ==
        "Key length of 65536 is longer than maximum of 65535");
  CHECK(error(*encoder, {int32(1), text("toolong"), text("k")}, sink) ==
        "Invalid key value: expected 4 bytes but got 7.");
  CHECK(batch.entry_count() == 0);
  CHECK(error(*encoder, {std::nullopt, int32(1), text("k")}, sink) == "ok");
  CHECK(batch.entry_count() == 1);

  // A compound partition key may have empty components.
  auto pdef = table("p");
  auto compound = this->encoder(pdef, {"a", "b", "v"}, NullPolicy::kTombstone);
  write::BatchSink psink(batch, pdef->table_id);
  CHECK(error(*compound, {text(""), int32(2), int32(3)}, psink) == "ok");
  REQUIRE(store().apply(batch).is_ok());
  CHECK(rows("SELECT a, b, v FROM p") == std::vector<std::string>{"|2|3"});
  CHECK(rows("SELECT k, c, v FROM t") == std::vector<std::string>{"k|1|null"});
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder refuses column lists and counter tables as CQL") {
  ok("CREATE TABLE t (a int, b int, c int, d int, st int STATIC, v int, "
     "PRIMARY KEY ((a, b), c, d))");
  ok("CREATE TABLE n (k int PRIMARY KEY, total counter)");
  auto def = table("t");
  auto made = [&](std::vector<std::string> names) {
    auto encoder = RowEncoder::make(def, columns(*def, std::move(names)), NullPolicy::kTombstone);
    return encoder.is_ok() ? std::string("ok") : encoder.status().message();
  };
  CHECK(made({"c", "d", "v"}) == "Some partition key parts are missing: a, b");
  CHECK(made({"a", "b", "v"}) == "Some clustering keys are missing: c, d");
  CHECK(made({"a", "b", "c", "v"}) == "Some clustering keys are missing: d");
  CHECK(made({"a", "b"}) == "Some clustering keys are missing: c, d");
  CHECK(made({"a", "b", "st"}) == "ok");  // the static row alone

  // A counter table: the key checks first, then CQL's refusal.
  auto counters = table("n");
  auto encoder = this->encoder(counters, {"k", "total"}, NullPolicy::kTombstone);
  RecordingSink sink;
  CHECK(error(*encoder, {std::nullopt, std::nullopt}, sink) ==
        "Invalid null value in condition for column k");
  CHECK(error(*encoder, {int32(1), std::nullopt}, sink) ==
        "INSERT statements are not allowed on counter tables, use UPDATE instead");
  CHECK(sink.entries.empty());
  CHECK(RowEncoder::parameters(*counters, 0, 5).ttl == 0);
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder's parameters: default TTL, given TTL, timestamp") {
  ok("CREATE TABLE t (k int PRIMARY KEY, v int) WITH default_time_to_live = 100");
  auto def = table("t");
  write::WriteParameters p = RowEncoder::parameters(*def, 5'000'000);
  CHECK(p.ttl == 100);
  CHECK(p.timestamp == storage::kAutoTimestamp);
  CHECK(!p.timestamp_set);
  CHECK(p.now_seconds == 5);
  CHECK(p.now_micros == 5'000'000);
  p = RowEncoder::parameters(*def, 5'000'000, 0, 42);  // USING TTL 0 overrides the default
  CHECK(p.ttl == 0);
  CHECK(p.timestamp == 42);
  CHECK(p.timestamp_set);

  auto encoder = this->encoder(def, {"k", "v"}, NullPolicy::kTombstone);
  encoder->set_parameters(RowEncoder::parameters(*def, 5'000'000, std::nullopt, 42));
  RecordingSink sink;
  REQUIRE(error(*encoder, {int32(1), int32(2)}, sink) == "ok");
  storage::Row row = decoded(sink.entries.at(0).value);
  CHECK(row.liveness.timestamp == 42);
  CHECK(row.liveness.ttl == 100);
  CHECK(row.columns.at(0).cell.timestamp == 42);
  CHECK(row.columns.at(0).cell.ttl == 100);
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder's NULL policies") {
  ok("CREATE TABLE t (k int, c int, st int STATIC, v int, PRIMARY KEY (k, c))");
  auto def = table("t");
  // k=1, c=2, st=NULL, v=NULL under each policy: which cells the row and static row get.
  auto written = [&](NullPolicy nulls) {
    auto encoder = this->encoder(def, {"k", "c", "st", "v"}, nulls);
    RecordingSink sink;
    REQUIRE(error(*encoder, {int32(1), int32(2), std::nullopt, std::nullopt}, sink) == "ok");
    std::string out;
    for (const auto& e : sink.entries) {
      storage::Row row = decoded(e.value);
      out += e.is_static ? "static:" : "row:";
      out += row.liveness.is_empty() ? "" : "marker";
      for (const storage::ColumnData& c : row.columns) {
        out += c.id == id(*def, "v") ? " v" : " st";
        out += c.cell.is_tombstone() ? "=tombstone" : "=live";
      }
      out += ";";
    }
    return out;
  };
  CHECK(written(NullPolicy::kTombstone) == "row:marker v=tombstone;static: st=tombstone;");
  CHECK(written(NullPolicy::kTombstoneExceptStatic) == "row:marker v=tombstone;");
  CHECK(written(NullPolicy::kUnset) == "row:marker;");
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder's static-only rows") {
  ok("CREATE TABLE t (k int, c int, d int, st int STATIC, v int, PRIMARY KEY (k, c, d))");
  ok("CREATE TABLE plain (k int, c int, v int, PRIMARY KEY (k, c))");
  auto def = table("t");
  auto statics_of = [&](const RecordingSink& sink) {
    REQUIRE(sink.entries.size() == 1);
    CHECK(sink.entries[0].is_static);
    CHECK(sink.entries[0].clustering.empty());
    storage::Row row = decoded(sink.entries[0].value);
    CHECK(row.liveness.is_empty());
    REQUIRE(row.columns.size() == 1);
    CHECK(row.columns[0].id == id(*def, "st"));
    return types::to_hex(row.columns[0].cell.value);
  };
  const std::vector<std::string> all{"k", "c", "d", "st", "v"};

  // The SQL hosts: every clustering value NULL.
  for (NullPolicy nulls : {NullPolicy::kTombstoneExceptStatic, NullPolicy::kUnset}) {
    auto encoder = this->encoder(def, all, nulls);
    RecordingSink sink;
    CHECK(error(*encoder, {int32(1), std::nullopt, std::nullopt, int32(5), std::nullopt}, sink) ==
          "ok");
    CHECK(statics_of(sink) == "00000005");
    // Some clustering value given, or a regular column with a value: the first NULL clustering
    // column is the error.
    CHECK(error(*encoder, {int32(1), int32(1), std::nullopt, int32(5), std::nullopt}, sink) ==
          "Invalid null value in condition for column d");
    CHECK(error(*encoder, {int32(1), std::nullopt, std::nullopt, int32(5), int32(6)}, sink) ==
          "Invalid null value in condition for column c");
    CHECK(sink.entries.size() == 1);
  }
  // SQLite: with every static NULL too, nothing to write; PostgreSQL: an error.
  RecordingSink sink;
  auto sqlite = this->encoder(def, all, NullPolicy::kTombstoneExceptStatic);
  CHECK(error(*sqlite, {int32(1), std::nullopt, std::nullopt, std::nullopt, std::nullopt}, sink) ==
        "ok");
  auto pg = this->encoder(def, all, NullPolicy::kUnset);
  CHECK(error(*pg, {int32(1), std::nullopt, std::nullopt, std::nullopt, std::nullopt}, sink) ==
        "Invalid null value in condition for column c");
  CHECK(sink.entries.empty());
  // A table without static columns has no static-only rows.
  auto plain = table("plain");
  auto no_statics = this->encoder(plain, {"k", "c", "v"}, NullPolicy::kTombstoneExceptStatic);
  CHECK(error(*no_statics, {int32(1), std::nullopt, std::nullopt}, sink) ==
        "Invalid null value in condition for column c");
  // CQL: the clustering columns left out of the column list (a NULL one is an error).
  auto cql = this->encoder(def, {"st", "k"}, NullPolicy::kTombstone);
  CHECK(error(*cql, {int32(9), int32(1)}, sink) == "ok");
  CHECK(statics_of(sink) == "00000009");
  auto cql_all = this->encoder(def, all, NullPolicy::kTombstone);
  CHECK(error(*cql_all, {int32(1), std::nullopt, std::nullopt, int32(5), std::nullopt}, sink) ==
        "Invalid null value in condition for column c");
}

TEST_CASE_FIXTURE(EncoderFixture, "RowEncoder overwrites a collection as INSERT does") {
  ok("CREATE TABLE t (k int PRIMARY KEY, l list<int>, s set<int>)");
  ok("INSERT INTO t (k, l, s) VALUES (1, [1, 2], {7})");
  auto def = table("t");
  auto encoder = this->encoder(def, {"k", "l", "s"}, NullPolicy::kTombstone);
  CHECK(encoder->needs_read());
  std::vector<types::Value> values{
      int32(1), types::parse_value_string(def->find_column("l")->type, "[3]").value(),
      std::nullopt};
  storage::EncodedBatch batch;
  write::BatchSink sink(batch, def->table_id);
  std::vector<types::Value> copy = values;
  CHECK(error(*encoder, copy, sink) == "RowEncoder: a collection write needs a reader");
  auto snapshot = store().snapshot().value();
  write::CurrentRowReader read =
      [&](std::string_view key,
          const std::optional<std::string>& clustering) -> Result<std::optional<storage::Row>> {
    CASSETTE_ASSIGN_OR_RETURN(
        cql::CurrentRow current,
        cql::read_current_row(store(), *snapshot, *def, std::string(key), clustering));
    return std::move(current.row);
  };
  REQUIRE(encoder->insert(values, sink, &read).is_ok());
  REQUIRE(store().apply(batch).is_ok());
  CHECK(rows("SELECT k, l, s FROM t") == std::vector<std::string>{"1|[3]|null"});

  // With USING TIMESTAMP, Cassandra's deletion at timestamp - 1 and no read.
  encoder->set_parameters(RowEncoder::parameters(*def, 0, std::nullopt, 5));
  CHECK(!encoder->needs_read());
}

TEST_CASE_FIXTURE(EncoderFixture, "rows of one batch with the same key merge as in a BATCH") {
  ok("CREATE TABLE t (k int, c int, v text, n int, PRIMARY KEY (k, c))");
  ok("CREATE TABLE twin (k int, c int, v text, n int, PRIMARY KEY (k, c))");
  auto def = table("t");
  auto encoder = this->encoder(def, {"k", "c", "v", "n"}, NullPolicy::kTombstone);
  storage::EncodedBatch batch;
  write::BatchSink sink(batch, def->table_id);
  std::vector<std::vector<types::Value>> input{
      {int32(1), int32(1), text("y"), int32(5)},
      {int32(2), int32(1), text("only"), int32(1)},
      {int32(1), int32(1), text("x"), std::nullopt},
      {int32(1), int32(1), text("b"), int32(9)},
  };
  for (auto& values : input) REQUIRE(encoder->insert(values, sink).is_ok());
  REQUIRE(write::fold_same_rows(batch).is_ok());
  CHECK(batch.entry_count() == 2);
  REQUIRE(store().apply(batch).is_ok());
  ok("BEGIN UNLOGGED BATCH INSERT INTO twin (k, c, v, n) VALUES (1, 1, 'y', 5); "
     "INSERT INTO twin (k, c, v, n) VALUES (2, 1, 'only', 1); "
     "INSERT INTO twin (k, c, v, n) VALUES (1, 1, 'x', null); "
     "INSERT INTO twin (k, c, v, n) VALUES (1, 1, 'b', 9); APPLY BATCH");
  CHECK(rows("SELECT k, c, v, n FROM twin") ==
        std::vector<std::string>{"1|1|y|null", "2|1|only|1"});
  CHECK(rows("SELECT k, c, v, n FROM t") == rows("SELECT k, c, v, n FROM twin"));

  // A batch without such rows is left as it is.
  storage::EncodedBatch plain;
  write::BatchSink plain_sink(plain, def->table_id);
  std::vector<types::Value> one{int32(3), int32(1), text("z"), int32(1)};
  REQUIRE(encoder->insert(one, plain_sink).is_ok());
  const std::string before(plain.body());
  REQUIRE(write::fold_same_rows(plain).is_ok());
  CHECK(std::string(plain.body()) == before);
}
