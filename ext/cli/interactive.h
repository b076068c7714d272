// The interactive prompt: line editing and history (libedit, saved in ~/.cassette_history after
// every statement), cqlsh's prompts ("cassette> ", "cassette:ks> ", "   ... " while a statement
// is unfinished), statements run as soon as a ';' completes them (HELP, EXIT and QUIT need none),
// errors printed and the session continued. Ctrl-C drops the line being typed, or stops the
// running statement (interrupt.h); Ctrl-D, EXIT or QUIT leave.
#pragma once

#include "ext/cli/statement_runner.h"

namespace cassette::cli {

// Runs the prompt until EXIT/QUIT or end of input (Ctrl-D). Returns the exit status: 0.
// REQUIRES: install_interrupt_handler() has run.
int run_interactive(StatementRunner& runner, const std::string& store_path);

}  // namespace cassette::cli
