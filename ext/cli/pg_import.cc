// pg-import: the rows of a PostgreSQL query into a CQL table, streamed with
// COPY (query) TO STDOUT.
//
// The query is first planned (not run) to learn its columns and their types; each is matched by
// name to a CQL column and checked to convert (pg_types.h). Then the rows stream in COPY's text
// format, one line at a time, are converted (pg_values.h) and checked as INSERTs, and written in
// batches (pg_row_writer.h). A row that fails goes to the rejects file with its reason and the
// others go on; batches already written stay written if a later store write fails.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "engine/cql/modification.h"
#include "engine/storage/store.h"
#include "ext/cli/pg_bridge.h"
#include "ext/cli/pg_connection.h"
#include "ext/cli/pg_progress.h"
#include "ext/cli/pg_row_writer.h"
#include "ext/pg_common/pg_types.h"
#include "ext/pg_common/pg_values.h"

namespace cassette::cli::pg {

namespace {

int fail(std::string_view message) {
  std::fprintf(stderr, "cassette pg-import: %.*s\n", static_cast<int>(message.size()),
               message.data());
  return 1;
}

// Splits a line of COPY text into fields, undoing COPY's escapes; nullopt for \N.
void split_copy_line(std::string_view line, std::vector<std::optional<std::string>>& fields) {
  fields.clear();
  std::string field;
  bool is_null = false;
  auto finish = [&] {
    fields.push_back(is_null ? std::nullopt : std::optional<std::string>(std::move(field)));
    field.clear();
    is_null = false;
  };
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\t') {
      finish();
    } else if (c == '\\' && i + 1 < line.size()) {
      char next = line[++i];
      switch (next) {
        case 'N':
          is_null = true;
          break;
        case 'b':
          field += '\b';
          break;
        case 'f':
          field += '\f';
          break;
        case 'n':
          field += '\n';
          break;
        case 'r':
          field += '\r';
          break;
        case 't':
          field += '\t';
          break;
        case 'v':
          field += '\v';
          break;
        default:
          if (next >= '0' && next <= '7') {  // up to three octal digits
            int value = next - '0';
            for (int k = 0;
                 k < 2 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7'; ++k) {
              value = value * 8 + (line[++i] - '0');
            }
            field += static_cast<char>(value & 0xff);
          } else {
            field += next;
          }
      }
    } else {
      field += c;
    }
  }
  finish();
}

std::string without_trailing_semicolons(std::string query) {
  while (!query.empty() &&
         (query.back() == ';' || std::isspace(static_cast<unsigned char>(query.back())))) {
    query.pop_back();
  }
  return query;
}

}  // namespace

int run_pg_import(const BridgeOptions& options) {
  // Group commit: a batch's write does not wait for its own fsync (the log is synced every few
  // milliseconds, and when the store closes, before the summary is printed). A crash of this
  // process loses nothing written; a power failure may lose the last milliseconds of batches.
  storage::StoreOptions store_options;
  store_options.sync = storage::SyncMode::kNormal;
  auto bridge = open_bridge_table(options, store_options);
  if (!bridge.is_ok()) return fail(bridge.status().message());
  const schema::TableDef& def = *bridge->table;
  std::string target_name = fmt::format("{}.{}", def.keyspace, def.name);

  auto connection = connect(options.connection);
  if (!connection.is_ok()) return fail(connection.status().message());

  ProgressBar progress(fmt::format("pg-import {}", target_name), isatty(STDERR_FILENO) != 0);
  int64_t read = 0;
  int64_t written = 0;
  std::unique_ptr<RejectsFile> rejects;
  std::unique_ptr<CqlRowWriter> writer;
  try {
    pqxx::work tx(**connection);
    std::string query = without_trailing_semicolons(options.query);
    auto columns = describe_query(tx, query);
    if (!columns.is_ok()) return fail(columns.status().message());

    // Result columns to CQL columns, by name, with types that convert.
    std::vector<const schema::ColumnDef*> targets;
    std::vector<std::string> names;
    for (const PgResultColumn& column : *columns) {
      for (const std::string& seen : names) {
        if (seen == column.name) {
          return fail(fmt::format("the query returns column {} more than once", column.name));
        }
      }
      names.push_back(column.name);
      auto target = cql::existing_column(def, column.name);
      if (!target.is_ok()) return fail(target.status().message());
      if (!pg_kind_converts_to(column.type, (*target)->type)) {
        return fail(fmt::format("type mismatch: column {} of {} is {}, but the query gives {}",
                                column.name, target_name, types::cql_type_name((*target)->type),
                                column.type.name));
      }
      targets.push_back(*target);
    }
    auto opened = CqlRowWriter::open(*bridge->session, bridge->table, targets);
    if (!opened.is_ok()) return fail(opened.status().message());
    writer = std::move(opened).value();
    rejects = std::make_unique<RejectsFile>(options.rejects, names);
    std::optional<double> estimate = estimate_rows(tx, query);

    pqxx::stream_from stream(tx, "(" + query + "\n)");
    std::string line;
    std::vector<std::optional<std::string>> fields;
    std::vector<types::Value> values(targets.size());
    while (stream.get_raw_line(line)) {
      ++read;
      if (!line.empty() && line.back() == '\n') line.pop_back();  // libpqxx 6 keeps it
      split_copy_line(line, fields);
      if (fields.size() != targets.size()) {
        return fail(fmt::format("row {} of the query has {} fields, expected {}", read,
                                fields.size(), targets.size()));
      }
      Status status;
      for (size_t i = 0; i < fields.size() && status.is_ok(); ++i) {
        values[i].reset();
        if (!fields[i]) continue;
        auto value =
            cql_value_from_pg(targets[i]->type, (*columns)[i].type, *fields[i], targets[i]->name);
        if (!value.is_ok()) {
          status = Status::invalid_argument(
              fmt::format("column {}: {}", targets[i]->name, value.status().message()));
        } else {
          values[i] = std::move(value).value();
        }
      }
      if (status.is_ok()) status = writer->add(values);
      if (!status.is_ok()) {
        if (Status s = rejects->add(fields, status.message()); !s.is_ok()) return fail(s.message());
      }
      if (writer->batch_full(options.batch_size)) {
        if (Status s = writer->flush(); !s.is_ok()) {
          progress.finish();
          return fail(fmt::format("cannot write to the store after {} rows: {}", writer->written(),
                                  s.message()));
        }
        progress.update(read, estimate && *estimate > 0
                                  ? std::optional<double>(static_cast<double>(read) / *estimate)
                                  : std::nullopt);
      }
    }
    stream.complete();
    Status finished = writer->finish();
    written = writer->written();
    if (!finished.is_ok()) {
      progress.finish();
      return fail(
          fmt::format("cannot write to the store after {} rows: {}", written, finished.message()));
    }
    // The rows go from the commit log into an SSTable now, so that the next process to open
    // the store (a shell, each PostgreSQL backend) does not replay a whole import.
    if (Status s = bridge->store->flush(); !s.is_ok()) return fail(s.message());
  } catch (const std::exception& e) {
    progress.finish();
    std::string message = fmt::format("PostgreSQL: {}", describe_pg_error(e));
    // Batches written before the error stay written; the rows read since are dropped.
    if (writer != nullptr && writer->finish_in_flight().is_ok() && writer->written() > 0) {
      message += fmt::format(" ({} rows were written before it)", writer->written());
    }
    return fail(message);
  }
  progress.finish();
  if (Status s = rejects->close(); !s.is_ok()) return fail(s.message());
  // Closing the store syncs what is left of the commit log: every row counted is durable.
  writer.reset();
  bridge->session.reset();
  bridge->store.reset();
  double seconds = progress.elapsed_seconds();
  std::string summary = fmt::format("pg-import: query -> {}: {}, {} rejected", target_name,
                                    describe_rate(written, seconds), rejects->count());
  if (rejects->count() > 0) summary += fmt::format(" (written to {})", rejects->path());
  std::printf("%s\n", summary.c_str());
  return rejects->count() > 0 ? 1 : 0;
}

}  // namespace cassette::cli::pg
