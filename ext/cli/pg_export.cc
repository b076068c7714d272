// pg-export: a CQL table into a PostgreSQL table, streamed with COPY ... FROM STDIN.
//
// One PostgreSQL transaction creates the table when it is missing and copies every row, so a
// failed export leaves the database as it was. The rows come from the shared planner's streaming
// cursor (engine/query: a full scan in token order, one snapshot, bounded memory, each value
// decoded only when asked for) and go out in COPY's text format, a chunk of rows at a time.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <pqxx/tablewriter>

#include "engine/query/query.h"
#include "engine/storage/store.h"
#include "engine/util/file.h"
#include "ext/cli/pg_bridge.h"
#include "ext/cli/pg_connection.h"
#include "ext/cli/pg_progress.h"
#include "ext/pg_common/pg_types.h"
#include "ext/pg_common/pg_values.h"

// libpqxx 6.4's stream_to writes only tuples (a fixed number of columns) and escapes each byte
// outside ASCII on its own; tablewriter::write_raw_line sends COPY text the caller escaped,
// which is what a table known only at run time needs. (libpqxx 7 has stream_to::write_row.)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace cassette::cli::pg {

namespace {

int fail(std::string_view message) {
  std::fprintf(stderr, "cassette pg-export: %.*s\n", static_cast<int>(message.size()),
               message.data());
  return 1;
}

// COPY's text format: backslash, tab, newline and carriage return escaped.
void append_copy_field(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
}

std::string create_table_sql(const schema::TableDef& table, const PgTableName& name) {
  std::string sql = fmt::format("CREATE TABLE {} (", name.quoted);
  std::string key;
  for (const schema::ColumnDef& column : table.columns) {
    sql += fmt::format("{} {}", quote_pg_identifier(column.name), pg_type_name(column.type));
    sql += ", ";
    if (column.is_primary_key()) {
      key += (key.empty() ? "" : ", ") + quote_pg_identifier(column.name);
    }
  }
  return sql + fmt::format("PRIMARY KEY ({}))", key);
}

// What an existing table lacks to take the rows, one line per problem (empty: compatible).
std::string incompatibilities(const schema::TableDef& table, const std::vector<PgColumn>& columns) {
  std::string problems;
  for (const schema::ColumnDef& column : table.columns) {
    std::string expected = pg_type_name(column.type);
    auto found = std::find_if(columns.begin(), columns.end(),
                              [&](const PgColumn& c) { return c.name == column.name; });
    if (found == columns.end()) {
      problems += fmt::format("\n  column {} is missing (expected {})", column.name, expected);
    } else if (!pg_column_accepts(found->type, expected)) {
      problems += fmt::format("\n  column {} is {}, but {} {} needs {}", column.name, found->type,
                              types::cql_type_name(column.type), column.name, expected);
    }
  }
  for (const PgColumn& c : columns) {
    if (c.required && table.find_column(c.name) == nullptr) {
      problems += fmt::format(
          "\n  column {} is NOT NULL without a default, and {}.{} has no such "
          "column",
          c.name, table.keyspace, table.name);
    }
  }
  return problems;
}

// Refuses a target that is a cassette_fdw foreign table on the store being exported (under any
// of its names): the copy would write the store's rows back into it, without their TTLs and
// write times, in the transaction that reads them.
Status check_target_is_not_the_store(pqxx::transaction_base& tx, const PgTableName& target,
                                     const std::string& store_path) {
  CASSETTE_ASSIGN_OR_RETURN(std::optional<std::string> target_store,
                            cassette_foreign_table_store(tx, target));
  if (!target_store) return Status::ok();
  auto target_identity = file::file_identity(*target_store);
  auto store_identity = file::file_identity(store_path);
  if (!target_identity.is_ok() || !store_identity.is_ok() || *target_identity != *store_identity) {
    return Status::ok();
  }
  return Status::invalid_argument(fmt::format(
      "PostgreSQL table {} is a cassette_fdw foreign table on the store being exported ({}): "
      "pg-export would write the store into itself; name another PostgreSQL table",
      target.display, *target_store));
}

}  // namespace

int run_pg_export(const BridgeOptions& options) {
  auto bridge = open_bridge_table(options, storage::StoreOptions{});
  if (!bridge.is_ok()) return fail(bridge.status().message());
  storage::Store& store = *bridge->store;
  const schema::TableDef& def = *bridge->table;

  auto connection = connect(options.connection);
  if (!connection.is_ok()) return fail(connection.status().message());
  PgTableName target = parse_pg_table_name(options.pg_table);
  std::string source_name = fmt::format("{}.{}", def.keyspace, def.name);

  ProgressBar progress(fmt::format("pg-export {}", source_name), isatty(STDERR_FILENO) != 0);
  std::vector<std::string> column_names;
  for (const schema::ColumnDef& column : def.columns) column_names.push_back(column.name);
  RejectsFile rejects(options.rejects, column_names);
  int64_t rows = 0;
  bool created = false;
  try {
    pqxx::work tx(**connection);
    auto existing = table_columns(tx, target);
    if (!existing.is_ok()) return fail(existing.status().message());
    if (Status status = check_target_is_not_the_store(tx, target, options.store); !status.is_ok()) {
      return fail(status.message());
    }
    if (!*existing) {
      tx.exec(create_table_sql(def, target));
      created = true;
    } else if (std::string problems = incompatibilities(def, **existing); !problems.empty()) {
      return fail(fmt::format("PostgreSQL table {} cannot take the rows of {}:{}", target.display,
                              source_name, problems));
    }

    std::vector<std::string> quoted_columns;
    for (const schema::ColumnDef& column : def.columns) {
      quoted_columns.push_back(quote_pg_identifier(column.name));
    }
    pqxx::tablewriter writer(tx, target.quoted, quoted_columns.begin(), quoted_columns.end());
    auto snapshot = store.snapshot();
    if (!snapshot.is_ok()) return fail(snapshot.status().message());
    query::Plan plan =
        query::plan_query(def, query::PlanRequest{}, query::table_statistics(**snapshot, def));
    auto scan = query::QueryCursor::open(store, *snapshot, bridge->table, plan, query::Bindings{});
    if (!scan.is_ok()) return fail(scan.status().message());
    // How far through the token ring the scan is, for the progress bar.
    auto fraction_done = [&] { return (static_cast<double>((*scan)->token()) + 0x1p63) / 0x1p64; };

    std::string chunk;  // rows of COPY text, sent ~256 KiB at a time
    std::string line;
    std::string text;
    std::vector<bool> escape;
    for (const schema::ColumnDef& column : def.columns) {
      escape.push_back(pg_text_may_need_escaping(column.type));
    }
    std::vector<std::optional<std::string>> shown(def.columns.size());
    while ((*scan)->next()) {
      line.clear();
      std::string reason;
      if ((*scan)->is_static_only() && !def.clustering().empty()) {
        reason =
            "a partition with only static values has no clustering key, and PostgreSQL "
            "primary key columns cannot be null";
      }
      const size_t count = def.columns.size();
      for (size_t i = 0; i < count && reason.empty(); ++i) {
        if (i > 0) line += '\t';
        std::optional<std::string_view> value = (*scan)->value(i);
        if (!value) {
          line += "\\N";
          continue;
        }
        std::string& out = escape[i] ? text : line;
        text.clear();
        auto has_text = append_pg_text(def.columns[i].type, *value, out);
        if (!has_text.is_ok()) {
          reason = fmt::format("column {}: {}", def.columns[i].name, has_text.status().message());
        } else if (!*has_text) {
          line += "\\N";
        } else if (escape[i]) {
          append_copy_field(line, text);
        }
      }
      if (!reason.empty()) {
        for (size_t i = 0; i < count; ++i) {
          std::optional<std::string_view> value = (*scan)->value(i);
          shown[i] = value ? std::optional<std::string>(types::format_value(
                                 def.columns[i].type, *value, types::ValueStyle::kCqlsh))
                           : std::nullopt;
        }
        if (Status s = rejects.add(shown, reason); !s.is_ok()) return fail(s.message());
        continue;
      }
      if (!chunk.empty()) chunk += '\n';
      chunk += line;
      ++rows;
      if (chunk.size() >= (256 << 10)) {
        writer.write_raw_line(chunk);  // adds the last row's newline
        chunk.clear();
        progress.update(rows, fraction_done());
      }
    }
    if (!(*scan)->status().is_ok()) return fail((*scan)->status().message());
    if (!chunk.empty()) writer.write_raw_line(chunk);
    writer.complete();
    tx.commit();
  } catch (const std::exception& e) {
    progress.finish();
    return fail(fmt::format("PostgreSQL: {}", describe_pg_error(e)));
  }
  progress.finish();
  if (Status s = rejects.close(); !s.is_ok()) return fail(s.message());
  std::string summary =
      fmt::format("pg-export: {} -> {}{}: {}, {} rejected", source_name, target.display,
                  created ? " (created)" : "", describe_rate(rows, progress.elapsed_seconds()),
                  rejects.count());
  if (rejects.count() > 0) summary += fmt::format(" (written to {})", rejects.path());
  std::printf("%s\n", summary.c_str());
  return rejects.count() > 0 ? 1 : 0;
}

}  // namespace cassette::cli::pg
