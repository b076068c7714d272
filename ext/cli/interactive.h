// The interactive prompt: line editing and history (libedit, saved in ~/.cassette_history),
// cqlsh's prompts ("cassette> ", "cassette:ks> ", "   ... " while a statement is unfinished),
// statements run as soon as a ';' completes them, errors printed and the session continued.
#pragma once

#include "ext/cli/statement_runner.h"

namespace cassette::cli {

// Runs the prompt until EXIT/QUIT or end of input (Ctrl-D). Returns the exit status: 0.
int run_interactive(StatementRunner& runner, const std::string& store_path);

}  // namespace cassette::cli
