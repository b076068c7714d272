// The CQL native protocol codec and one connection's protocol state (ext/server), without the
// network: frames in, frames out.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/cql/session.h"
#include "engine/storage/store.h"
#include "ext/server/body.h"
#include "ext/server/compression.h"
#include "ext/server/error_codes.h"
#include "ext/server/frame.h"
#include "ext/server/protocol_connection.h"
#include "ext/server/requests.h"
#include "ext/server/result_encoding.h"

namespace cassette::server {
namespace {

using types::CqlType;
using types::TypeKind;

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string type_option(const CqlType& type, uint8_t version = 4) {
  BodyWriter out;
  write_type_option(out, type, version);
  return hex(out.body());
}

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A request frame of protocol v4.
std::string request(Opcode opcode, std::string_view body, int16_t stream = 1, uint8_t flags = 0) {
  FrameHeader header;
  header.stream = stream;
  header.opcode = static_cast<uint8_t>(opcode);
  header.flags = flags;
  return encode_frame(header, body);
}

std::string query_body(std::string_view text, uint8_t flags = 0, std::string_view extra = {}) {
  BodyWriter out;
  out.write_long_string(text);
  out.write_short(0x0001);  // ONE
  out.write_byte(flags);
  return out.take() + std::string(extra);
}

std::string startup_body(std::string_view compression = {}) {
  BodyWriter out;
  out.write_short(compression.empty() ? 1 : 2);
  out.write_string("CQL_VERSION");
  out.write_string("3.0.0");
  if (!compression.empty()) {
    out.write_string("COMPRESSION");
    out.write_string(compression);
  }
  return out.take();
}

// A response frame, decoded.
struct Response {
  FrameHeader header;
  std::string body;
};

Response decode_response(std::string_view frame) {
  REQUIRE(frame.size() >= kFrameHeaderSize);
  Response r{decode_frame_header(as_bytes(frame)), std::string(frame.substr(kFrameHeaderSize))};
  CHECK(r.header.body_length == r.body.size());
  return r;
}

// The code and message of an ERROR body.
std::pair<int32_t, std::string> error_of(const Response& r) {
  REQUIRE(r.header.opcode == static_cast<uint8_t>(Opcode::kError));
  BodyReader in(r.body);
  return {in.read_int().value(), in.read_string().value()};
}

struct ConnectionFixture {
  ConnectionFixture() {
    storage::StoreOptions options;
    options.background_threads = false;
    store = storage::Store::open(":memory:", options).value();
    connection = std::make_unique<ProtocolConnection>(cql::Session::open(store).value(), 1 << 20);
  }

  // Sends one frame; the reply's frames, decoded.
  Response send(std::string_view frame, bool* closed = nullptr) {
    if (auto refusal = connection->check_header(as_bytes(frame))) {
      if (closed) *closed = refusal->close;
      return decode_response(refusal->bytes);
    }
    const FrameHeader header = decode_frame_header(as_bytes(frame));
    Reply reply = connection->handle_frame(header, frame.substr(kFrameHeaderSize));
    if (closed) *closed = reply.close;
    return decode_response(reply.bytes);
  }

  Response query(std::string_view text) { return send(request(Opcode::kQuery, query_body(text))); }

  void start() {
    REQUIRE(send(request(Opcode::kStartup, startup_body())).header.opcode ==
            static_cast<uint8_t>(Opcode::kReady));
  }

  std::shared_ptr<storage::Store> store;
  std::unique_ptr<ProtocolConnection> connection;
};

TEST_CASE("server frame: a header round-trips, the response bit in the version byte") {
  FrameHeader header;
  header.response = true;
  header.flags = kFlagCompression;
  header.stream = -1;
  header.opcode = static_cast<uint8_t>(Opcode::kEvent);
  const std::string frame = encode_frame(header, "abc");
  CHECK(hex(frame) == "8401ffff0c00000003616263");
  const FrameHeader back = decode_frame_header(as_bytes(frame));
  CHECK(back.version == 4);
  CHECK(back.response);
  CHECK(back.stream == -1);
  CHECK(back.body_length == 3);
  // Versions 1 and 2: an 8-byte header with a one-byte stream id.
  header.version = 2;
  header.stream = 7;
  CHECK(hex(encode_frame_for_version(header, "")) ==
        "820107"
        "0c"
        "00000000");
}

TEST_CASE("server body: reads what the notation says and refuses a short body") {
  BodyWriter out;
  out.write_string("ab");
  out.write_int(-2);  // [value] not set
  out.write_int(-1);  // [value] null
  BodyReader in(out.body());
  CHECK(in.read_string().value() == "ab");
  CHECK(in.read_value().value().kind == BoundValue::Kind::kUnset);
  CHECK(in.read_value().value().kind == BoundValue::Kind::kNull);
  CHECK(in.read_int().status().message() == "Not enough bytes to read an [int]");
  BodyReader bad(
      std::string_view("\x00\x05"
                       "ab",
                       4));
  CHECK(bad.read_string().status().message() == "Not enough bytes to read a [string]");
  BodyReader negative(std::string_view("\xff\xff\xff\xfd", 4));
  CHECK(negative.read_value().status().message() == "Invalid [value] length -3");
}

TEST_CASE("server query: every flag's field is read in order") {
  BodyWriter extra;
  extra.write_int(100);             // page size
  extra.write_bytes("state");       // paging state
  extra.write_short(0x0009);        // LOCAL_SERIAL
  extra.write_long(1234567890123);  // default timestamp
  const uint8_t flags =
      kQueryPageSize | kQueryPagingState | kQuerySerialConsistency | kQueryDefaultTimestamp;
  auto q = decode_query(query_body("SELECT 1", flags, extra.body()), 4);
  REQUIRE(q.is_ok());
  CHECK(q->query == "SELECT 1");
  CHECK(q->parameters.consistency == 1);
  CHECK(q->parameters.page_size == 100);
  CHECK(q->parameters.paging_state == "state");
  CHECK(q->parameters.serial_consistency == 9);
  CHECK(q->parameters.default_timestamp == 1234567890123);
  CHECK(decode_query(query_body("SELECT 1", kQueryPageSize), 4).status().message() ==
        "Not enough bytes to read an [int]");
}

TEST_CASE("server types: each CQL type's [option], as Cassandra writes it for v4") {
  CHECK(type_option(CqlType::simple(TypeKind::kInt)) == "0009");
  CHECK(type_option(CqlType::simple(TypeKind::kText)) == "000d");
  CHECK(type_option(CqlType::simple(TypeKind::kAscii)) == "0001");
  CHECK(type_option(CqlType::simple(TypeKind::kTinyint)) == "0014");
  CHECK(type_option(CqlType::simple(TypeKind::kCounter)) == "0005");
  // Duration has no id before v5: the custom type, by its Cassandra class name.
  CHECK(type_option(CqlType::simple(TypeKind::kDuration)) ==
        "0000"
        "002c" +
            hex("org.apache.cassandra.db.marshal.DurationType"));
  // From v5 on it is id 0x0015, inside collections too.
  CHECK(type_option(CqlType::simple(TypeKind::kDuration), 5) == "0015");
  CHECK(type_option(CqlType::list(CqlType::simple(TypeKind::kDuration)), 5) == "00200015");
  CHECK(type_option(CqlType::simple(TypeKind::kInt), 5) == "0009");
  CHECK(type_option(CqlType::list(CqlType::simple(TypeKind::kInt))) == "00200009");
  CHECK(type_option(CqlType::set(CqlType::simple(TypeKind::kUuid), true)) == "0022000c");
  CHECK(type_option(CqlType::map(CqlType::simple(TypeKind::kText),
                                 CqlType::list(CqlType::simple(TypeKind::kBigint), true))) ==
        "0021000d00200002");
  CHECK(type_option(CqlType::tuple({CqlType::simple(TypeKind::kInt),
                                    CqlType::simple(TypeKind::kBoolean)})) == "0031000200090004");
  CqlType udt{TypeKind::kUdt, {CqlType::simple(TypeKind::kText)}, true, "ks", "addr", {"city"}};
  CHECK(type_option(udt) ==
        "0030"
        "0002" +
            hex("ks") + "0004" + hex("addr") +
            "0001"
            "0004" +
            hex("city") + "000d");
}

TEST_CASE("server errors: the engine's status codes map to the protocol's") {
  CHECK(error_code_for(StatusCode::kSyntaxError) == ErrorCode::kSyntaxError);
  CHECK(error_code_for(StatusCode::kInvalidArgument) == ErrorCode::kInvalid);
  CHECK(error_code_for(StatusCode::kAlreadyExists) == ErrorCode::kAlreadyExists);
  CHECK(error_code_for(StatusCode::kConfiguration) == ErrorCode::kConfigError);
  CHECK(error_code_for(StatusCode::kUnauthorized) == ErrorCode::kUnauthorized);
  CHECK(error_code_for(StatusCode::kBusy) == ErrorCode::kOverloaded);
  CHECK(error_code_for(StatusCode::kIOError) == ErrorCode::kServerError);
  CHECK(unsupported_version_message(6) ==
        "Invalid or unsupported protocol version (6); supported versions are (3/v3, 4/v4, 5/v5)");
}

TEST_CASE("server compression: lz4 and snappy bodies round-trip; a lying length is refused") {
  const std::string body(1000, 'x');
  for (Compression c : {Compression::kLz4, Compression::kSnappy}) {
    const std::string packed = compress_body(c, body);
    CHECK(packed.size() < body.size());
    CHECK(decompress_body(c, packed, 1 << 20).value() == body);
    CHECK(decompress_body(c, packed, 999).status().message() ==
          "Request is too big: length 1000 exceeds maximum allowed length 999.");
  }
  CHECK(decompress_body(Compression::kLz4, std::string("\x00\x00\x00\x05zz", 6), 100)
            .status()
            .message() == "Invalid LZ4 frame body: corrupt block");
}

TEST_CASE("server connection: OPTIONS before STARTUP, then READY") {
  ConnectionFixture f;
  Response supported = f.send(request(Opcode::kOptions, "", 3));
  CHECK(supported.header.opcode == static_cast<uint8_t>(Opcode::kSupported));
  CHECK(supported.header.stream == 3);
  BodyReader in(supported.body);
  CHECK(in.read_short().value() == 3);
  CHECK(in.read_string().value() == "CQL_VERSION");
  CHECK(in.read_string_list().value() == std::vector<std::string>{"3.4.7"});
  CHECK(in.read_string().value() == "COMPRESSION");
  CHECK(in.read_string_list().value() == std::vector<std::string>{"lz4", "snappy"});
  CHECK(in.read_string().value() == "PROTOCOL_VERSIONS");
  CHECK(in.read_string_list().value() == std::vector<std::string>{"3/v3", "4/v4", "5/v5"});

  CHECK(error_of(f.query("SELECT 1")) ==
        std::pair<int32_t, std::string>{0x000A,
                                        "Unexpected message QUERY, expecting STARTUP or OPTIONS"});
  BodyWriter no_version;
  no_version.write_short(0);
  CHECK(error_of(f.send(request(Opcode::kStartup, no_version.body()))).second ==
        "Missing value CQL_VERSION in STARTUP message");
  CHECK(error_of(f.send(request(Opcode::kStartup, startup_body("zip")))).second ==
        "Unknown compression algorithm: zip");
  f.start();
  CHECK(error_of(f.send(request(Opcode::kStartup, startup_body()))).second ==
        "Unexpected message STARTUP, the connection is already initialized");
}

TEST_CASE("server connection: frames it cannot continue after close the connection") {
  ConnectionFixture f;
  bool closed = false;
  std::string v6 = request(Opcode::kOptions, "");
  v6[0] = 6;
  Response refused = f.send(v6, &closed);
  CHECK(closed);
  CHECK(refused.header.version == 5);  // the newest the server speaks
  CHECK(error_of(refused) ==
        std::pair<int32_t, std::string>{0x000A,
                                        "Invalid or unsupported protocol version (6); supported "
                                        "versions are (3/v3, 4/v4, 5/v5)"});

  FrameHeader big;
  big.opcode = static_cast<uint8_t>(Opcode::kQuery);
  big.body_length = (1 << 20) + 1;
  std::string header = encode_frame(big, "");
  header[5] = 0x00, header[6] = 0x10, header[7] = 0x00, header[8] = 0x01;  // 1 MiB + 1
  CHECK(error_of(f.send(header, &closed)).second ==
        "Request is too big: length 1048577 exceeds maximum allowed length 1048576.");
  CHECK(closed);

  CHECK(error_of(f.send(request(Opcode::kOptions, "", 1, kFlagCompression), &closed)).second ==
        "Received a compressed frame, but no compression was agreed at STARTUP");
  CHECK(closed);

  // An unknown opcode is refused on its stream; the connection goes on.
  CHECK(error_of(f.send(request(static_cast<Opcode>(0x04), ""), &closed)) ==
        std::pair<int32_t, std::string>{0x000A, "Unknown opcode 4"});
  CHECK_FALSE(closed);
}

TEST_CASE("server connection: QUERY runs statements and answers each RESULT kind") {
  ConnectionFixture f;
  f.start();
  Response created = f.query(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  BodyReader change(created.body);
  CHECK(change.read_int().value() == kResultSchemaChange);
  CHECK(change.read_string().value() == "CREATED");
  CHECK(change.read_string().value() == "KEYSPACE");
  CHECK(change.read_string().value() == "ks");
  CHECK(change.remaining() == 0);

  Response used = f.query("USE ks");
  BodyReader use(used.body);
  CHECK(use.read_int().value() == kResultSetKeyspace);
  CHECK(use.read_string().value() == "ks");

  Response table_response = f.query("CREATE TABLE t (k int PRIMARY KEY, v text)");
  BodyReader table(table_response.body);
  CHECK(table.read_int().value() == kResultSchemaChange);
  CHECK(table.read_string().value() == "CREATED");
  CHECK(table.read_string().value() == "TABLE");
  CHECK(table.read_string().value() == "ks");
  CHECK(table.read_string().value() == "t");

  Response inserted_response = f.query("INSERT INTO t (k, v) VALUES (1, 'one')");
  BodyReader inserted(inserted_response.body);
  CHECK(inserted.read_int().value() == kResultVoid);

  Response rows = f.query("SELECT k, v FROM t");
  CHECK(hex(rows.body) ==
        "00000002"  // Rows
        "00000001"
        "00000002"  // global table spec, 2 columns
        "0002" +
            hex("ks") + "0001" + hex("t") + "0001" + hex("k") + "0009" + "0001" + hex("v") +
            "000d" +
            "00000001"  // one row
            "00000004"
            "00000001"
            "00000003" +
            hex("one"));

  // The same with Skip_metadata: only the column count.
  Response bare =
      f.send(request(Opcode::kQuery, query_body("SELECT v FROM t", kQuerySkipMetadata)));
  CHECK(hex(bare.body) ==
        "00000002"
        "00000004"
        "00000001"
        "00000001"
        "00000003" +
            hex("one"));
}

TEST_CASE("server connection: errors carry Cassandra's codes, messages and extra fields") {
  ConnectionFixture f;
  f.start();
  CHECK(error_of(f.query("SELEC 1")).first == 0x2000);
  CHECK(error_of(f.query("SELECT * FROM nowhere.t")) ==
        std::pair<int32_t, std::string>{0x2200, "keyspace nowhere does not exist"});
  f.query(
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}");
  f.query("CREATE TABLE ks.t (k int PRIMARY KEY)");
  Response exists = f.query("CREATE TABLE ks.t (k int PRIMARY KEY)");
  BodyReader in(exists.body);
  CHECK(in.read_int().value() == 0x2400);
  CHECK(in.read_string().value() == "Cannot add already existing table \"t\" to keyspace \"ks\"");
  CHECK(in.read_string().value() == "ks");
  CHECK(in.read_string().value() == "t");

  BodyWriter values;
  values.write_short(1);
  values.write_bytes(std::string("\x00\x00\x01", 3));
  // A bound value of the wrong size: the engine's message, as an Invalid error.
  CHECK(error_of(f.send(request(Opcode::kQuery, query_body("SELECT * FROM ks.t WHERE k = ?",
                                                           kQueryValues, values.body())))) ==
        std::pair<int32_t, std::string>{0x2200, "Expected 4 or 0 byte int (3)"});
}

TEST_CASE("server connection: after STARTUP with lz4, responses are compressed") {
  ConnectionFixture f;
  Response ready = f.send(request(Opcode::kStartup, startup_body("lz4")));
  CHECK(ready.header.flags == 0);  // READY itself is not compressed
  const std::string body = compress_body(Compression::kLz4, query_body("SELECT * FROM nowhere.t"));
  Response error = f.send(request(Opcode::kQuery, body, 9, kFlagCompression));
  CHECK(error.header.stream == 9);
  CHECK(error.header.flags == kFlagCompression);
  error.body = decompress_body(Compression::kLz4, error.body, 1 << 20).value();
  CHECK(error_of(error).second == "keyspace nowhere does not exist");
}

}  // namespace
}  // namespace cassette::server
