// The interactive prompt over libedit's readline interface.
#include "ext/cli/interactive.h"

#include <editline/readline.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "engine/cql/parser.h"
#include "ext/cli/cli_options.h"

namespace cassette::cli {

namespace {

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

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

// Shell commands that need no ';' at the prompt (cqlsh's commands_end_with_newline).
bool is_bare_shell_command(std::string_view text) {
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) break;
      continue;
    }
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::string rest(text);
  rest.erase(0, rest.find_first_not_of(" \t\r\n"));
  rest.erase(rest.find_last_not_of(" \t\r\n") + 1);
  return (word == "exit" || word == "quit" || word == "help" || word == "?") && rest == word;
}

}  // namespace

int run_interactive(StatementRunner& runner, const std::string& store_path) {
  const std::string history = history_path();
  using_history();
  if (!history.empty()) read_history(history.c_str());

  std::printf("Connected to Cassette store at %s.\n%sUse HELP for help.\n", store_path.c_str(),
              version_text().c_str());
  std::fflush(stdout);

  std::string buffer;
  while (!runner.exit_requested()) {
    const std::string& keyspace = runner.session().keyspace();
    std::string prompt = buffer.empty() ? prompt_for(keyspace) : continuation_for(keyspace);
    std::unique_ptr<char, FreeDeleter> line(readline(prompt.c_str()));
    if (!line) {  // Ctrl-D
      std::printf("\n");
      break;
    }
    std::string text(line.get());
    if (buffer.empty() && text.find_first_not_of(" \t") == std::string::npos) continue;
    buffer += text;
    buffer += '\n';

    bool complete = false;
    std::vector<cql::ScriptStatement> statements = cql::split_statements(buffer, &complete);
    if (!complete && !is_bare_shell_command(buffer)) continue;

    // One history entry per statement, on one line as cqlsh keeps them.
    std::string entry = buffer;
    for (char& c : entry) {
      if (c == '\n') c = ' ';
    }
    entry.erase(entry.find_last_not_of(' ') + 1);
    if (!entry.empty()) add_history(entry.c_str());

    buffer.clear();
    for (const cql::ScriptStatement& statement : statements) {
      runner.run_statement(statement.text, SourceLocation{});
      if (runner.exit_requested()) break;
    }
  }
  if (!history.empty()) {
    write_history(history.c_str());
    history_truncate_file(history.c_str(), 1000);
  }
  return 0;
}

}  // namespace cassette::cli
