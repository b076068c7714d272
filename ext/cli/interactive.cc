// The interactive prompt over libedit's readline interface.
#include "ext/cli/interactive.h"

#include <editline/readline.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "engine/cql/parser.h"
#include "ext/cli/cli_options.h"
#include "ext/cli/interrupt.h"
#include "ext/cli/shell_command.h"

namespace cassette::cli {

namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

constexpr int kHistoryEntries = 1000;

std::string history_path() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return {};
  return std::string(home) + "/.cassette_history";
}

std::string prompt_for(const std::string& keyspace) {
  return keyspace.empty() ? "cassette> " : fmt::format("cassette:{}> ", keyspace);
}

// The continuation prompt, as wide as the main one (cqlsh's "   ... ").
std::string continuation_for(const std::string& keyspace) {
  return std::string(prompt_for(keyspace).size() - 4, ' ') + "... ";
}

// Adds a statement to the history, on one line as cqlsh keeps it, and saves the history file
// at once: a session that ends any way at all keeps what was typed.
void remember(const std::string& buffer, const std::string& history) {
  std::string entry = buffer;
  for (char& c : entry) {
    if (c == '\n') c = ' ';
  }
  entry.erase(entry.find_last_not_of(' ') + 1);
  if (entry.empty()) return;
  add_history(entry.c_str());
  if (!history.empty()) write_history(history.c_str());
}

// The line editor's source of keys (rl_getc_function): one byte of standard input, or end of
// input once Ctrl-C has been pressed. libedit retries a read that a signal interrupted, and a
// Ctrl-C that arrives while it is busy interrupts no read at all; checking the flag before
// each read ends the line being typed either way, and the prompt loop then drops it.
int read_byte() {
  const std::atomic<bool>& interrupted = interrupt_flag();
  while (!interrupted.load()) {
    unsigned char c;
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n == 1) return c;
    if (n < 0 && errno == EINTR) continue;  // the loop looks at the flag again
    return EOF;
  }
  return EOF;
}

// One key: a character, decoded from UTF-8 (libedit takes a wide character from this hook).
int read_key(FILE*) {
  const int lead = read_byte();
  if (lead == EOF || lead < 0xC0) return lead;
  const int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  int code = lead & (0x3F >> (length - 1));
  for (int i = 1; i < length; ++i) {
    const int next = read_byte();
    if (next == EOF) return EOF;
    code = (code << 6) | (next & 0x3F);
  }
  return code;
}

}  // namespace

int run_interactive(StatementRunner& runner, const std::string& store_path) {
  const std::string history = history_path();
  // Characters beyond ASCII as the line editor's own: a UTF-8 locale when none is set.
  std::setlocale(LC_CTYPE, "");
  if (MB_CUR_MAX == 1) std::setlocale(LC_CTYPE, "C.UTF-8");
  rl_catch_signals = 0;  // SIGINT is ours (interrupt.h), not libedit's to re-raise
  rl_getc_function = read_key;
  using_history();
  stifle_history(kHistoryEntries);
  if (!history.empty()) read_history(history.c_str());
  std::atomic<bool>& interrupted = interrupt_flag();

  std::printf("Connected to Cassette store at %s.\n%sUse HELP for help.\n", store_path.c_str(),
              version_text().c_str());
  std::fflush(stdout);

  std::string buffer;
  while (!runner.exit_requested()) {
    const std::string& keyspace = runner.session().keyspace();
    std::string prompt = buffer.empty() ? prompt_for(keyspace) : continuation_for(keyspace);
    interrupted = false;
    std::unique_ptr<char, FreeDeleter> line(readline(prompt.c_str()));
    if (interrupted) {
      // Ctrl-C: the line being typed, and an unfinished statement, are dropped
      std::printf("\n");
      buffer.clear();
      continue;
    }
    if (!line) {  // Ctrl-D
      std::printf("\n");
      break;
    }
    std::string text(line.get());
    if (buffer.empty() && text.find_first_not_of(" \t") == std::string::npos) continue;
    buffer += text;
    buffer += '\n';

    bool complete = false;
    std::vector<cql::ScriptStatement> statements = split_shell_script(buffer, &complete);
    if (!complete) continue;
    remember(buffer, history);
    buffer.clear();
    for (const cql::ScriptStatement& statement : statements) {
      runner.run_statement(statement.text, SourceLocation{});
      // Ctrl-C stopped the statement (it says so); the ones after it on the line do not run.
      if (runner.exit_requested() || interrupted) break;
    }
  }
  if (!history.empty()) write_history(history.c_str());
  return 0;
}

}  // namespace cassette::cli
