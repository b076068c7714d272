// StatementRunner: runs scripts and single statements for the shell, the way cqlsh does in
// batch mode: shell commands (COPY, SOURCE, CLOCK, HELP, EXIT) first, CQL to the session, results
// printed in the chosen format, errors printed as cqlsh prints them.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "engine/cql/session.h"
#include "engine/storage/clock.h"
#include "ext/cli/cli_options.h"
#include "ext/cli/console.h"
#include "ext/cli/error_format.h"

namespace cassette::cli {

struct RunnerOptions {
  OutputFormat format = OutputFormat::kTable;
  bool echo = false;        // print each statement (and ";") before its output
  bool keep_going = false;  // scripts continue after a failed statement
  bool tty = false;         // interactive: cqlsh's tty layout, no "<source>:<line>:" prefixes
  // Ctrl-C (interrupt.h): a script (SOURCE) stops between statements, COPY between rows, a
  // statement as cql::Session::set_interrupt_flag says. nullptr: none.
  const std::atomic<bool>* interrupt = nullptr;
};

// The text of a script file (a UTF-8 byte-order mark removed); an I/O error names the file.
Result<std::string> read_script_file(const std::string& path);

class StatementRunner {
 public:
  // `clock` is the store's manual clock (--clock), or nullptr.
  StatementRunner(cql::Session& session, Console& console, storage::ManualClock* clock,
                  RunnerOptions options)
      : session_(session), console_(console), clock_(clock), options_(options) {}

  // Runs the statements of a script in order (split_shell_script). `source` names it in error
  // prefixes ("<stdin>", a file name; empty for none). Stops after the first failure unless
  // keep_going, at EXIT, and at Ctrl-C (between statements, naming the line of the first one
  // that did not run).
  // Returns whether every statement succeeded.
  bool run_script(std::string_view script, const std::string& source);
  // Reads and runs a script file (SOURCE); a file that cannot be read is an error at `from`.
  bool run_file(const std::string& path, const SourceLocation& from);
  // USE keyspace, without echo (for -k).
  bool use_keyspace(const std::string& keyspace, const SourceLocation& where);
  // Runs one statement (its text without the ';').
  bool run_statement(std::string_view text, const SourceLocation& where);

  bool exit_requested() const { return exit_requested_; }
  cql::Session& session() { return session_; }

 private:
  bool run_cql(std::string_view text, const SourceLocation& where);
  bool run_shell_command(std::string_view text, const SourceLocation& where);
  void print_result(const cql::ExecutionResult& result, const cql::Statement& statement);
  bool fail(std::string_view message, const SourceLocation& where);
  // Ctrl-C was pressed (RunnerOptions::interrupt) since the prompt last cleared it.
  bool interrupted() const;

  cql::Session& session_;
  Console& console_;
  storage::ManualClock* clock_;
  RunnerOptions options_;
  bool exit_requested_ = false;
  int source_depth_ = 0;
};

}  // namespace cassette::cli
