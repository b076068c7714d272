// cql_rows(statement): an eponymous-only table-valued function over a CQL statement's result.
//
//   SELECT row, json FROM cql_rows('SELECT k, v FROM ks.t');
//   SELECT json_extract(json, '$.v') FROM cql_rows('SELECT * FROM ks.t WHERE k = 1');
//
// Columns: row (1, 2, ...), json (the row as a JSON object, as cql() gives it), and the hidden
// argument `statement`. Only statements that answer with rows and write nothing run (SELECT,
// DESCRIBE: cql::statement_returns_rows); any other is refused before it runs. The statement runs
// in xFilter; its rows are held by the cursor (a CQL result, already bounded by the statement's
// own LIMIT/paging).
//
// The same module makes tables with the result's own columns:
//   CREATE VIRTUAL TABLE temp.recent USING cql_rows('SELECT k, v FROM ks.t WHERE k = 1');
//   SELECT v FROM recent;          -- re-runs the SELECT at each scan; columns typed as mapped
// (the statement runs once when the table is created or connected, to learn its columns).
#include <cctype>

#include "engine/cql/parser.h"
#include "engine/cql/statement_kind.h"
#include "ext/sqlite/cql_table.h"
#include "ext/sqlite/functions.h"
#include "ext/sqlite/value_mapping.h"

namespace cassette::sqlite {

namespace {

struct RowsTable {
  sqlite3_vtab base;
  Connection* connection;
  std::string statement;                   // table mode: the SELECT (empty: eponymous form)
  std::vector<cql::ResultColumn> columns;  // table mode: its result columns
};

// The module argument as the statement: one SQL string literal, or the raw text.
std::string statement_argument(int argc, const char* const* argv) {
  std::string text;
  for (int i = 3; i < argc; ++i) text += (i > 3 ? "," : "") + std::string(argv[i]);
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  text = text.substr(b, e - b);
  if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') {
    std::string out;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      out += text[i];
      if (text[i] == '\'' && text[i + 1] == '\'') ++i;
    }
    return out;
  }
  return text;
}

// The statement parsed, or why cql_rows() does not run it: a syntax error, or a statement that
// does not answer with rows (a write could otherwise hide in a query that looks like a read).
Result<cql::Statement> rows_statement(std::string_view text) {
  CASSETTE_ASSIGN_OR_RETURN(cql::Statement statement, cql::parse_statement(text));
  if (!cql::statement_returns_rows(statement)) {
    return Status::invalid_argument(fmt::format(
        "cql_rows() runs only statements that return rows (SELECT, DESCRIBE), not {}; use cql() "
        "for it",
        cql::statement_name(statement)));
  }
  return statement;
}

struct RowsCursor {
  sqlite3_vtab_cursor base;
  cql::ExecutionResult result;
  std::vector<std::string> rows;  // JSON per row
  size_t position = 0;
};

int rows_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** vtab,
                 char** error) {
  auto t = std::make_unique<RowsTable>();
  t->connection = static_cast<Connection*>(aux);
  std::string declaration = "CREATE TABLE x(row INTEGER, json TEXT, statement HIDDEN)";
  if (argc > 3) {
    try {
      t->statement = statement_argument(argc, argv);
      auto statement = rows_statement(t->statement);
      if (!statement.is_ok()) {
        *error = sqlite3_mprintf("%s", statement.status().message().c_str());
        return SQLITE_ERROR;
      }
      auto session = main_session(*t->connection);
      if (!session.is_ok()) {
        *error = sqlite3_mprintf("%s", session.status().message().c_str());
        return SQLITE_ERROR;
      }
      auto result = session.value()->execute(*statement);
      if (!result.is_ok()) {
        *error = sqlite3_mprintf("%s", result.status().message().c_str());
        return SQLITE_ERROR;
      }
      t->columns = result.value().rows.columns;
      declaration = "CREATE TABLE x(";
      for (size_t i = 0; i < t->columns.size(); ++i) {
        declaration += (i ? ", " : "") + sql_quote(t->columns[i].name) + " " +
                       declared_sql_type(t->columns[i].type);
      }
      declaration += ")";
    } catch (const std::exception& e) {
      *error = sqlite3_mprintf("Internal error in cql_rows: %s", e.what());
      return SQLITE_ERROR;
    }
  }
  int rc = sqlite3_declare_vtab(db, declaration.c_str());
  if (rc != SQLITE_OK) return rc;
  // It reads the connection's store, which a view or trigger of a database file someone else
  // wrote must not make it do (as the cql functions, extension.cc).
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *vtab = &t.release()->base;
  return SQLITE_OK;
}

int rows_disconnect(sqlite3_vtab* vtab) {
  delete reinterpret_cast<RowsTable*>(vtab);
  return SQLITE_OK;
}

int rows_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  if (!reinterpret_cast<RowsTable*>(vtab)->statement.empty()) {
    info->estimatedCost = 1000;
    info->estimatedRows = 100;
    return SQLITE_OK;
  }
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn == 2 && c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!c.usable) return SQLITE_CONSTRAINT;
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->estimatedCost = 1000;
      info->estimatedRows = 100;
      return SQLITE_OK;
    }
  }
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg =
      sqlite3_mprintf("cql_rows() needs a CQL statement: SELECT * FROM cql_rows('SELECT ...')");
  return SQLITE_ERROR;
}

int rows_open(sqlite3_vtab*, sqlite3_vtab_cursor** cursor) {
  auto* c = new (std::nothrow) RowsCursor();
  if (c == nullptr) return SQLITE_NOMEM;
  *cursor = &c->base;
  return SQLITE_OK;
}

int rows_close(sqlite3_vtab_cursor* cursor) {
  delete reinterpret_cast<RowsCursor*>(cursor);
  return SQLITE_OK;
}

int rows_filter(sqlite3_vtab_cursor* cursor, int, const char*, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<RowsCursor*>(cursor);
  auto* t = reinterpret_cast<RowsTable*>(cursor->pVtab);
  auto fail = [&](const std::string& message) {
    sqlite3_free(t->base.zErrMsg);
    t->base.zErrMsg = sqlite3_mprintf("%s", message.c_str());
    return SQLITE_ERROR;
  };
  try {
    c->rows.clear();
    c->position = 0;
    auto session = main_session(*t->connection);
    if (!session.is_ok()) return fail(session.status().message());
    if (!t->statement.empty()) {  // table mode: checked by rows_connect
      auto statement = rows_statement(t->statement);
      if (!statement.is_ok()) return fail(statement.status().message());
      auto transaction = open_transaction(*t->connection, *session.value(), *statement);
      if (!transaction.is_ok()) return fail(transaction.status().message());
      auto result = session.value()->execute(*statement, transaction.value());
      if (!result.is_ok()) return fail(result.status().message());
      c->result = std::move(result).value();
      if (c->result.rows.columns.size() != t->columns.size()) {
        return fail("The columns of the cql_rows statement changed; recreate the table.");
      }
      c->rows.assign(c->result.rows.rows.size(), std::string());
      return SQLITE_OK;
    }
    if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
      return fail("cql_rows() needs a CQL statement, not NULL.");
    }
    const unsigned char* text = sqlite3_value_text(argv[0]);
    auto statement = rows_statement(std::string_view(
        reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_value_bytes(argv[0]))));
    if (!statement.is_ok()) return fail(statement.status().message());
    auto transaction = open_transaction(*t->connection, *session.value(), *statement);
    if (!transaction.is_ok()) return fail(transaction.status().message());
    auto result = session.value()->execute(*statement, transaction.value());
    if (!result.is_ok()) return fail(result.status().message());
    const cql::ExecutionResult& r = result.value();
    for (size_t i = 0; i < r.rows.rows.size(); ++i) c->rows.push_back(row_json(r.rows, i));
    return SQLITE_OK;
  } catch (const std::exception& e) {
    return fail(std::string("Internal error in cql_rows(): ") + e.what());
  }
}

int rows_next(sqlite3_vtab_cursor* cursor) {
  ++reinterpret_cast<RowsCursor*>(cursor)->position;
  return SQLITE_OK;
}

int rows_eof(sqlite3_vtab_cursor* cursor) {
  auto* c = reinterpret_cast<RowsCursor*>(cursor);
  return c->position >= c->rows.size();
}

int rows_column(sqlite3_vtab_cursor* cursor, sqlite3_context* context, int column) {
  return guarded(cursor->pVtab, [&] {
    auto* c = reinterpret_cast<RowsCursor*>(cursor);
    auto* t = reinterpret_cast<RowsTable*>(cursor->pVtab);
    if (!t->statement.empty()) {
      const types::Value& v = c->result.rows.rows[c->position][static_cast<size_t>(column)];
      if (v) result_value(context, t->columns[static_cast<size_t>(column)].type, *v);
      return SQLITE_OK;
    }
    if (column == 0) {
      sqlite3_result_int64(context, static_cast<sqlite3_int64>(c->position + 1));
    } else if (column == 1) {
      const std::string& json = c->rows[c->position];
      sqlite3_result_text(context, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
    }
    return SQLITE_OK;
  });
}

int rows_rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(reinterpret_cast<RowsCursor*>(cursor)->position + 1);
  return SQLITE_OK;
}

}  // namespace

const sqlite3_module& cql_rows_module() {
  static const sqlite3_module module = {
      /* iVersion */ 0,
      /* xCreate */ rows_connect,  // eponymous, and creatable with a statement
      rows_connect,
      rows_best_index,
      rows_disconnect,
      /* xDestroy */ rows_disconnect,
      rows_open,
      rows_close,
      rows_filter,
      rows_next,
      rows_eof,
      rows_column,
      rows_rowid,
      /* xUpdate ... */ nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      nullptr};
  return module;
}

}  // namespace cassette::sqlite
