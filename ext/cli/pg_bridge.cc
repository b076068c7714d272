// The bridge's command line: parsing "cassette pg-export|pg-import ..." and dispatching.
#include "ext/cli/pg_bridge.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "engine/cql/execution_context.h"
#include "engine/util/message.h"
#include "ext/cli/pg_connection.h"

namespace cassette::cli::pg {

namespace {

// "ks.table", "\"Ks\".\"My Table\"": CQL names, unquoted ones lower-cased.
Result<std::pair<std::string, std::string>> parse_cql_table(std::string_view text) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      if (quoted && i + 1 < text.size() && text[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back() += quoted ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (quoted || parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return Status::invalid_argument(fmt::format(
        "the CQL table must be given as keyspace.table, not '{}'", message_value(text)));
  }
  return std::make_pair(parts[0], parts[1]);
}

}  // namespace

bool is_bridge_command(std::string_view word) {
  return word == "pg-export" || word == "pg-import";
}

Result<BridgeOptions> parse_bridge_options(std::span<const std::string> args) {
  BridgeOptions options;
  options.import = args[0] == "pg-import";
  std::vector<std::string> positional;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string arg = args[i];
    std::optional<std::string> inline_value;
    if (arg.starts_with("--")) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg.resize(eq);
      }
    }
    auto value = [&]() -> Result<std::string> {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) {
        return Status::invalid_argument(fmt::format("option {} needs a value", arg));
      }
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--rejects") {
      CASSETTE_ASSIGN_OR_RETURN(options.rejects, value());
      if (options.rejects.empty()) return Status::invalid_argument("--rejects needs a file name");
    } else if (arg == "--batch-size" && options.import) {
      CASSETTE_ASSIGN_OR_RETURN(std::string v, value());
      size_t n = 0;
      auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (error != std::errc() || end != v.data() + v.size() || n == 0) {
        return Status::invalid_argument(fmt::format(
            "--batch-size must be a positive number of rows, not '{}'", message_value(v)));
      }
      options.batch_size = n;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return Status::invalid_argument(fmt::format("unknown option {} for {}", arg, args[0]));
    } else {
      positional.push_back(args[i]);
    }
  }
  if (options.help) return options;
  const char* shape = options.import ? "pg-import STORE KEYSPACE.TABLE CONNSTR 'SELECT ...'"
                                     : "pg-export STORE KEYSPACE.TABLE CONNSTR [PG_TABLE]";
  const size_t wanted_min = options.import ? 4 : 3, wanted_max = 4;
  if (positional.size() < wanted_min || positional.size() > wanted_max) {
    return Status::invalid_argument(
        fmt::format("{} takes {} arguments: {}", args[0], options.import ? "4" : "3 or 4", shape));
  }
  options.store = positional[0];
  CASSETTE_ASSIGN_OR_RETURN(auto table, parse_cql_table(positional[1]));
  options.keyspace = table.first;
  options.table = table.second;
  options.connection = positional[2];
  if (options.import) {
    options.query = positional[3];
  } else {
    // By default the CQL table's own name, exactly (quoted, so a case-sensitive name stays so).
    options.pg_table = positional.size() > 3 ? positional[3] : quote_pg_identifier(options.table);
    if (options.pg_table.empty()) return Status::invalid_argument("PG_TABLE must not be empty");
  }
  if (options.store.empty()) return Status::invalid_argument("STORE must not be empty");
  if (options.rejects.empty()) options.rejects = options.table + ".rejects.csv";
  return options;
}

namespace {

int run_bridge(std::span<const std::string> args) {
  auto options = parse_bridge_options(args);
  if (!options.is_ok()) {
    std::fprintf(stderr, "cassette %s: %s\nTry 'cassette %s --help' for more information.\n",
                 args[0].c_str(), options.status().message().c_str(), args[0].c_str());
    return 2;
  }
  if (options->help) {
    std::fputs(bridge_usage_text().c_str(), stdout);
    return 0;
  }
  return options->import ? run_pg_import(*options) : run_pg_export(*options);
}

}  // namespace

int run_bridge_command(std::span<const std::string> args) {
  // pg-import and pg-export catch libpqxx's exceptions where they stream; this is the last
  // resort for anything else, so that no exception ends the process without a message.
  try {
    return run_bridge(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cassette %s: internal error: %s\n", args[0].c_str(), e.what());
  } catch (...) {
    std::fprintf(stderr, "cassette %s: internal error\n", args[0].c_str());
  }
  return 1;
}

std::string bridge_usage_text() {
  return R"(Usage: cassette pg-export STORE KEYSPACE.TABLE CONNSTR [PG_TABLE] [--rejects FILE]
       cassette pg-import STORE KEYSPACE.TABLE CONNSTR 'SELECT ...' [--rejects FILE]
                          [--batch-size N]

Moves rows between a Cassette store and PostgreSQL, streamed with COPY.

pg-export copies every row of the CQL table into the PostgreSQL table PG_TABLE (default: the
CQL table's name; "schema.table" for another schema), creating it with the mapped types and the
same primary key when it is missing, and checking the columns of an existing one.

pg-import runs the query and writes its rows into the CQL table, matching result columns to
CQL columns by name, in batches of N rows (default 1000), each one atomic write.

CONNSTR is a libpq connection string ('host=/tmp dbname=shop') or URI
('postgresql://user@host/db'); an empty string uses the PG* environment variables.

Options:
  --rejects FILE    where rows that cannot be moved go, as CSV with a reason column
                    (default: TABLE.rejects.csv; created only when a row is rejected)
  --batch-size N    pg-import: rows per store write (default 1000)
  -h, --help        print this help and exit

A progress bar is drawn on standard error when it is a terminal; a summary line ends the run.
Exit status: 0 when every row moved, 1 on an error or when rows were rejected, 2 for a bad
command line.
)";
}

Result<BridgeTable> open_bridge_table(const BridgeOptions& options,
                                      const storage::StoreOptions& store_options) {
  std::error_code error;
  if (!std::filesystem::is_directory(options.store, error)) {
    return Status::not_found(fmt::format("no store at {}", message_value(options.store)));
  }
  BridgeTable out;
  auto store = storage::Store::open(options.store, store_options);
  if (!store.is_ok()) {
    return Status::io_error(fmt::format("cannot open store {}: {}", message_value(options.store),
                                        store.status().message()));
  }
  out.store = std::move(store).value();
  CASSETTE_ASSIGN_OR_RETURN(out.session, cql::Session::open(out.store));
  cql::ExecutionContext context;
  CASSETTE_ASSIGN_OR_RETURN(context.schema, out.session->catalog().current());
  CASSETTE_ASSIGN_OR_RETURN(out.table, context.resolve_table({options.keyspace, options.table}));
  return out;
}

}  // namespace cassette::cli::pg
