// cassette: the Cassette CQL shell.
//
//   cassette app.cassette                         an interactive prompt (or a script on stdin)
//   cassette app.cassette -e 'SELECT * FROM ks.t'
//   cassette app.cassette -f schema.cql --keep-going
//   cassette :memory: --format json -e "CREATE KEYSPACE ...; ...; SELECT ..."
//   cassette pg-export app.cassette ks.t "dbname=shop"      (and pg-import: see pg_bridge.h)
//   cassette serve app.cassette --listen 127.0.0.1:9042     (the CQL native protocol server)
//   cassette passwd users.txt alice                         (a user for serve --auth-file)
//   cassette resolve app.cassette [commit|abort TAG]        (a transaction left in doubt)
//
// See ext/cli/USAGE.md.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cql/parser.h"
#include "engine/cql/session.h"
#include "engine/storage/clock.h"
#include "engine/storage/store.h"
#include "ext/cli/cli_options.h"
#include "ext/cli/console.h"
#include "ext/cli/error_format.h"
#include "ext/cli/interactive.h"
#include "ext/cli/interrupt.h"
#include "ext/cli/pg_bridge.h"
#include "ext/cli/resolve_command.h"
#include "ext/cli/shell_command.h"
#include "ext/cli/statement_runner.h"
#include "ext/server/passwd_command.h"
#include "ext/server/serve_command.h"

namespace {

using namespace cassette;
using namespace cassette::cli;

// The script the shell runs (-e, -f or stdin); nullopt for an interactive session.
Result<std::optional<std::string>> read_script(const CliOptions& options, bool interactive) {
  if (options.execute) return std::optional<std::string>(*options.execute);
  if (options.file) {
    CASSETTE_ASSIGN_OR_RETURN(std::string script, read_script_file(*options.file));
    return std::optional<std::string>(std::move(script));
  }
  if (interactive) return std::optional<std::string>();
  return std::optional<std::string>(
      std::string((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>()));
}

int run(const CliOptions& options) {
  const bool interactive = !options.execute && !options.file && isatty(STDIN_FILENO) != 0;
  auto script = read_script(options, interactive);
  if (!script.is_ok()) {
    Console console;
    console.error_line("Can't open " + script.status().message());
    console.flush();
    return 1;
  }
  // The manual clock must outlive the store that reads it.
  std::unique_ptr<storage::ManualClock> clock;
  storage::StoreOptions store_options;
  store_options.sync = options.sync;
  if (options.clock_micros) {
    clock = std::make_unique<storage::ManualClock>(*options.clock_micros);
    store_options.clock = clock.get();
  }
  // A missing store is made for an interactive session or a script that writes, never for one
  // that only reads (USAGE.md, "Stores"): there a mistyped path must fail, not read as empty.
  store_options.create_if_missing = !script->has_value() || script_may_write(**script);
  auto store = storage::Store::open(options.store, store_options);
  if (!store.is_ok()) {
    std::fprintf(stderr, "cassette: cannot open store %s: %s\n", options.store.c_str(),
                 store.status().message().c_str());
    return 1;
  }
  auto session = cql::Session::open(*store);
  if (!session.is_ok()) {
    std::fprintf(stderr, "cassette: cannot open store %s: %s\n", options.store.c_str(),
                 session.status().message().c_str());
    return 1;
  }

  Console console;
  RunnerOptions runner_options;
  runner_options.format = options.format;
  runner_options.echo = options.echo;
  runner_options.keep_going = options.keep_going || interactive;
  runner_options.tty = interactive;
  if (interactive) {
    // Ctrl-C stops the statement or drops the line; it no longer ends the shell (interrupt.h).
    install_interrupt_handler();
    (*session)->set_interrupt_flag(&interrupt_flag());
    runner_options.interrupt = &interrupt_flag();
  }
  StatementRunner runner(**session, console, clock.get(), runner_options);

  if (!options.keyspace.empty()) {
    // As cqlsh -k: the keyspace must exist.
    SourceLocation where{interactive ? "" : "<stdin>", 1};
    if (!runner.use_keyspace(options.keyspace, where)) return 1;
  }

  if (!script->has_value()) return run_interactive(runner, options.store);
  const std::string source = options.file ? *options.file : "<stdin>";
  const bool ok = runner.run_script(**script, source);
  console.flush();
  return ok ? 0 : 1;
}

int run_command_line(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // `cassette pg-export ...` / `cassette pg-import ...`: the PostgreSQL bridge (pg_bridge.h).
  if (!args.empty() && pg::is_bridge_command(args[0])) return pg::run_bridge_command(args);
  // `cassette serve STORE ...`: the CQL native protocol server (ext/server).
  if (!args.empty() && args[0] == "serve") {
    return server::run_serve_command(std::span<const std::string>(args).subspan(1));
  }
  // `cassette passwd FILE USER`: a user's line in `serve --auth-file FILE`.
  if (!args.empty() && args[0] == "passwd") {
    return server::run_passwd_command(std::span<const std::string>(args).subspan(1));
  }
  // `cassette resolve STORE [commit|abort TAG]`: a transaction left in doubt (resolve_command.h).
  if (!args.empty() && args[0] == "resolve") return run_resolve_command(args);
  auto options = parse_cli_options(args);
  if (!options.is_ok()) {
    std::fprintf(stderr, "cassette: %s\nTry 'cassette --help' for more information.\n",
                 options.status().message().c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::fputs(version_text().c_str(), stdout);
    return 0;
  }
  return run(*options);
}

}  // namespace

int main(int argc, char** argv) {
  // Statements catch what they throw (StatementRunner); this is for everything around them.
  try {
    return run_command_line(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cassette: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cassette: internal error\n");
  }
  return 1;
}
