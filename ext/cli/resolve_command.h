// `cassette resolve`: the operator's decision on a transaction left in doubt in a store.
//
//   cassette resolve STORE                      lists the transactions in doubt, one tag a line
//   cassette resolve STORE commit|abort TAG     decides the one tagged TAG
//
// A host that commits with two phases (the PostgreSQL wrapper, ext/postgres/fdw_commit.c) writes
// its transaction as a prepared record, then a decision. When it dies between the two and no
// host that can decide the transaction writes the store again (a PostgreSQL cluster gone for
// good), every write elsewhere is refused; this decides it by hand
// (storage::Store::decide_in_doubt). USAGE.md, "Transactions in doubt".
#pragma once

#include <span>
#include <string>

namespace cassette::cli {

// Runs `cassette resolve ARGS...` (args[0] is "resolve"); returns the exit status: 0 done,
// 1 the store refused (the error on stderr), 2 a usage error.
int run_resolve_command(std::span<const std::string> args);

}  // namespace cassette::cli
