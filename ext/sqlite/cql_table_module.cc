// The `cql` module's callback table.
#include "ext/sqlite/cql_table.h"

namespace cassette::sqlite {

const sqlite3_module& cql_module() {
  static const sqlite3_module module = {
      /* iVersion */ 3,
      cql_create,
      cql_connect,
      cql_best_index,
      cql_disconnect,
      cql_destroy,
      cql_open,
      cql_close,
      cql_filter,
      cql_next,
      cql_eof,
      cql_column,
      cql_rowid,
      cql_update,
      cql_begin,
      cql_sync,
      cql_commit,
      cql_rollback,
      /* xFindFunction */ nullptr,
      cql_rename,
      cql_savepoint,
      cql_release,
      cql_rollback_to,
      cql_shadow_name,
  };
  return module;
}

}  // namespace cassette::sqlite
