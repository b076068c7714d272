// COPY: resolving the target and the options, then handing over to export or import.
#include "ext/cli/copy_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "ext/cli/copy_internal.h"

namespace cassette::cli {

namespace copy_detail {

bool fail(CopyContext& context, std::string_view message) {
  context.console->error_line(format_shell_error(message, context.where));
  return false;
}

std::vector<const schema::ColumnDef*> columns_in_cqlsh_order(const schema::TableDef& table) {
  std::vector<const schema::ColumnDef*> keys, others;
  for (const schema::ColumnDef& column : table.columns) {
    (column.is_primary_key() ? keys : others).push_back(&column);
  }
  auto by_key_position = [](const schema::ColumnDef* a, const schema::ColumnDef* b) {
    if (a->kind != b->kind) return a->kind == schema::ColumnKind::kPartitionKey;
    return a->position < b->position;
  };
  std::stable_sort(keys.begin(), keys.end(), by_key_position);
  std::stable_sort(others.begin(), others.end(),
                   [](const schema::ColumnDef* a, const schema::ColumnDef* b) {
                     return a->name < b->name;  // system_schema.columns' order: UTF-8 bytes
                   });
  keys.insert(keys.end(), others.begin(), others.end());
  return keys;
}

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

Result<CopyTarget> resolve_target(const CopyCommand& command, cql::Session& session) {
  std::string keyspace = command.keyspace.empty() ? session.keyspace() : command.keyspace;
  if (keyspace.empty()) return Status::invalid_argument("Not in any keyspace.");
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> schema,
                            session.catalog().current());
  if (schema->find_keyspace(keyspace) == nullptr) {
    return Status::invalid_argument(fmt::format("Keyspace '{}' not found.", keyspace));
  }
  CopyTarget target;
  target.table = schema->find_table(keyspace, command.table);
  if (!target.table) {
    return Status::invalid_argument(fmt::format("Column family {} not found", command.table));
  }
  if (command.columns.empty()) {
    target.columns = columns_in_cqlsh_order(*target.table);
  } else {
    for (const std::string& name : command.columns) {
      const schema::ColumnDef* column = target.table->find_column(name);
      if (column == nullptr) {
        return Status::invalid_argument(fmt::format("Invalid column name {}", name));
      }
      target.columns.push_back(column);
    }
  }
  if (target.columns.empty()) return Status::invalid_argument("No column specified");
  return target;
}

Result<CopyOptions> parse_copy_options(const CopyCommand& command) {
  // cqlsh's performance and formatting knobs that mean nothing in-process: accepted, ignored.
  static const std::set<std::string> kIgnoredCommon = {
      "maxattempts", "reportfrequency", "ratefile",     "configfile", "numprocesses",
      "encoding",    "decimalsep",      "thousandssep", "boolstyle",  "datetimeformat"};
  static const std::set<std::string> kIgnoredFrom = {"chunksize", "ingestrate", "minbatchsize",
                                                     "preparedstatements", "errfile"};
  static const std::set<std::string> kIgnoredTo = {"pagesize", "pagetimeout", "begintoken",
                                                   "endtoken", "maxrequests", "maxoutputsize"};
  CopyOptions options;
  std::optional<char> escape = '\\';
  std::vector<std::string> unknown;

  auto single_char = [](const std::string& name, const std::string& value) -> Result<char> {
    if (value.size() != 1) {
      return Status::invalid_argument(fmt::format("\"{}\" must be a 1-character string", name));
    }
    return value[0];
  };
  auto integer = [](const std::string& name, const std::string& value) -> Result<int64_t> {
    try {
      size_t used = 0;
      int64_t n = std::stoll(value, &used);
      if (used == value.size()) return n;
    } catch (...) {
    }
    return Status::invalid_argument(
        fmt::format("invalid literal for int() with base 10: '{}' (COPY option {})", value, name));
  };

  for (const auto& [name, value] : command.options) {
    if (name == "delimiter") {
      CASSETTE_ASSIGN_OR_RETURN(options.dialect.delimiter, single_char(name, value));
    } else if (name == "quote") {
      CASSETTE_ASSIGN_OR_RETURN(options.dialect.quote, single_char(name, value));
    } else if (name == "escape") {
      CASSETTE_ASSIGN_OR_RETURN(char c, single_char(name, value));
      escape = c;
    } else if (name == "header") {
      std::string v = value;
      std::transform(v.begin(), v.end(), v.begin(), ::tolower);
      options.header = v == "true";
    } else if (name == "null") {
      options.null_value = value;
    } else if (!command.to && name == "skiprows") {
      CASSETTE_ASSIGN_OR_RETURN(options.skip_rows, integer(name, value));
    } else if (!command.to && name == "maxrows") {
      CASSETTE_ASSIGN_OR_RETURN(options.max_rows, integer(name, value));
    } else if (!command.to && name == "skipcols") {
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        std::string column =
            value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        column.erase(0, column.find_first_not_of(' '));
        column.erase(column.find_last_not_of(' ') + 1);
        if (!column.empty()) options.skip_columns.push_back(column);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (!command.to && name == "maxbatchsize") {
      CASSETTE_ASSIGN_OR_RETURN(int64_t n, integer(name, value));
      options.max_batch_size = static_cast<size_t>(std::max<int64_t>(1, n));
    } else if (!command.to && name == "maxparseerrors") {
      CASSETTE_ASSIGN_OR_RETURN(options.max_parse_errors, integer(name, value));
    } else if (!command.to && name == "maxinserterrors") {
      CASSETTE_ASSIGN_OR_RETURN(options.max_insert_errors, integer(name, value));
    } else if (!command.to && name == "ttl") {
      CASSETTE_ASSIGN_OR_RETURN(int64_t n, integer(name, value));
      if (n >= 0) options.ttl = n;
    } else if (command.to && name == "floatprecision") {
      CASSETTE_ASSIGN_OR_RETURN(int64_t n, integer(name, value));
      options.float_precision = static_cast<int>(std::clamp<int64_t>(n, 0, 40));
    } else if (command.to && name == "doubleprecision") {
      CASSETTE_ASSIGN_OR_RETURN(int64_t n, integer(name, value));
      options.double_precision = static_cast<int>(std::clamp<int64_t>(n, 0, 40));
    } else if (kIgnoredCommon.count(name) || (command.to ? kIgnoredTo : kIgnoredFrom).count(name)) {
      // accepted for compatibility with cqlsh scripts
    } else {
      unknown.push_back(name);
    }
  }
  if (!unknown.empty()) {
    std::string names;
    for (const std::string& name : unknown) names += (names.empty() ? "" : ", ") + name;
    return Status::invalid_argument(
        fmt::format("Unrecognized COPY {} options: {}", command.to ? "TO" : "FROM", names));
  }
  // As cqlsh: an escape character equal to the quote means quotes are doubled.
  options.dialect.escape = escape == options.dialect.quote ? std::nullopt : escape;
  return options;
}

}  // namespace copy_detail

std::string describe_interval(double seconds) {
  std::vector<std::string> parts;
  static const std::pair<int64_t, const char*> kUnits[] = {
      {86400, "day"}, {3600, "hour"}, {60, "minute"}};
  for (const auto& [length, unit] : kUnits) {
    int64_t count = static_cast<int64_t>(seconds) / length;
    if (count > 0) parts.push_back(fmt::format("{} {}{}", count, unit, count > 1 ? "s" : ""));
    seconds = std::fmod(seconds, static_cast<double>(length));
  }
  std::string words = fmt::format("{:.3f} seconds", seconds);
  if (parts.size() > 1) {
    std::string joined;
    for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
    return joined + ", and " + words;
  }
  if (parts.size() == 1) return parts[0] + " and " + words;
  return words;
}

bool run_copy(const CopyCommand& command, CopyContext& context) {
  using namespace copy_detail;
  auto options = parse_copy_options(command);
  if (!options.is_ok()) return fail(context, options.status().message());
  auto target = resolve_target(command, *context.session);
  if (!target.is_ok()) return fail(context, target.status().message());
  return command.to ? run_export(command, *target, *options, context)
                    : run_import(command, *target, *options, context);
}

}  // namespace cassette::cli
