// Writes the seed corpora of the fuzz targets, so that no binary seed is committed:
//
//   make_fuzz_seeds REPOSITORY_DIR OUT_DIR
//
// makes OUT_DIR/<target>/ for every target in tests/fuzz, from
//  - the CQL golden corpus (tests/cql/*.cql): its statements one by one (cql_parser) and in
//    runs of 30 after the schema statements of their file (cql_execute), and those runs as
//    native protocol frames after a STARTUP (server_protocol);
//  - a store this program fills through CQL (collections, statics, TTLs, deletions, range
//    tombstones, counters), one table uncompressed with 1 KiB blocks and one compressed: its
//    commit-log segment, its SSTables, their blocks and footers, its MANIFEST and its catalog's
//    records;
//  - values of every type, from their string forms: as JSON (value_json), as string and literal
//    forms (cql_literal) and as byte-comparable keys (key_decode).
// Each seed starts with the byte(s) its target reads first (see each target's header comment).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/cql/lexer.h"
#include "engine/cql/parser.h"
#include "engine/cql/session.h"
#include "engine/schema/catalog_codec.h"
#include "engine/storage/block_format.h"
#include "engine/storage/commit_log.h"
#include "engine/storage/sstable_footer.h"
#include "engine/types/byte_comparable.h"
#include "engine/types/value.h"
#include "engine/util/file.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using types::CqlType;
using types::TypeKind;
namespace fs = std::filesystem;

class Corpus {
 public:
  explicit Corpus(fs::path dir) : dir_(std::move(dir)) {}
  void add(const std::string& target, std::string_view prefix, std::string_view body) {
    std::string seed = std::string(prefix) + std::string(body);
    if (!seen_[target].insert(seed).second) return;
    fs::create_directories(dir_ / target);
    char name[32];
    std::snprintf(name, sizeof name, "seed-%05zu", seen_[target].size());
    std::ofstream(dir_ / target / name, std::ios::binary).write(seed.data(), seed.size());
  }
  size_t count(const std::string& target) { return seen_[target].size(); }

 private:
  fs::path dir_;
  std::map<std::string, std::set<std::string>> seen_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool is_schema_statement(std::string_view text) {
  const auto tokens = cql::tokenize(text).tokens;
  for (const cql::Token& t : tokens) {
    if (t.hidden()) continue;
    std::string word = t.text;
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return word == "create" || word == "use" || word == "alter";
  }
  return false;
}

// A native protocol request frame (ext/server/frame.h; v5 calls it an envelope): version,
// flags, stream, opcode, body length, body.
std::string protocol_frame(uint8_t opcode, uint16_t stream, std::string_view body,
                           char version = '\x04') {
  std::string out{version, '\x00', static_cast<char>(stream >> 8), static_cast<char>(stream),
                  static_cast<char>(opcode)};
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>(body.size() >> shift));
  return out + std::string(body);
}

// STARTUP (CQL_VERSION 3.0.0), then each statement of `script` as a QUERY at consistency ONE.
std::string protocol_session(std::string_view script) {
  using namespace std::string_literals;
  std::string frames =
      protocol_frame(0x01, 0, "\x00\x01\x00\x0b"s + "CQL_VERSION" + "\x00\x05"s + "3.0.0");
  uint16_t stream = 1;
  for (const cql::ScriptStatement& s : cql::split_statements(script)) {
    std::string body;
    for (int shift = 24; shift >= 0; shift -= 8) {
      body.push_back(static_cast<char>(s.text.size() >> shift));
    }
    body += s.text + "\x00\x01\x00"s;  // consistency ONE, no flags
    frames += protocol_frame(0x07, stream++, body);
  }
  return frames;
}

// A segment as server_protocol_fuzzer reads one in segment mode: a control byte (bit 0
// self-contained, bit 1 a wrong header CRC, bit 2 a wrong payload CRC, bit 3 LZ4), a 2-byte
// big-endian length, the payload.
std::string segment_description(std::string_view payload, uint8_t control) {
  std::string out{static_cast<char>(control), static_cast<char>(payload.size() >> 8),
                  static_cast<char>(payload.size())};
  return out + std::string(payload);
}

// Protocol v5: STARTUP (with `compression` when not empty) in a v5 frame, then each statement of
// `script` as a v5 QUERY (flags an [int]), ten envelopes to a self-contained segment, then one
// envelope split over two segments that are not self-contained.
std::string protocol_session_v5(std::string_view script, std::string_view compression,
                                uint8_t extra_control) {
  using namespace std::string_literals;
  std::string startup = "\x00\x01\x00\x0b"s + "CQL_VERSION" + "\x00\x05"s + "3.0.0";
  if (!compression.empty()) {
    startup = "\x00\x02\x00\x0b"s + "CQL_VERSION" + "\x00\x05"s + "3.0.0" + "\x00\x0b"s +
              "COMPRESSION" + "\x00"s + static_cast<char>(compression.size()) +
              std::string(compression);
  }
  std::string out = protocol_frame(0x01, 0, startup, '\x05');
  auto query = [](std::string_view text, uint16_t stream) {
    std::string body;
    for (int shift = 24; shift >= 0; shift -= 8) {
      body.push_back(static_cast<char>(text.size() >> shift));
    }
    body += std::string(text) + "\x00\x01\x00\x00\x00\x00"s;  // ONE, no flags
    return protocol_frame(0x07, stream, body, '\x05');
  };
  uint16_t stream = 1;
  std::string payload;
  int in_segment = 0;
  for (const cql::ScriptStatement& s : cql::split_statements(script)) {
    payload += query(s.text, stream++);
    if (++in_segment == 10 || payload.size() > 30000) {
      out += segment_description(payload, 1 | extra_control);
      payload.clear();
      in_segment = 0;
    }
  }
  if (!payload.empty()) out += segment_description(payload, 1 | extra_control);
  const std::string large = query("SELECT * FROM system.local", stream);
  out += segment_description(large.substr(0, 20), 0 | extra_control);
  out += segment_description(large.substr(20), 0 | extra_control);
  return out;
}

void add_cql_seeds(const fs::path& repository, Corpus& corpus) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(repository / "tests/cql")) {
    if (entry.path().extension() == ".cql") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const auto statements = cql::split_statements(read_file(file));
    std::string schema;
    std::string run;
    size_t in_run = 0;
    for (const cql::ScriptStatement& s : statements) {
      corpus.add("cql_parser", "", s.text);
      if (is_schema_statement(s.text) && schema.size() < 2000) schema += s.text + ";\n";
      run += s.text + ";\n";
      if (++in_run == 30) {
        corpus.add("cql_execute", "", schema + run);
        corpus.add("server_protocol", "", protocol_session(schema + run));
        corpus.add("server_protocol", "", protocol_session_v5(schema + run, "", 0));
        run.clear();
        in_run = 0;
      }
    }
    if (!run.empty()) {
      corpus.add("cql_execute", "", schema + run);
      corpus.add("server_protocol", "", protocol_session(schema + run));
      corpus.add("server_protocol", "", protocol_session_v5(schema + run, "", 0));
    }
  }
  // v5 with LZ4 segments (control bit 3), and with bad header and payload CRCs.
  const std::string script =
      "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
      "'replication_factor': 1}; CREATE TABLE ks.t (k int PRIMARY KEY, "
      "v text); INSERT INTO ks.t (k, v) VALUES (1, 'one'); SELECT * FROM "
      "ks.t;";
  corpus.add("server_protocol", "", protocol_session_v5(script, "lz4", 8));
  corpus.add("server_protocol", "", protocol_session_v5(script, "lz4", 0));
  corpus.add("server_protocol", "", protocol_session_v5(script, "", 2));
  corpus.add("server_protocol", "", protocol_session_v5(script, "", 4));
}

// ---- a store's files --------------------------------------------------------------------------

constexpr const char* kStoreScript[] = {
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TYPE ks.address (street text, number int)",
    "CREATE TABLE ks.raw (k int, c text, d int, v text, s int static, l list<int>, "
    "m map<text, int>, a frozen<ks.address>, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY "
    "(c DESC, d ASC) AND compression = {'class': 'NoopCompressor', 'chunk_length_in_kb': 1}",
    "CREATE TABLE ks.packed (k text PRIMARY KEY, v blob, st set<uuid>, t tuple<int, text>)",
    "CREATE TABLE ks.counts (k int PRIMARY KEY, n counter)",
    "CREATE INDEX ON ks.raw (v)",
};

void fill_store(cql::Session& session) {
  auto run = [&](const std::string& statement) {
    auto r = session.execute(statement);
    if (!r.is_ok()) {
      std::fprintf(stderr, "make_fuzz_seeds: %s: %s\n", statement.c_str(),
                   r.status().message().c_str());
      std::exit(1);
    }
  };
  for (const char* statement : kStoreScript) run(statement);
  for (int k = 0; k < 12; ++k) {
    for (int c = 0; c < 15; ++c) {
      run(
          fmt::format("INSERT INTO ks.raw (k, c, d, v, l, m, a) VALUES ({}, 'c{}', {}, "
                      "'value {} {}', [{}, {}], {{'x': {}}}, {{street: 'Main', number: {}}})"
                      "{}",
                      k, c % 5, c, k, c, c, k, c, k, c % 4 == 0 ? " USING TTL 86400" : ""));
    }
    run(fmt::format("UPDATE ks.raw SET s = {} WHERE k = {}", k * 10, k));
    run(
        fmt::format("INSERT INTO ks.packed (k, v, st, t) VALUES ('key{}', 0x{:04x}, "
                    "{{123e4567-e89b-12d3-a456-42661417400{}}}, ({}, 'x'))",
                    k, k * 257, k % 10, k));
    run(fmt::format("UPDATE ks.counts SET n = n + {} WHERE k = {}", k + 1, k % 5));
  }
  run("DELETE FROM ks.raw WHERE k = 3 AND c = 'c1'");
  run("DELETE FROM ks.raw WHERE k = 4 AND c > 'c2'");
  run("DELETE l[0] FROM ks.raw WHERE k = 5 AND c = 'c0' AND d = 0");
  run("DELETE FROM ks.raw WHERE k = 6");
  run("DELETE v FROM ks.packed WHERE k = 'key1'");
  run("BEGIN BATCH INSERT INTO ks.packed (k, v) VALUES ('b1', 0x01); "
      "INSERT INTO ks.packed (k, v) VALUES ('b2', 0x02); APPLY BATCH");
}

std::string piece(std::string_view bytes) {  // InputReader::piece's form
  std::string out;
  out.push_back(static_cast<char>(bytes.size() & 0xff));
  out.push_back(static_cast<char>(bytes.size() >> 8));
  return out + std::string(bytes);
}

void add_log_seeds(const std::string& store_dir, Corpus& corpus) {
  const std::string log_dir = store_dir + "/log";
  const std::string segment = read_file(log_dir + "/" + storage::commit_log_segment_name(1));
  corpus.add("commit_log", std::string(1, '\0'), segment);
  std::string framed;
  size_t records = 0;
  storage::LogPosition end;
  Status s = storage::read_commit_log(
      log_dir, {0, 0},
      [&](storage::LogPosition, storage::LogPosition, std::string_view payload) {
        if (payload.size() < 65536) {
          corpus.add("commit_log", "\x01", piece(payload));
          if (++records % 8 == 0) {
            corpus.add("commit_log", "\x01", framed);
            framed.clear();
          }
          framed += piece(payload);
        }
        return Status::ok();
      },
      &end);
  if (!s.is_ok()) std::fprintf(stderr, "make_fuzz_seeds: %s\n", s.message().c_str());
  corpus.add("commit_log", "\x01", framed);
  // a torn tail
  corpus.add("commit_log", std::string(1, '\0'), segment.substr(0, segment.size() - 3));
}

void add_sstable_seeds(const std::string& store_dir, Corpus& corpus) {
  for (const auto& entry : fs::directory_iterator(store_dir + "/data")) {
    if (entry.path().extension() != ".sst") continue;
    const std::string file = read_file(entry.path());
    corpus.add("sstable_file", std::string(1, '\0'), file);
    corpus.add("sstable_file", "\x01", file);
    corpus.add("sstable_block", "\x01", file.substr(file.size() - storage::kSSTableFooterSize));
    std::string handles;
    fuzz::for_each_stored_block(file, [&](uint64_t offset, uint64_t size) {
      const std::string_view payload = std::string_view(file).substr(offset, size);
      if (file[offset + size] == 0) corpus.add("sstable_block", std::string(1, '\0'), payload);
      corpus.add("sstable_block", "\x02", std::string_view(file).substr(offset, size + 5));
      storage::encode_block_handle({offset, size}, &handles);
    });
    corpus.add("sstable_block", "\x03", handles);
  }
}

void add_manifest_seeds(const std::string& store_dir, Corpus& corpus) {
  const std::string manifest = read_file(store_dir + "/MANIFEST");
  corpus.add("manifest", std::string(1, '\0'), manifest);
  corpus.add("manifest", "\x02", "");
  corpus.add("manifest", "\x03", std::string("\x10\x01\x30\x80", 4));  // two patched bytes
}

void add_catalog_seeds(cql::Session& session, Corpus& corpus) {
  namespace codec = schema::codec;
  auto schema = session.catalog().current();
  if (!schema.is_ok()) return;
  corpus.add("catalog_codec", std::string(1, '\0'),
             codec::encode_version({(*schema)->version, (*schema)->next_table_id}));
  for (const auto& [name, keyspace] : (*schema)->keyspaces) {
    corpus.add("catalog_codec", "\x01", codec::encode_keyspace(*keyspace));
    for (const auto& [table_name, table] : keyspace->tables) {
      corpus.add("catalog_codec", "\x02", codec::encode_table(*table));
    }
    for (const auto& [type_name, type] : keyspace->types) {
      corpus.add("catalog_codec", "\x03", codec::encode_type(*type));
    }
    for (const auto& [index_name, index] : keyspace->indexes) {
      corpus.add("catalog_codec", "\x04", codec::encode_index(*index));
    }
  }
}

void add_store_seeds(const fs::path& out, Corpus& corpus) {
  const std::string dir = fuzz::scratch_path("store");  // on /dev/shm: no waiting for fsyncs
  fs::remove_all(dir);
  storage::StoreOptions options;
  options.sync = storage::SyncMode::kOff;
  options.background_threads = false;
  {
    auto store = storage::Store::open(dir, options);
    auto session = store.is_ok() ? cql::Session::open(*store) : store.status();
    if (!session.is_ok()) {
      std::fprintf(stderr, "make_fuzz_seeds: %s\n", session.status().message().c_str());
      std::exit(1);
    }
    fill_store(**session);
    add_log_seeds(dir, corpus);
    add_catalog_seeds(**session, corpus);
    Status flushed = (*store)->flush();
    if (!flushed.is_ok()) std::fprintf(stderr, "make_fuzz_seeds: %s\n", flushed.message().c_str());
    add_sstable_seeds(dir, corpus);
    add_manifest_seeds(dir, corpus);
  }
  fs::remove_all(dir);
}

// ---- values
// ---------------------------------------------------------------------------------------

struct Sample {
  CqlType type;
  std::vector<std::string> texts;  // string forms (parse_value_string)
};

CqlType simple(TypeKind kind) {
  return CqlType::simple(kind);
}

std::vector<Sample> samples() {
  CqlType udt{TypeKind::kUdt, {simple(TypeKind::kInt), simple(TypeKind::kText)}, true, "ks", "u",
              {"f0", "f1"}};
  return {
      {simple(TypeKind::kAscii), {"abc", "", "it's"}},
      {simple(TypeKind::kBigint), {"-9223372036854775808", "42"}},
      {simple(TypeKind::kBlob), {"0xcafe", "0x"}},
      {simple(TypeKind::kBoolean), {"true", "false"}},
      {simple(TypeKind::kCounter), {"5"}},
      {simple(TypeKind::kDate), {"2024-01-02", "-5877641-06-23"}},
      {simple(TypeKind::kDecimal), {"-12.345E+6", "0.000001", "12345678901234567890.123456789"}},
      {simple(TypeKind::kDouble), {"1.5E300", "-0.0", "NaN", "Infinity"}},
      {simple(TypeKind::kDuration), {"1h30m", "-2d", "P1DT2H", "P0001-02-03T04:05:06"}},
      {simple(TypeKind::kFloat), {"3.25", "-1.0E-30"}},
      {simple(TypeKind::kInet), {"192.168.0.1", "::1", "2001:db8::ff00:42:8329"}},
      {simple(TypeKind::kInt), {"-42", "2147483647"}},
      {simple(TypeKind::kSmallint), {"123", "-32768"}},
      {simple(TypeKind::kText), {"h\xc3\xa9llo", "", "a'b\"c"}},
      {simple(TypeKind::kTime), {"03:04:05.123456789", "00:00:00"}},
      {simple(TypeKind::kTimestamp), {"2024-01-02 03:04:05.678+0100", "1970-01-01T00:00:00Z"}},
      {simple(TypeKind::kTimeuuid), {"50554d6e-29bb-11e5-b345-feff819cdc9f"}},
      {simple(TypeKind::kTinyint), {"-8", "127"}},
      {simple(TypeKind::kUuid), {"123e4567-e89b-42d3-a456-426614174000"}},
      {simple(TypeKind::kVarint), {"123456789012345678901234567890", "-1", "0"}},
      {CqlType::list(simple(TypeKind::kInt)), {"[1, 2, 3]", "[]"}},
      {CqlType::set(simple(TypeKind::kText), true), {"{'a', 'b'}"}},
      {CqlType::map(simple(TypeKind::kText), simple(TypeKind::kInt), true), {"{'k': 1, 'j': -2}"}},
      {CqlType::tuple({simple(TypeKind::kInt), simple(TypeKind::kText)}),
       {"(1, 'x')", "(2, null)"}},
      {udt, {"{f0: 1, f1: 'x'}"}},
      {CqlType::list(CqlType::map(simple(TypeKind::kInt), simple(TypeKind::kText), true), true),
       {"[{1: 'a'}, {2: 'b', 3: 'c'}]"}},
  };
}

std::string type_bytes(const CqlType& type) {
  std::string out;
  fuzz::write_type(type, &out);
  return out;
}

void add_value_seeds(Corpus& corpus) {
  for (const Sample& sample : samples()) {
    const std::string type = type_bytes(sample.type);
    std::vector<std::string> values;
    for (const std::string& text : sample.texts) {
      for (int kind = 0; kind < 7; ++kind) {
        corpus.add("cql_literal", type + static_cast<char>(kind), text);
      }
      auto value = types::parse_value_string(sample.type, text);
      if (!value.is_ok()) {
        std::fprintf(stderr, "make_fuzz_seeds: %s: %s\n", text.c_str(),
                     value.status().message().c_str());
        continue;
      }
      values.push_back(*value);
      corpus.add("value_json", type, types::to_json(sample.type, *value));
      corpus.add("cql_literal", type + '\0',
                 types::format_value(sample.type, *value, types::ValueStyle::kLiteral));
    }
    // keys: one column, two components (for the order check), ASC and DESC
    for (bool descending : {false, true}) {
      std::string key;
      for (const std::string& value : values) {
        if (!types::encode_key_component(sample.type, value, descending, &key).is_ok()) break;
      }
      corpus.add("key_decode", std::string(1, '\0') + type + static_cast<char>(descending), key);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_fuzz_seeds REPOSITORY_DIR OUT_DIR\n");
    return 2;
  }
  const fs::path repository = argv[1];
  const fs::path out = argv[2];
  fs::create_directories(out);
  Corpus corpus(out);
  add_cql_seeds(repository, corpus);
  add_store_seeds(out, corpus);
  add_value_seeds(corpus);
  for (const char* target :
       {"cql_parser", "cql_execute", "commit_log", "sstable_block", "sstable_file", "manifest",
        "catalog_codec", "value_json", "cql_literal", "key_decode"}) {
    std::printf("%s: %zu seeds\n", target, corpus.count(target));
  }
  return 0;
}
