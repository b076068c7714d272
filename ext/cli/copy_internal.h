// Shared pieces of COPY TO and COPY FROM (copy_command.cc, copy_export.cc, copy_import.cc):
// resolving the table and columns, and the options both directions understand.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "ext/cli/copy_command.h"
#include "ext/cli/csv.h"

namespace cassette::cli::copy_detail {

struct CopyTarget {
  std::shared_ptr<const schema::TableDef> table;
  std::vector<const schema::ColumnDef*> columns;  // in the command's order
};

struct CopyOptions {
  CsvDialect dialect{',', '"', '\\'};
  bool header = false;
  std::string null_value;
  // FROM
  int64_t skip_rows = 0;
  int64_t max_rows = -1;
  std::vector<std::string> skip_columns;
  // Rows per batch. cqlsh's default is 20 to spare a cluster; here a batch is one commit, and
  // larger ones save a sync each (100k rows: 14 s at 20, 6.3 s at 200 in a debug build).
  size_t max_batch_size = 200;
  int64_t max_parse_errors = -1;  // -1: no limit
  int64_t max_insert_errors = 1000;
  std::optional<int64_t> ttl;
  // TO: the significant digits of floats and doubles when the user gives FLOATPRECISION /
  // DOUBLEPRECISION (cqlsh's defaults, 5 and 12, lose digits); otherwise each value is written
  // with the fewest digits that read back exactly.
  std::optional<int> float_precision;
  std::optional<int> double_precision;
};

// Prints a shell error ("<stdin>:1:<message>") and returns false.
bool fail(CopyContext& context, std::string_view message);

// Whether Ctrl-C was pressed (CopyContext::interrupt).
inline bool interrupted(const CopyContext& context) {
  return context.interrupt != nullptr && context.interrupt->load(std::memory_order_relaxed);
}

// The table and columns the command names, or an error message as cqlsh words it.
Result<CopyTarget> resolve_target(const CopyCommand& command, cql::Session& session);

// The options, checked: unknown ones are "Unrecognized COPY FROM options: a, b".
Result<CopyOptions> parse_copy_options(const CopyCommand& command);

bool run_export(const CopyCommand& command, const CopyTarget& target, const CopyOptions& options,
                CopyContext& context);
bool run_import(const CopyCommand& command, const CopyTarget& target, const CopyOptions& options,
                CopyContext& context);

// A CQL identifier, double-quoted (so any name works in generated statements).
std::string quote_identifier(std::string_view name);
// The columns COPY reads or writes when none are named, in cqlsh's order (the driver's table
// metadata): partition key, clustering columns, then every other column by name.
std::vector<const schema::ColumnDef*> columns_in_cqlsh_order(const schema::TableDef& table);

}  // namespace cassette::cli::copy_detail
