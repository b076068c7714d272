// slice_floor: the fastest a virtual table can answer the SQLite bench's slice query, measured so
// that the bench can say how much of a slice is SQLite's virtual-table interface and how much is
// the storage behind it (`make bench`, tests/bench/sqlite_bench.py).
//
//   .load ./build-bench/slice_floor
//   CREATE VIRTUAL TABLE events USING slice_floor('native.db', 50);
//   SELECT * FROM events WHERE source = 'source-7' AND hour = 3 ORDER BY ts DESC LIMIT 50;
//
// At CREATE it copies, from the `events` table of the named SQLite database (the bench's native
// WITHOUT ROWID table), the newest N rows of every (source, hour) into memory. A query is then a
// hash lookup and an array walk: no storage, no decoding, nothing but the calls every virtual
// table makes (xFilter, xNext, xEof, one xColumn and one sqlite3_result_* per value, the text
// results handed over NUL-terminated with SQLITE_TRANSIENT as Cassette's are). Whatever separates
// this table from native SQLite is the interface; whatever separates Cassette from it is ours.
//
// xBestIndex consumes EQ on source and hour (both required), LIMIT, and ORDER BY ts DESC.
// A benchmark tool, not part of the product: it answers only that query shape.
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

struct Row {
  std::string source;
  int64_t hour;
  int64_t ts;
  std::string kind;
  std::string payload;
};

// The partition key as one string: source bytes, a separator no text holds here, the hour.
std::string partition_key(std::string_view source, int64_t hour) {
  std::string key(source);
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&hour), sizeof hour);
  return key;
}

struct FloorTable {
  sqlite3_vtab base{};
  std::unordered_map<std::string, std::vector<Row>> partitions;
};

struct FloorCursor {
  sqlite3_vtab_cursor base{};
  const std::vector<Row>* rows = nullptr;
  size_t at = 0;
  size_t end = 0;
};

std::string unquote(const char* argument) {
  std::string s(argument);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"')) s = s.substr(1, s.size() - 2);
  return s;
}

// Reads the newest `per_partition` rows of every partition of `path`'s events table.
int load(FloorTable* table, const std::string& path, int64_t per_partition, char** error) {
  sqlite3* source = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &source, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  if (rc == SQLITE_OK) {
    rc = sqlite3_prepare_v2(source,
                            "SELECT source, hour, ts, kind, payload FROM events "
                            "ORDER BY source, hour, ts DESC",
                            -1, &stmt, nullptr);
  }
  while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    rc = SQLITE_OK;
    auto text = [&](int column) {
      const unsigned char* t = sqlite3_column_text(stmt, column);
      return std::string(t ? reinterpret_cast<const char*>(t) : "");
    };
    Row row{text(0), sqlite3_column_int64(stmt, 1), sqlite3_column_int64(stmt, 2), text(3),
            text(4)};
    std::vector<Row>& rows = table->partitions[partition_key(row.source, row.hour)];
    if (static_cast<int64_t>(rows.size()) < per_partition) rows.push_back(std::move(row));
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;  // every row read; anything else stopped the read
  if (rc != SQLITE_OK)
    *error = sqlite3_mprintf("slice_floor: %s: %s", path.c_str(), sqlite3_errmsg(source));
  sqlite3_finalize(stmt);
  sqlite3_close(source);
  return rc;
}

int floor_create(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** error) {
  if (argc != 5) {
    *error = sqlite3_mprintf("slice_floor takes a database path and a row count per partition");
    return SQLITE_ERROR;
  }
  auto table = std::make_unique<FloorTable>();
  int rc = load(table.get(), unquote(argv[3]), std::strtoll(argv[4], nullptr, 10), error);
  if (rc == SQLITE_OK) {
    rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(source text, hour int, ts bigint, kind text, payload text)");
  }
  if (rc != SQLITE_OK) return rc;
  *out = &table.release()->base;
  return SQLITE_OK;
}

int floor_disconnect(sqlite3_vtab* table) {
  delete reinterpret_cast<FloorTable*>(table);
  return SQLITE_OK;
}

// argv: 1 = source, 2 = hour, 3 = LIMIT (optional).
int floor_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int keys = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable) continue;
    if (c.op == SQLITE_INDEX_CONSTRAINT_EQ && (c.iColumn == 0 || c.iColumn == 1)) {
      info->aConstraintUsage[i].argvIndex = c.iColumn + 1;
      info->aConstraintUsage[i].omit = 1;
      ++keys;
    } else if (c.op == SQLITE_INDEX_CONSTRAINT_LIMIT) {
      info->aConstraintUsage[i].argvIndex = 3;
      info->aConstraintUsage[i].omit = 1;
    }
  }
  if (keys != 2) return SQLITE_CONSTRAINT;  // only the partition slice
  info->estimatedCost = 10;
  info->orderByConsumed =
      info->nOrderBy == 1 && info->aOrderBy[0].iColumn == 2 && info->aOrderBy[0].desc;
  return SQLITE_OK;
}

int floor_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = &(new FloorCursor)->base;
  return SQLITE_OK;
}

int floor_close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<FloorCursor*>(cursor);
  return SQLITE_OK;
}

int floor_filter(sqlite3_vtab_cursor* base, int, const char*, int argc, sqlite3_value** argv) {
  auto* cursor = reinterpret_cast<FloorCursor*>(base);
  auto* table = reinterpret_cast<FloorTable*>(base->pVtab);
  cursor->rows = nullptr;
  cursor->at = cursor->end = 0;
  const unsigned char* source = sqlite3_value_text(argv[0]);
  if (source == nullptr) return SQLITE_OK;
  auto found = table->partitions.find(
      partition_key(reinterpret_cast<const char*>(source), sqlite3_value_int64(argv[1])));
  if (found == table->partitions.end()) return SQLITE_OK;
  cursor->rows = &found->second;
  cursor->end = found->second.size();
  if (argc > 2) {
    const int64_t limit = sqlite3_value_int64(argv[2]);
    if (limit >= 0 && static_cast<size_t>(limit) < cursor->end)
      cursor->end = static_cast<size_t>(limit);
  }
  return SQLITE_OK;
}

int floor_next(sqlite3_vtab_cursor* cursor) {
  ++reinterpret_cast<FloorCursor*>(cursor)->at;
  return SQLITE_OK;
}

int floor_eof(sqlite3_vtab_cursor* base) {
  auto* cursor = reinterpret_cast<FloorCursor*>(base);
  return cursor->at >= cursor->end;
}

int floor_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  auto* cursor = reinterpret_cast<FloorCursor*>(base);
  const Row& row = (*cursor->rows)[cursor->at];
  switch (column) {
    case 0:
      sqlite3_result_text(context, row.source.c_str(), -1, SQLITE_TRANSIENT);
      break;
    case 1:
      sqlite3_result_int64(context, row.hour);
      break;
    case 2:
      sqlite3_result_int64(context, row.ts);
      break;
    case 3:
      sqlite3_result_text(context, row.kind.c_str(), -1, SQLITE_TRANSIENT);
      break;
    default:
      sqlite3_result_text(context, row.payload.c_str(), -1, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int floor_rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<FloorCursor*>(cursor)->at);
  return SQLITE_OK;
}

const sqlite3_module* floor_module() {
  static const sqlite3_module module = [] {
    sqlite3_module m{};
    m.xCreate = floor_create;
    m.xConnect = floor_create;
    m.xBestIndex = floor_best_index;
    m.xDisconnect = floor_disconnect;
    m.xDestroy = floor_disconnect;
    m.xOpen = floor_open;
    m.xClose = floor_close;
    m.xFilter = floor_filter;
    m.xNext = floor_next;
    m.xEof = floor_eof;
    m.xColumn = floor_column;
    m.xRowid = floor_rowid;
    return m;
  }();
  return &module;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int sqlite3_slicefloor_init(
    sqlite3* db, char**, const sqlite3_api_routines* api) {
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_module(db, "slice_floor", floor_module(), nullptr);
}
