// COPY FROM: reads CSV records, converts each field with types::parse_value_string, and writes
// the rows through the session as unlogged batches of INSERT JSON statements built as ASTs (so
// the executor does the writing, with all its checks, and no CQL text is parsed per row). When
// a batch fails, its rows are retried one by one so the bad ones can be named by line.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "engine/cql/ast.h"
#include "engine/types/value.h"
#include "ext/cli/copy_internal.h"
#include "ext/cli/output_format.h"

namespace cassette::cli::copy_detail {

namespace {

using Clock = std::chrono::steady_clock;

// A JSON object key for a column: lower-case names as they are, others double-quoted, as
// INSERT JSON expects case-sensitive names.
std::string json_key(const std::string& name) {
  bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      plain = false;
    }
  }
  return json_string(plain ? name : "\"" + name + "\"");
}

struct PendingRow {
  cql::InsertStatement insert;
  int line = 0;
};

class Importer {
 public:
  Importer(const CopyCommand& command, const CopyTarget& target, const CopyOptions& options,
           CopyContext& context)
      : command_(command), target_(target), options_(options), context_(context) {
    for (const schema::ColumnDef* column : target.columns) {
      skip_.push_back(std::find(options.skip_columns.begin(), options.skip_columns.end(),
                                column->name) != options.skip_columns.end());
    }
  }

  bool run(std::string_view text) {
    started_ = last_report_ = Clock::now();
    CsvReader reader(text, options_.dialect);
    bool first = true;
    while (true) {
      auto record = reader.next();
      if (!record.is_ok()) {
        report_failure(0, "ParseError", record.status().message());
        break;
      }
      if (!*record) break;
      if (first && options_.header) {
        first = false;
        continue;
      }
      first = false;
      if (skipped_ < options_.skip_rows) {
        ++skipped_;
        continue;
      }
      if (options_.max_rows >= 0 && read_ >= options_.max_rows) break;
      ++read_;
      add(**record);
      if (aborted_) break;
      maybe_report_progress();
    }
    if (!aborted_) flush();
    finish_progress();
    double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    context_.console->out(fmt::format("{} rows imported from 1 files in {} ({} skipped).\n",
                                      imported_, describe_interval(seconds), skipped_));
    if (failed_ > 0) {
      context_.console->error_line(
          format_shell_error(fmt::format("Failed to process {} rows", failed_), context_.where));
      return false;
    }
    return true;
  }

 private:
  void add(const CsvRecord& record) {
    if (record.fields.size() != target_.columns.size()) {
      report_failure(record.line, "ParseError",
                     fmt::format("Invalid row length {} should be {}", record.fields.size(),
                                 target_.columns.size()));
      return;
    }
    std::string json = "{";
    for (size_t i = 0; i < record.fields.size(); ++i) {
      if (skip_[i]) continue;
      const schema::ColumnDef& column = *target_.columns[i];
      const std::string& field = record.fields[i];
      types::Value value;
      bool is_null = !record.quoted[i] && field == options_.null_value;
      if (is_null) {
        if (column.is_primary_key()) {
          report_failure(record.line, "ParseError",
                         fmt::format("Cannot insert null value for primary key column '{}'. If you "
                                     "want to insert empty strings, consider using the WITH "
                                     "NULL=<marker> option for COPY.",
                                     column.name));
          return;
        }
      } else {
        auto parsed = types::parse_value_string(column.type, field);
        if (!parsed.is_ok()) {
          report_failure(record.line, "ParseError",
                         fmt::format("Failed to import \"{}\" into column {}: {}", field,
                                     column.name, parsed.status().message()));
          return;
        }
        value = std::move(parsed).value();
      }
      if (json.size() > 1) json += ", ";
      json += json_key(column.name);
      json += ": ";
      json += types::to_json(column.type, value);
    }
    json += '}';

    PendingRow row;
    row.line = record.line;
    row.insert.table = {target_.table->keyspace, target_.table->name};
    row.insert.json = true;
    row.insert.json_default_unset = true;  // columns not copied keep their values
    auto term = std::make_shared<cql::Term>();
    term->kind = cql::Term::Kind::kConstant;
    term->constant_kind = types::ConstantKind::kString;
    term->text = json;
    term->source = json;
    row.insert.json_value = std::move(term);
    if (options_.ttl) {
      auto ttl = std::make_shared<cql::Term>();
      ttl->kind = cql::Term::Kind::kConstant;
      ttl->constant_kind = types::ConstantKind::kInteger;
      ttl->text = std::to_string(*options_.ttl);
      ttl->source = ttl->text;
      row.insert.using_clause.ttl = std::move(ttl);
    }
    pending_.push_back(std::move(row));
    if (pending_.size() >= options_.max_batch_size) flush();
  }

  void flush() {
    if (pending_.empty()) return;
    if (pending_.size() > 1) {
      cql::BatchStatement batch;
      batch.type = cql::BatchStatement::Type::kUnlogged;
      for (const PendingRow& row : pending_) batch.statements.emplace_back(row.insert);
      if (context_.session->execute(cql::Statement(std::move(batch))).is_ok()) {
        imported_ += static_cast<int64_t>(pending_.size());
        pending_.clear();
        return;
      }
    }
    // One at a time, to name the rows that fail.
    for (PendingRow& row : pending_) {
      auto result = context_.session->execute(cql::Statement(std::move(row.insert)));
      if (result.is_ok()) {
        ++imported_;
      } else {
        report_failure(row.line, "", format_statement_error(result.status(), SourceLocation{}));
        if (aborted_) break;
      }
    }
    pending_.clear();
  }

  void report_failure(int line, std::string_view kind, std::string_view message) {
    ++failed_;
    bool parse_error = kind == "ParseError";
    int64_t& count = parse_error ? parse_errors_ : insert_errors_;
    int64_t limit = parse_error ? options_.max_parse_errors : options_.max_insert_errors;
    ++count;
    if (failed_ > kMaxReportedFailures) {
      if (failed_ == kMaxReportedFailures + 1) {
        context_.console->error_line(format_shell_error(
            "More rows failed; only the first 100 failures are shown", context_.where));
      }
    } else {
      print_failure(line, kind, message);
    }
    if (limit >= 0 && count > limit && !aborted_) {
      aborted_ = true;
      context_.console->error_line(
          format_shell_error(fmt::format("Exceeded maximum number of {} errors {}",
                                         parse_error ? "parse" : "insert", limit),
                             context_.where));
    }
  }

  void print_failure(int line, std::string_view kind, std::string_view message) {
    std::string where = command_.file ? fmt::format("'{}'", *command_.file) : "STDIN";
    std::string text = line > 0 ? fmt::format("Failed to import line {} of {}: ", line, where)
                                : fmt::format("Failed to import {}: ", where);
    if (!kind.empty()) text += fmt::format("{} - ", kind);
    text += message;
    context_.console->error_line(format_shell_error(text, context_.where));
  }

  // cqlsh's RateMeter line, on a terminal only.
  void maybe_report_progress() {
    if (!context_.tty) return;
    auto now = Clock::now();
    if (now - last_report_ < std::chrono::milliseconds(250)) return;
    last_report_ = now;
    double elapsed = std::chrono::duration<double>(now - started_).count();
    double rate = elapsed > 0 ? static_cast<double>(read_) / elapsed : 0;
    context_.console->out(
        fmt::format("\rProcessed: {} rows; Rate: {:7.0f} rows/s; Avg. rate: "
                    "{:7.0f} rows/s\r",
                    read_, rate, rate));
    context_.console->flush();
    progress_shown_ = true;
  }

  void finish_progress() {
    if (progress_shown_) context_.console->out("\n");
  }

  const CopyCommand& command_;
  const CopyTarget& target_;
  const CopyOptions& options_;
  CopyContext& context_;
  std::vector<bool> skip_;
  std::vector<PendingRow> pending_;
  int64_t read_ = 0;
  int64_t skipped_ = 0;
  int64_t imported_ = 0;
  int64_t failed_ = 0;
  bool progress_shown_ = false;
  int64_t parse_errors_ = 0;
  int64_t insert_errors_ = 0;
  bool aborted_ = false;  // too many errors: stop reading
  static constexpr int64_t kMaxReportedFailures = 100;
  Clock::time_point started_;
  Clock::time_point last_report_;
};

// COPY FROM STDIN: lines until "\." on a line by itself, or the end of input.
std::string read_stdin_data(bool tty) {
  if (tty) std::cout << "[Use \\. on a line by itself to end input]" << std::endl;
  std::string data;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "\\.") break;
    data += line;
    data += '\n';
  }
  return data;
}

}  // namespace

bool run_import(const CopyCommand& command, const CopyTarget& target, const CopyOptions& options,
                CopyContext& context) {
  if (target.table->is_counter_table()) {
    return fail(context, "COPY FROM into a counter table is not supported yet");
  }
  for (const std::string& name : options.skip_columns) {
    if (std::none_of(target.columns.begin(), target.columns.end(),
                     [&](const schema::ColumnDef* c) { return c->name == name; })) {
      return fail(context, fmt::format("Invalid column name {}", name));
    }
  }
  std::string data;
  if (command.file) {
    std::ifstream in(*command.file, std::ios::binary);
    if (!in) {
      return fail(context, fmt::format("Can't open '{}' for reading: {}", *command.file,
                                       std::strerror(errno)));
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    data = buffer.str();
    if (data.starts_with("\xEF\xBB\xBF")) data.erase(0, 3);  // a UTF-8 byte-order mark
  } else {
    data = read_stdin_data(isatty(STDIN_FILENO) != 0);
  }
  Importer importer(command, target, options, context);
  return importer.run(data);
}

}  // namespace cassette::cli::copy_detail
