// Running statements: dispatch to shell commands or CQL, printing, error reporting, echo.
#include "ext/cli/statement_runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "engine/cql/ann_build.h"
#include "engine/cql/parser.h"
#include "ext/cli/copy_command.h"
#include "ext/cli/describe_output.h"
#include "ext/cli/output_format.h"
#include "ext/cli/shell_command.h"

namespace cassette::cli {

namespace {

std::string_view trim(std::string_view text) {
  size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  size_t end = text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

constexpr int kMaxSourceDepth = 16;

// The statement as cqlsh sends it to the server: with its ';' (cqlsh -e adds one when missing),
// so that syntax errors point where Cassandra's would. A statement whose last line holds a line
// comment gets the ';' on a line of its own.
std::string with_terminator(std::string_view text) {
  size_t last_line = text.rfind('\n');
  std::string_view tail = last_line == std::string_view::npos ? text : text.substr(last_line);
  bool comment =
      tail.find("--") != std::string_view::npos || tail.find("//") != std::string_view::npos;
  return std::string(text) + (comment ? "\n;" : ";");
}

}  // namespace

bool StatementRunner::fail(std::string_view message, const SourceLocation& where) {
  console_.error_line(format_shell_error(message, where));
  return false;
}

bool StatementRunner::interrupted() const {
  return options_.interrupt != nullptr && options_.interrupt->load();
}

bool StatementRunner::run_script(std::string_view script, const std::string& source) {
  bool all_ok = true;
  const std::vector<cql::ScriptStatement> statements = split_shell_script(script);
  for (size_t i = 0; i < statements.size(); ++i) {
    SourceLocation where{source, statements[i].line};
    if (!run_statement(statements[i].text, where)) {
      all_ok = false;
      if (!options_.keep_going) break;
    }
    if (exit_requested_) break;
    // Ctrl-C: the statement that ran has applied whole or not at all (it says which); the
    // script stops before the next one, and says where.
    if (interrupted()) {
      if (i + 1 < statements.size()) {
        fail("Interrupted: the statements from here on did not run",
             SourceLocation{source, statements[i + 1].line});
      }
      return false;
    }
  }
  return all_ok;
}

Result<std::string> read_script_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::io_error(fmt::format("'{}': {}", path, std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::io_error(fmt::format("'{}': {}", path, std::strerror(errno)));
  std::string script = buffer.str();
  if (script.starts_with("\xEF\xBB\xBF")) script.erase(0, 3);  // a UTF-8 byte-order mark
  return script;
}

bool StatementRunner::run_file(const std::string& path, const SourceLocation& from) {
  auto script = read_script_file(path);
  if (!script.is_ok()) return fail("Could not open " + script.status().message(), from);
  return run_script(*script, path);
}

bool StatementRunner::use_keyspace(const std::string& keyspace, const SourceLocation& where) {
  cql::UseStatement use;
  use.keyspace = keyspace;
  auto result = session_.execute(cql::Statement(std::move(use)));
  if (!result.is_ok()) {
    console_.error_line(format_statement_error(result.status(), where));
    return false;
  }
  return true;
}

bool StatementRunner::run_statement(std::string_view raw_text, const SourceLocation& where) {
  std::string_view text = trim(raw_text);
  if (text.empty()) return true;
  if (options_.echo) console_.out(fmt::format("{};\n", text));
  bool ok = false;
  // Whatever a statement or shell command throws (a bug, memory exhausted) fails that statement
  // and leaves the shell running.
  try {
    ok = classify_statement(text) == ShellCommandKind::kCql ? run_cql(text, where)
                                                            : run_shell_command(text, where);
  } catch (const std::exception& e) {
    console_.error_line(fmt::format("cassette: internal error: {}", e.what()));
  } catch (...) {
    console_.error_line("cassette: internal error");
  }
  if (options_.echo && !console_.ends_with_blank_line()) console_.out("\n");
  console_.flush();
  return ok;
}

bool StatementRunner::run_shell_command(std::string_view text, const SourceLocation& where) {
  // [ks.]table as COMPACT and BUILD INDEXES name it: its storage id.
  auto resolve_table = [&](const std::string& ks,
                           const std::string& name) -> Result<storage::TableId> {
    const std::string keyspace = ks.empty() ? session_.keyspace() : ks;
    if (keyspace.empty()) {
      return Status::invalid_argument(
          "No keyspace has been specified. USE a keyspace, or explicitly specify "
          "keyspace.tablename");
    }
    CASSETTE_ASSIGN_OR_RETURN(auto schema, session_.catalog().current());
    auto table = schema->find_table(keyspace, name);
    if (table == nullptr) {
      return Status::invalid_argument(fmt::format("table {}.{} does not exist", keyspace, name));
    }
    return table->table_id;
  };
  switch (classify_statement(text)) {
    case ShellCommandKind::kExit:
      exit_requested_ = true;
      return true;
    case ShellCommandKind::kHelp:
      console_.out(help_text());
      return true;
    case ShellCommandKind::kClock: {
      auto seconds = parse_clock_command(text);
      if (!seconds.is_ok()) return fail(seconds.status().message(), where);
      if (clock_ == nullptr) {
        return fail(
            "CLOCK ADVANCE needs a manual clock: start cassette with --clock "
            "'YYYY-MM-DD HH:MM:SS'",
            where);
      }
      clock_->advance_seconds(*seconds);
      return true;
    }
    case ShellCommandKind::kSource: {
      auto file = parse_source_command(text);
      if (!file.is_ok()) return fail(file.status().message(), where);
      if (source_depth_ >= kMaxSourceDepth) return fail("SOURCE files nest too deeply", where);
      ++source_depth_;
      bool ok = run_file(*file, where);
      --source_depth_;
      return ok;
    }
    case ShellCommandKind::kFlush: {
      Status status = parse_flush_command(text);
      if (status.is_ok()) status = session_.store().flush();
      return status.is_ok() || fail(status.message(), where);
    }
    case ShellCommandKind::kCompact: {
      auto name = parse_compact_command(text);
      if (!name.is_ok()) return fail(name.status().message(), where);
      auto table = resolve_table(name->first, name->second);
      if (!table.is_ok()) return fail(table.status().message(), where);
      // A background compaction the last FLUSH started holds the table's files until it ends:
      // wait for it rather than fail with "a compaction of this table is running".
      Status status = session_.store().wait_for_background_work();
      if (status.is_ok()) status = session_.store().compact(*table);
      return status.is_ok() || fail(status.message(), where);
    }
    case ShellCommandKind::kBuildIndexes: {
      auto name = parse_build_indexes_command(text);
      if (!name.is_ok()) return fail(name.status().message(), where);
      std::optional<storage::TableId> table;
      if (*name) {
        auto id = resolve_table((*name)->first, (*name)->second);
        if (!id.is_ok()) return fail(id.status().message(), where);
        table = *id;
      }
      // the memtables' vectors too: a script that loaded rows gets their graphs
      Status status = session_.store().flush();
      if (!status.is_ok()) return fail(status.message(), where);
      auto builds = cql::ann_build_indexes(session_.catalog(), table);
      if (!builds.is_ok()) return fail(builds.status().message(), where);
      if (builds->empty()) console_.out("No vector index to build.\n");
      for (const cql::AnnIndexBuild& b : *builds) {
        console_.out(fmt::format("{}.{}: {} graph{} built ({} vector{}), {} already built\n",
                                 b.keyspace, b.index, b.built, b.built == 1 ? "" : "s", b.vectors,
                                 b.vectors == 1 ? "" : "s", b.present));
      }
      return true;
    }
    case ShellCommandKind::kCopy: {
      auto command = parse_copy_command(text);
      if (!command.is_ok()) return fail(command.status().message(), where);
      CopyContext context;
      context.session = &session_;
      context.console = &console_;
      context.where = where;
      context.tty = options_.tty && isatty(STDOUT_FILENO) != 0;
      context.interrupt = options_.interrupt;
      return run_copy(*command, context);
    }
    case ShellCommandKind::kCql:
      break;
  }
  return run_cql(text, where);
}

bool StatementRunner::run_cql(std::string_view text, const SourceLocation& where) {
  auto statement = cql::parse_statement(with_terminator(text));
  if (!statement.is_ok()) {
    console_.error_line(format_statement_error(statement.status(), where));
    return false;
  }
  auto result = session_.execute(*statement);
  if (!result.is_ok()) {
    // cqlsh prints a failed DESCRIBE with the server's message alone.
    if (std::holds_alternative<cql::DescribeStatement>(*statement) &&
        is_cql_error(result.status())) {
      return fail(result.status().message(), where);
    }
    console_.error_line(format_statement_error(result.status(), where));
    return false;
  }
  print_result(*result, *statement);
  return true;
}

void StatementRunner::print_result(const cql::ExecutionResult& result,
                                   const cql::Statement& statement) {
  if (result.kind == cql::ExecutionResult::Kind::kRows) {
    const bool is_select = std::holds_alternative<cql::SelectStatement>(statement);
    const auto* describe = std::get_if<cql::DescribeStatement>(&statement);
    switch (options_.format) {
      case OutputFormat::kJson:
        console_.out(format_json(result.rows));
        break;
      case OutputFormat::kCsv:
        console_.out(format_csv(result.rows));
        break;
      case OutputFormat::kTable:
        if (describe != nullptr || result.is_describe) {
          auto kind = describe != nullptr ? describe->kind : cql::DescribeStatement::Kind::kName;
          console_.out(format_describe(result.rows, kind, !session_.keyspace().empty()));
        } else if (is_select) {
          console_.out(format_table(result.rows, /*with_row_count=*/true, options_.tty));
        } else if (!result.rows.rows.empty()) {
          // A conditional write's [applied] row: the table alone, as cqlsh.
          console_.out(format_table(result.rows, /*with_row_count=*/false, options_.tty));
        }
        break;
    }
  }
  if (!result.warnings.empty()) console_.err(format_warnings(result.warnings));
}

}  // namespace cassette::cli
