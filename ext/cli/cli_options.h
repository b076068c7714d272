// The `cassette` command line: what the user asked for, parsed and checked.
//
//   cassette STORE [-e 'CQL; CQL; ...'] [-f FILE] [--format table|csv|json] [-k KEYSPACE]
//            [--echo] [--keep-going] [--clock 'YYYY-MM-DD HH:MM:SS'] [--sync full|normal|off]
//            [--help] [--version]
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/storage/commit_log.h"
#include "engine/util/status.h"

namespace cassette::cli {

enum class OutputFormat { kTable, kCsv, kJson };

struct CliOptions {
  std::string store;                   // a directory, or ":memory:"
  std::optional<std::string> execute;  // -e: the statements to run
  std::optional<std::string> file;     // -f: a script to run
  OutputFormat format = OutputFormat::kTable;
  std::string keyspace;                 // -k: USE this keyspace first
  bool echo = false;                    // print each statement before its output
  bool keep_going = false;              // do not stop at the first failed statement
  std::optional<int64_t> clock_micros;  // --clock: a manual clock starting at this UTC time
  storage::SyncMode sync = storage::SyncMode::kFull;  // --sync: the commit log's sync mode
  bool help = false;
  bool version = false;
};

// Parses the arguments (without the program name). Accepts "--opt value" and "--opt=value".
// An error's message says what is wrong, for "cassette: <message>" and exit status 2.
Result<CliOptions> parse_cli_options(std::span<const std::string> args);

// "YYYY-MM-DD HH:MM:SS" (or "YYYY-MM-DD", or with 'T') as UTC, in microseconds since the epoch.
Result<int64_t> parse_utc_time(std::string_view text);
// The inverse, for messages: "2024-01-01 00:00:00".
std::string format_utc_time(int64_t micros);

std::string usage_text();
std::string version_text();

}  // namespace cassette::cli
