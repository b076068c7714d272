// The shell's own commands, handled before CQL parsing (as cqlsh handles COPY, SOURCE, HELP...):
//
//   COPY [ks.]table [(col, ...)] TO 'file.csv' | STDOUT [WITH opt = value [AND ...]]
//   COPY [ks.]table [(col, ...)] FROM 'file.csv' [WITH opt = value [AND ...]]
//   SOURCE 'file.cql'
//   CLOCK ADVANCE n          (seconds; only with --clock)
//   FLUSH                    (every memtable to SSTables, as nodetool flush)
//   COMPACT [ks.]table       (the table's SSTables into one, as nodetool compact)
//   BUILD INDEXES [[ks.]table] (the ANN graphs not built yet, now: engine/cql/ann_index.h)
//   HELP | ?
//   EXIT | QUIT
//
// Everything else is CQL and goes to the parser.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/cql/parser.h"
#include "engine/util/status.h"

namespace cassette::cli {

enum class ShellCommandKind {
  kCql,
  kCopy,
  kSource,
  kClock,
  kFlush,
  kCompact,
  kBuildIndexes,
  kHelp,
  kExit
};

// Which command a statement is, from its first word (case-insensitive, after comments).
ShellCommandKind classify_statement(std::string_view text);

// The statements of a shell script (or of the lines typed at the prompt so far): CQL and shell
// commands cut at ';' (cql::split_statements), except that a line holding only HELP, ?, EXIT or
// QUIT where no statement is unfinished is a statement of its own, ';' or not (cqlsh's
// commands_end_with_newline). `complete` as in cql::split_statements.
std::vector<cql::ScriptStatement> split_shell_script(std::string_view script,
                                                     bool* complete = nullptr);

// Whether running the script can change the store, so that the shell may make a missing store
// for it (USAGE.md, "Stores"): a CQL statement that writes (cql::statement_writes), COPY ... FROM
// and SOURCE (whose file is read only when it runs). SELECT, DESCRIBE, USE, COPY ... TO, HELP,
// EXIT, CLOCK and statements that do not parse (they fail without writing) only read.
bool script_may_write(std::string_view script);

// A shell command's tokens: words (lower-cased unless "quoted"), 'strings' (unquoted, ''
// unescaped), numbers, and single punctuation characters.
struct ShellToken {
  enum class Kind { kWord, kQuotedName, kString, kNumber, kSymbol };
  Kind kind = Kind::kWord;
  std::string text;
};
Result<std::vector<ShellToken>> tokenize_shell_command(std::string_view text);

struct CopyCommand {
  std::string keyspace;  // empty: the current keyspace
  std::string table;
  std::vector<std::string> columns;            // empty: all columns
  bool to = false;                             // COPY ... TO (export); else FROM (import)
  std::optional<std::string> file;             // nullopt: STDOUT / STDIN
  std::map<std::string, std::string> options;  // lower-cased names, values unquoted
};
// Parses a COPY command; the error message is cqlsh's "Improper COPY command."
Result<CopyCommand> parse_copy_command(std::string_view text);

// SOURCE 'file': the file name.
Result<std::string> parse_source_command(std::string_view text);

// CLOCK ADVANCE n: the number of seconds.
Result<int64_t> parse_clock_command(std::string_view text);

// FLUSH: nothing to parse but its being alone; the error is "Improper FLUSH command.".
Status parse_flush_command(std::string_view text);

// COMPACT [ks.]table: the keyspace (empty: the current one) and the table.
Result<std::pair<std::string, std::string>> parse_compact_command(std::string_view text);

// BUILD INDEXES [[ks.]table]: the keyspace (empty: the current one) and the table; nullopt: every
// table of the store.
Result<std::optional<std::pair<std::string, std::string>>> parse_build_indexes_command(
    std::string_view text);

// The text HELP prints.
std::string help_text();

}  // namespace cassette::cli
