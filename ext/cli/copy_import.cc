// COPY FROM: reads CSV records, converts each field with types::parse_value_string, and writes
// the values through pg::CqlRowWriter (the INSERT pg-import also uses: each row checked as an
// INSERT is, each batch one atomic write; UPDATE ... SET c = c + v into a counter table). No CQL
// text or JSON is made per row, so every value arrives exactly as it was read. A row that does
// not convert or fails its checks is reported with its line and skipped.
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

#include "engine/types/value.h"
#include "engine/util/message.h"
#include "ext/cli/copy_internal.h"
#include "ext/cli/pg_row_writer.h"

namespace cassette::cli::copy_detail {

namespace {

using Clock = std::chrono::steady_clock;

class Importer {
 public:
  Importer(const CopyCommand& command, const CopyTarget& target, const CopyOptions& options,
           CopyContext& context)
      : command_(command), target_(target), options_(options), context_(context) {
    for (const schema::ColumnDef* column : target.columns) {
      const bool skip = std::find(options.skip_columns.begin(), options.skip_columns.end(),
                                  column->name) != options.skip_columns.end();
      skip_.push_back(skip);
      if (skip) continue;
      written_columns_.push_back(column);
      if (column->kind == schema::ColumnKind::kPartitionKey ||
          column->kind == schema::ColumnKind::kStatic) {
        static_columns_.push_back(column);
      }
    }
  }

  bool run(std::string_view text) {
    started_ = last_report_ = Clock::now();
    pg::RowWriterOptions writer_options;
    writer_options.ttl = options_.ttl;
    writer_options.counter_increments = target_.table->is_counter_table();
    auto writer =
        pg::CqlRowWriter::open(*context_.session, target_.table, written_columns_, writer_options);
    if (!writer.is_ok()) return fail(context_, writer.status().message());
    writer_ = std::move(writer).value();
    if (has_static_rows()) {
      auto static_writer =
          pg::CqlRowWriter::open(*context_.session, target_.table, static_columns_, writer_options);
      if (!static_writer.is_ok()) return fail(context_, static_writer.status().message());
      static_writer_ = std::move(static_writer).value();
    }
    read_records(text);
    if (!aborted_) write_pending(/*last=*/true);
    finish_progress();
    report_summary();
    return failed_ == 0 && !interrupted_line_;
  }

 private:
  void read_records(std::string_view text) {
    CsvReader reader(text, options_.dialect);
    bool first = true;
    while (!aborted_) {
      auto record = reader.next();
      if (!record.is_ok()) {
        report_failure(0, "ParseError", record.status().message());
        break;
      }
      if (!*record) break;
      if (interrupted(context_)) {
        interrupted_line_ = (*record)->line;
        break;
      }
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
      maybe_report_progress();
    }
  }

  // Whether the table has clustering and static columns among those written: then a partition
  // holding only static values has a row of its own in COPY TO's output, its clustering and
  // regular columns null (as SELECT * shows it).
  bool has_static_rows() const {
    bool clustering = false, statics = false;
    for (const schema::ColumnDef* column : written_columns_) {
      clustering = clustering || column->kind == schema::ColumnKind::kClustering;
      statics = statics || column->kind == schema::ColumnKind::kStatic;
    }
    return clustering && statics;
  }

  bool is_null_field(const CsvRecord& record, size_t i) const {
    return !record.quoted[i] && record.fields[i] == options_.null_value;
  }

  // Whether the record is such a static-only row: every clustering and regular field null.
  bool is_static_only(const CsvRecord& record) const {
    if (static_writer_ == nullptr) return false;
    for (size_t i = 0; i < record.fields.size(); ++i) {
      if (skip_[i]) continue;
      const schema::ColumnKind kind = target_.columns[i]->kind;
      const bool keyed_by_row =
          kind == schema::ColumnKind::kClustering || kind == schema::ColumnKind::kRegular;
      if (keyed_by_row && !is_null_field(record, i)) return false;
    }
    return true;
  }

  // The record's values for the written columns (for the static columns only when
  // `static_only`), or nullopt after reporting why it has none.
  std::optional<std::vector<types::Value>> convert(const CsvRecord& record, bool static_only) {
    std::vector<types::Value> values;
    for (size_t i = 0; i < record.fields.size(); ++i) {
      if (skip_[i]) continue;
      const schema::ColumnDef& column = *target_.columns[i];
      if (static_only && column.kind != schema::ColumnKind::kPartitionKey &&
          column.kind != schema::ColumnKind::kStatic) {
        continue;
      }
      const std::string& field = record.fields[i];
      if (is_null_field(record, i)) {
        if (column.is_primary_key()) {
          report_failure(record.line, "ParseError",
                         fmt::format("Cannot insert null value for primary key column '{}'. If you "
                                     "want to insert empty strings, consider using the WITH "
                                     "NULL=<marker> option for COPY.",
                                     column.name));
          return std::nullopt;
        }
        values.emplace_back();
        continue;
      }
      auto parsed = types::parse_value_string(column.type, field);
      if (!parsed.is_ok()) {
        report_failure(record.line, "ParseError",
                       fmt::format("Failed to import \"{}\" into column {}: {}",
                                   message_value(field), column.name, parsed.status().message()));
        return std::nullopt;
      }
      values.emplace_back(std::move(parsed).value());
    }
    return values;
  }

  void add(const CsvRecord& record) {
    if (record.fields.size() != target_.columns.size()) {
      report_failure(record.line, "ParseError",
                     fmt::format("Invalid row length {} should be {}", record.fields.size(),
                                 target_.columns.size()));
      return;
    }
    const bool static_only = is_static_only(record);
    std::optional<std::vector<types::Value>> values = convert(record, static_only);
    if (!values) return;
    // The row's own checks (key sizes, nulls in keys, ...) as an INSERT makes them.
    pg::CqlRowWriter& writer = static_only ? *static_writer_ : *writer_;
    if (Status s = writer.add(*values); !s.is_ok()) {
      report_failure(record.line, "", format_statement_error(s, SourceLocation{}));
      return;
    }
    if (writer.batch_full(options_.max_batch_size)) write_pending(/*last=*/false);
  }

  // Hands the rows read to the writers; at the end, waits until every batch is written.
  void write_pending(bool last) {
    Status s = write_pending(*writer_, last);
    if (s.is_ok() && static_writer_ != nullptr) s = write_pending(*static_writer_, last);
    if (s.is_ok()) return;
    (void)writer_->finish_in_flight();
    if (static_writer_ != nullptr) (void)static_writer_->finish_in_flight();
    aborted_ = true;
    ++failed_;
    context_.console->error_line(
        format_shell_error(fmt::format("Failed to write rows to {}.{}: {}", target_.table->keyspace,
                                       target_.table->name, s.message()),
                           context_.where));
  }

  static Status write_pending(pg::CqlRowWriter& writer, bool last) {
    return last ? writer.finish() : writer.flush();
  }

  int64_t written() const {
    return writer_->written() + (static_writer_ != nullptr ? static_writer_->written() : 0);
  }

  void report_summary() {
    double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    context_.console->out(fmt::format("{} rows imported from 1 files in {} ({} skipped).\n",
                                      written(), describe_interval(seconds), skipped_));
    if (interrupted_line_) {
      context_.console->error_line(format_shell_error(
          fmt::format("Interrupted at line {}: the rows before it were imported, the rest was "
                      "not read",
                      *interrupted_line_),
          context_.where));
    }
    if (failed_ > 0) {
      context_.console->error_line(
          format_shell_error(fmt::format("Failed to process {} rows", failed_), context_.where));
    }
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
  std::vector<const schema::ColumnDef*> written_columns_;  // the columns not skipped
  std::vector<const schema::ColumnDef*> static_columns_;   // their partition key and statics
  std::unique_ptr<pg::CqlRowWriter> writer_;
  std::unique_ptr<pg::CqlRowWriter> static_writer_;  // static-only rows (has_static_rows())
  int64_t read_ = 0;
  int64_t skipped_ = 0;
  int64_t failed_ = 0;
  bool progress_shown_ = false;
  int64_t parse_errors_ = 0;
  int64_t insert_errors_ = 0;
  bool aborted_ = false;                 // too many errors, or a write failed: stop reading
  std::optional<int> interrupted_line_;  // Ctrl-C: the first line not read
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
    if (interrupted(context)) return fail(context, "Interrupted: nothing was imported");
  }
  Importer importer(command, target, options, context);
  return importer.run(data);
}

}  // namespace cassette::cli::copy_detail
