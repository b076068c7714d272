// Command-line parsing for `cassette`: a small hand-written parser, since the options are few and
// their errors should read like the rest of the shell's.
#include "ext/cli/cli_options.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

#include "engine/types/scalar.h"
#include "engine/types/temporal.h"

namespace cassette::cli {

namespace {

using types::days_from_civil;

bool read_number(std::string_view text, size_t& pos, size_t digits, int& out) {
  if (pos + digits > text.size()) return false;
  int value = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  pos += digits;
  out = value;
  return true;
}

Result<OutputFormat> parse_format(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return Status::invalid_argument(
      fmt::format("unknown --format '{}' (expected table, csv or json)", name));
}

}  // namespace

Result<int64_t> parse_utc_time(std::string_view text) {
  auto bad = [&] {
    return Status::invalid_argument(
        fmt::format("invalid --clock time '{}' (expected 'YYYY-MM-DD HH:MM:SS', UTC)", text));
  };
  size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_number(text, pos, 4, year) || pos >= text.size() || text[pos++] != '-' ||
      !read_number(text, pos, 2, month) || pos >= text.size() || text[pos++] != '-' ||
      !read_number(text, pos, 2, day)) {
    return bad();
  }
  if (pos < text.size()) {
    if (text[pos] != ' ' && text[pos] != 'T') return bad();
    ++pos;
    if (!read_number(text, pos, 2, hour) || pos >= text.size() || text[pos++] != ':' ||
        !read_number(text, pos, 2, minute)) {
      return bad();
    }
    if (pos < text.size()) {
      if (text[pos++] != ':' || !read_number(text, pos, 2, second)) return bad();
    }
    if (pos < text.size() && text[pos] == 'Z') ++pos;
    if (pos != text.size()) return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return bad();
  }
  int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second;
  return seconds * 1'000'000;
}

std::string format_utc_time(int64_t micros) {
  int64_t seconds = micros / 1'000'000;
  if (micros % 1'000'000 < 0) --seconds;
  int64_t days = seconds / 86400;
  int64_t rest = seconds % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  int64_t y;
  unsigned m, d;
  types::civil_from_days(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", y, m, d, rest / 3600, rest / 60 % 60,
                     rest % 60);
}

Result<CliOptions> parse_cli_options(std::span<const std::string> args) {
  CliOptions options;
  bool have_store = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::optional<std::string> inline_value;
    if (arg.starts_with("--")) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
    }
    // The value of an option that takes one: "--opt=value" or the next argument.
    auto value = [&]() -> Result<std::string> {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) {
        return Status::invalid_argument(fmt::format("option {} needs a value", arg));
      }
      return args[++i];
    };
    auto no_value = [&]() -> Status {
      if (inline_value) {
        return Status::invalid_argument(fmt::format("option {} takes no value", arg));
      }
      return Status::ok();
    };

    if (arg == "-h" || arg == "--help") {
      CASSETTE_RETURN_IF_ERROR(no_value());
      options.help = true;
    } else if (arg == "-v" || arg == "--version") {
      CASSETTE_RETURN_IF_ERROR(no_value());
      options.version = true;
    } else if (arg == "-e" || arg == "--execute") {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, value());
      // Several -e run one after the other, as one script.
      options.execute = options.execute ? *options.execute + ";\n" + v : v;
    } else if (arg == "-f" || arg == "--file") {
      if (options.file) return Status::invalid_argument("option -f given twice");
      CASSETTE_ASSIGN_OR_RETURN(std::string v, value());
      options.file = v;
    } else if (arg == "--format") {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, value());
      CASSETTE_ASSIGN_OR_RETURN(options.format, parse_format(v));
    } else if (arg == "-k" || arg == "--keyspace") {
      CASSETTE_ASSIGN_OR_RETURN(options.keyspace, value());
    } else if (arg == "--echo") {
      CASSETTE_RETURN_IF_ERROR(no_value());
      options.echo = true;
    } else if (arg == "--keep-going") {
      CASSETTE_RETURN_IF_ERROR(no_value());
      options.keep_going = true;
    } else if (arg == "--clock") {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, value());
      CASSETTE_ASSIGN_OR_RETURN(int64_t micros, parse_utc_time(v));
      options.clock_micros = micros;
    } else if (arg == "--sync") {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, value());
      CASSETTE_ASSIGN_OR_RETURN(options.sync, storage::parse_sync_mode(v, "--sync"));
    } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
      return Status::invalid_argument(fmt::format("unknown option {}", arg));
    } else if (!have_store) {
      options.store = arg;
      have_store = true;
    } else {
      return Status::invalid_argument(fmt::format("unexpected argument '{}'", arg));
    }
  }
  if (options.help || options.version) return options;
  if (!have_store) return Status::invalid_argument("missing STORE (a directory, or :memory:)");
  if (options.store.empty()) return Status::invalid_argument("STORE must not be empty");
  if (options.execute && options.file) {
    return Status::invalid_argument("give either -e or -f, not both");
  }
  return options;
}

std::string version_text() {
  return "cassette 0.1.0 (CQL 3.4.7, Cassandra 5.0 dialect)\n";
}

std::string usage_text() {
  return R"(Usage: cassette STORE [options]
       cassette pg-export STORE KEYSPACE.TABLE CONNSTR [PG_TABLE]   (cassette pg-export --help)
       cassette pg-import STORE KEYSPACE.TABLE CONNSTR 'SELECT ...' (cassette pg-import --help)
       cassette serve STORE [--listen HOST:PORT] ...                (cassette serve --help)
       cassette passwd FILE USER     (a user for serve --auth-file; password read from stdin)
       cassette resolve STORE [commit|abort TAG]      (a transaction left in doubt; USAGE.md)

The Cassette CQL shell: runs CQL statements (Apache Cassandra's dialect) against the store in the
directory STORE (created if missing), or against a private in-memory store with STORE = :memory:.
Without -e or -f it reads statements from standard input: an interactive prompt on a terminal,
a script otherwise.

Options:
  -e, --execute 'CQL; ...'  run these statements, then exit
  -f, --file FILE           run the statements in FILE, then exit
  --format table|csv|json   how to print rows (default: table, as cqlsh prints them)
  -k, --keyspace KS         start in keyspace KS (as USE KS)
  --echo                    print each statement before its output
  --keep-going              do not stop at the first failed statement
  --clock 'YYYY-MM-DD HH:MM:SS'
                            use a manual clock starting at this UTC time; the shell command
                            CLOCK ADVANCE n; moves it forward n seconds (for TTL tests)
  --sync full|normal|off    when a commit reaches the disk (default: full, synced before it
                            returns; normal: synced within a few milliseconds, so a power loss
                            may lose the last ones, a crash of the shell none; off: when the
                            operating system writes it back); USAGE.md, "Durability"
  -h, --help                print this help and exit
  -v, --version             print the version and exit

Shell commands (besides CQL): COPY t [(cols)] TO|FROM 'file.csv' [WITH HEADER = true AND
DELIMITER = ',' ...]; SOURCE 'file.cql'; CLOCK ADVANCE n; FLUSH; COMPACT t; BUILD INDEXES [t];
HELP; EXIT; QUIT.

Exit status: 0 when every statement succeeded, 1 when one failed (the first error stops the
script unless --keep-going), 2 for a bad command line.
)";
}

}  // namespace cassette::cli
