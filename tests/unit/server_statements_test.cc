// PREPARE, EXECUTE, BATCH, bound values and paging in one connection's protocol state
// (ext/server/protocol_statements.cc), frames in, frames out.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "ext/server/body.h"
#include "ext/server/frame.h"
#include "ext/server/md5.h"
#include "ext/server/protocol_connection.h"
#include "ext/server/requests.h"

namespace cassette::server {
namespace {

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

std::string int_value(int32_t v) {
  BodyWriter out;
  out.write_int(v);
  return out.take();
}

std::string text_value(std::string_view s) {
  return std::string(s);
}

// <consistency ONE><flags>[values][page size][paging state]
std::string parameters(const std::vector<std::optional<std::string>>& values, uint8_t flags = 0,
                       std::optional<int32_t> page_size = std::nullopt,
                       std::optional<std::string> paging_state = std::nullopt,
                       const std::vector<std::string>& names = {}) {
  BodyWriter out;
  out.write_short(0x0001);
  if (!values.empty()) flags |= kQueryValues;
  if (!names.empty()) flags |= kQueryValueNames;
  if (page_size) flags |= kQueryPageSize;
  if (paging_state) flags |= kQueryPagingState;
  out.write_byte(flags);
  if (!values.empty()) {
    out.write_short(static_cast<uint16_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      if (!names.empty()) out.write_string(names[i]);
      out.write_bytes(values[i]);
    }
  }
  if (page_size) out.write_int(*page_size);
  if (paging_state) out.write_bytes(paging_state);
  return out.take();
}

struct Response {
  uint8_t opcode = 0;
  std::string body;
};

struct Fixture {
  Fixture() {
    storage::StoreOptions options;
    options.background_threads = false;
    store = storage::Store::open(":memory:", options).value();
    connection = std::make_unique<ProtocolConnection>(cql::Session::open(store).value(), 1 << 20);
    BodyWriter startup;
    startup.write_short(1);
    startup.write_string("CQL_VERSION");
    startup.write_string("3.0.0");
    REQUIRE(send(Opcode::kStartup, startup.body()).opcode == static_cast<uint8_t>(Opcode::kReady));
    query(
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
        "'replication_factor': 1}");
  }

  Response send(Opcode opcode, std::string_view body) {
    FrameHeader header;
    header.stream = 1;
    header.opcode = static_cast<uint8_t>(opcode);
    const std::string frame = encode_frame(header, body);
    const FrameHeader decoded =
        decode_frame_header({reinterpret_cast<const uint8_t*>(frame.data()), kFrameHeaderSize});
    Reply reply =
        connection->handle_frame(decoded, std::string_view(frame).substr(kFrameHeaderSize));
    REQUIRE(reply.bytes.size() >= kFrameHeaderSize);
    return {static_cast<uint8_t>(reply.bytes[4]), reply.bytes.substr(kFrameHeaderSize)};
  }

  Response query(std::string_view text, const std::string& params = parameters({})) {
    BodyWriter out;
    out.write_long_string(text);
    return send(Opcode::kQuery, out.body() + params);
  }

  // The id PREPARE returns. REQUIRES: it succeeds.
  std::string prepare(std::string_view text) {
    BodyWriter out;
    out.write_long_string(text);
    Response r = send(Opcode::kPrepare, out.body());
    REQUIRE(r.opcode == static_cast<uint8_t>(Opcode::kResult));
    BodyReader in(r.body);
    REQUIRE(in.read_int().value() == 4);
    return in.read_short_bytes().value();
  }

  Response execute(const std::string& id, const std::string& params) {
    BodyWriter out;
    out.write_short_bytes(id);
    return send(Opcode::kExecute, out.body() + params);
  }

  std::shared_ptr<storage::Store> store;
  std::unique_ptr<ProtocolConnection> connection;
};

std::pair<int32_t, std::string> error_of(const Response& r) {
  REQUIRE(r.opcode == static_cast<uint8_t>(Opcode::kError));
  BodyReader in(r.body);
  const int32_t code = in.read_int().value();
  return {code, in.read_string().value()};
}

// A Rows result's values (each row's cells, as hex) and its paging state.
struct Rows {
  std::vector<std::vector<std::string>> rows;
  std::optional<std::string> paging_state;
};

Rows rows_of(const Response& r) {
  REQUIRE(r.opcode == static_cast<uint8_t>(Opcode::kResult));
  BodyReader in(r.body);
  REQUIRE(in.read_int().value() == 2);
  const int32_t flags = in.read_int().value();
  const int32_t columns = in.read_int().value();
  Rows rows;
  if (flags & 0x0002) rows.paging_state = in.read_bytes().value();
  REQUIRE((flags & 0x0004) != 0);  // the tests ask for no metadata
  const int32_t count = in.read_int().value();
  for (int32_t i = 0; i < count; ++i) {
    std::vector<std::string> row;
    for (int32_t c = 0; c < columns; ++c) {
      std::optional<std::string> cell = in.read_bytes().value();
      row.push_back(cell ? hex(*cell) : "null");
    }
    rows.rows.push_back(std::move(row));
  }
  return rows;
}

TEST_CASE("server md5: RFC 1321's test suite") {
  CHECK(hex(md5("")) == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(hex(md5("abc")) == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(hex(md5("message digest")) == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(hex(md5(
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890")) ==
        "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("server PREPARE: Cassandra's id, variables with routing indexes, result columns") {
  Fixture f;
  f.query("CREATE TABLE ks.t (a int, b text, c int, v text, PRIMARY KEY ((a, b), c))");
  const std::string text = "SELECT v FROM ks.t WHERE b = ? AND a = ? AND c = ?";
  BodyWriter request;
  request.write_long_string(text);
  Response r = f.send(Opcode::kPrepare, request.body());
  BodyReader in(r.body);
  CHECK(in.read_int().value() == 4);
  CHECK(in.read_short_bytes().value() == md5(text));  // qualified: no keyspace in the id
  CHECK(in.read_int().value() == 1);                  // global table spec
  CHECK(in.read_int().value() == 3);
  CHECK(in.read_int().value() == 2);  // partition key (a, b): markers 1 and 0
  CHECK(in.read_short().value() == 1);
  CHECK(in.read_short().value() == 0);
  CHECK(in.read_string().value() == "ks");
  CHECK(in.read_string().value() == "t");
  CHECK(in.read_string().value() == "b");
  CHECK(in.read_short().value() == 0x000D);
  CHECK(in.read_string().value() == "a");
  CHECK(in.read_short().value() == 0x0009);
  CHECK(in.read_string().value() == "c");
  CHECK(in.read_short().value() == 0x0009);
  CHECK(in.read_int().value() == 1);  // result metadata: v text
  CHECK(in.read_int().value() == 1);
  CHECK(in.read_string().value() == "ks");
  CHECK(in.read_string().value() == "t");
  CHECK(in.read_string().value() == "v");
  CHECK(in.read_short().value() == 0x000D);
  CHECK(in.remaining() == 0);

  // Unqualified, the connection's keyspace is part of the id.
  f.query("USE ks");
  CHECK(f.prepare("SELECT v FROM t WHERE a = ? AND b = ?") ==
        md5("ksSELECT v FROM t WHERE a = ? AND b = ?"));
}

TEST_CASE("server EXECUTE: values, null, unset, named values; UNPREPARED with the id") {
  Fixture f;
  f.query("CREATE TABLE ks.t (k int PRIMARY KEY, v text, w int)");
  const std::string insert = f.prepare("INSERT INTO ks.t (k, v, w) VALUES (?, ?, ?)");
  CHECK(f.execute(insert, parameters({int_value(1), text_value("one"), int_value(10)})).opcode ==
        static_cast<uint8_t>(Opcode::kResult));
  // unset (-2 is written by hand: write_bytes knows only null) keeps w; null clears v.
  BodyWriter unset;
  unset.write_short(0x0001);
  unset.write_byte(kQueryValues);
  unset.write_short(3);
  unset.write_bytes(int_value(1));
  unset.write_bytes(std::nullopt);
  unset.write_int(-2);
  CHECK(f.execute(insert, unset.body()).opcode == static_cast<uint8_t>(Opcode::kResult));
  const std::string select = f.prepare("SELECT k, v, w FROM ks.t WHERE k = :key");
  CHECK(rows_of(f.execute(select, parameters({int_value(1)}, kQuerySkipMetadata, {}, {}, {"key"})))
            .rows == std::vector<std::vector<std::string>>{{"00000001", "null", "0000000a"}});
  CHECK(error_of(f.execute(select, parameters({}, 0))).second ==
        "there were 1 markers(?) in CQL but 0 bound variables");

  const std::string unknown(16, '\x7f');
  Response missing = f.execute(unknown, parameters({}));
  BodyReader in(missing.body);
  CHECK(in.read_int().value() == 0x2500);
  CHECK(in.read_string().value().starts_with("Prepared query with ID 7f7f"));
  CHECK(in.read_short_bytes().value() == unknown);

  // After ALTER TABLE the statement is out of date: UNPREPARED with its id, until prepared again.
  f.query("ALTER TABLE ks.t ADD x int");
  Response stale = f.execute(select, parameters({int_value(1)}, 0, {}, {}, {"key"}));
  BodyReader stale_in(stale.body);
  CHECK(stale_in.read_int().value() == 0x2500);
  CHECK(stale_in.read_string().value() ==
        "Prepared statement is out of date: table ks.t was altered");
  CHECK(stale_in.read_short_bytes().value() == select);
  CHECK(f.prepare("SELECT k, v, w FROM ks.t WHERE k = :key") == select);
  CHECK(rows_of(f.execute(select, parameters({int_value(1)}, kQuerySkipMetadata, {}, {}, {"key"})))
            .rows.size() == 1);
}

TEST_CASE("server QUERY: values, default timestamp as the write timestamp") {
  Fixture f;
  f.query("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
  BodyWriter timestamped;
  timestamped.write_short(0x0001);
  timestamped.write_byte(kQueryValues | kQueryDefaultTimestamp);
  timestamped.write_short(2);
  timestamped.write_bytes(int_value(5));
  timestamped.write_bytes(text_value("five"));
  timestamped.write_long(1234567);
  CHECK(f.query("INSERT INTO ks.t (k, v) VALUES (?, ?)", timestamped.body()).opcode ==
        static_cast<uint8_t>(Opcode::kResult));
  CHECK(rows_of(f.query("SELECT v, writetime(v) FROM ks.t WHERE k = ?",
                        parameters({int_value(5)}, kQuerySkipMetadata)))
            .rows == std::vector<std::vector<std::string>>{{hex("five"), "000000000012d687"}});
}

TEST_CASE("server paging: pages resume after the last row, across writes in between") {
  Fixture f;
  f.query("CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))");
  for (int c = 0; c < 5; ++c) f.query(fmt::format("INSERT INTO ks.t (k, c) VALUES (1, {})", c));
  const std::string text = "SELECT c FROM ks.t WHERE k = 1";
  Rows first = rows_of(f.query(text, parameters({}, kQuerySkipMetadata, 2)));
  CHECK(first.rows == std::vector<std::vector<std::string>>{{"00000000"}, {"00000001"}});
  REQUIRE(first.paging_state);
  // A row before the position and one after it, written between the pages.
  f.query("INSERT INTO ks.t (k, c) VALUES (1, -1)");
  f.query("INSERT INTO ks.t (k, c) VALUES (1, 3)");
  f.query("INSERT INTO ks.t (k, c) VALUES (1, 10)");
  Rows second = rows_of(f.query(text, parameters({}, kQuerySkipMetadata, 2, first.paging_state)));
  CHECK(second.rows == std::vector<std::vector<std::string>>{{"00000002"}, {"00000003"}});
  Rows third = rows_of(f.query(text, parameters({}, kQuerySkipMetadata, 2, second.paging_state)));
  CHECK(third.rows == std::vector<std::vector<std::string>>{{"00000004"}, {"0000000a"}});
  Rows last = rows_of(f.query(text, parameters({}, kQuerySkipMetadata, 2, third.paging_state)));
  CHECK(last.rows.empty());
  CHECK(!last.paging_state);

  // Junk, or another query's state, is Cassandra's protocol error for a state it cannot read.
  const std::pair<int32_t, std::string> invalid{0x000A, "Invalid value for the paging state"};
  CHECK(error_of(f.query(text, parameters({}, kQuerySkipMetadata, 2, std::string("junk")))) ==
        invalid);
  CHECK(error_of(f.query("SELECT c FROM ks.t WHERE k = 2",
                         parameters({}, kQuerySkipMetadata, 2, first.paging_state))) == invalid);
  std::string altered = *first.paging_state;
  altered[0] = static_cast<char>(altered[0] ^ 1);
  CHECK(error_of(f.query(text, parameters({}, kQuerySkipMetadata, 2, altered))) == invalid);
}

TEST_CASE("server BATCH: query strings and prepared ids with values; Cassandra's errors") {
  Fixture f;
  f.query("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
  f.query("CREATE TABLE ks.c (k int PRIMARY KEY, n counter)");
  const std::string insert = f.prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)");
  auto batch = [&](uint8_t type, const std::vector<std::pair<bool, std::string>>& children,
                   const std::vector<std::vector<std::string>>& values) {
    BodyWriter out;
    out.write_byte(type);
    out.write_short(static_cast<uint16_t>(children.size()));
    for (size_t i = 0; i < children.size(); ++i) {
      out.write_byte(children[i].first ? 1 : 0);
      if (children[i].first) {
        out.write_short_bytes(children[i].second);
      } else {
        out.write_long_string(children[i].second);
      }
      out.write_short(static_cast<uint16_t>(values[i].size()));
      for (const std::string& v : values[i]) out.write_bytes(v);
    }
    out.write_short(0x0001);
    out.write_byte(0);
    return f.send(Opcode::kBatch, out.body());
  };
  CHECK(batch(0,
              {{true, insert},
               {false, "INSERT INTO ks.t (k, v) VALUES (?, 'two')"},
               {false, "DELETE FROM ks.t WHERE k = 3"}},
              {{int_value(1), "one"}, {int_value(2)}, {}})
            .opcode == static_cast<uint8_t>(Opcode::kResult));
  CHECK(rows_of(f.query("SELECT k, v FROM ks.t", parameters({}, kQuerySkipMetadata))).rows ==
        std::vector<std::vector<std::string>>{{"00000001", hex("one")}, {"00000002", hex("two")}});
  CHECK(error_of(batch(1,
                       {{false, "UPDATE ks.c SET n = n + 1 WHERE k = 1"},
                        {false, "INSERT INTO ks.t (k, v) VALUES (3, 'x')"}},
                       {{}, {}}))
            .second == "Counter and non-counter mutations cannot exist in the same batch");
  CHECK(error_of(batch(0, {{false, "SELECT * FROM ks.t"}}, {{}})).second ==
        "Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.");
  Response unknown = batch(0, {{true, std::string(16, '\x01')}}, {{}});
  CHECK(error_of(unknown).first == 0x2500);
}

}  // namespace
}  // namespace cassette::server
