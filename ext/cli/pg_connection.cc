// The bridge's libpqxx layer (see pg_connection.h).
#include "ext/cli/pg_connection.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>

namespace cassette::cli::pg {

namespace {

// One part of a dotted name: "Quoted" as written (with "" for a quote), otherwise lower-cased.
std::string read_name_part(std::string_view text, size_t& pos) {
  std::string out;
  if (pos < text.size() && text[pos] == '"') {
    ++pos;
    while (pos < text.size()) {
      if (text[pos] == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          out += '"';
          pos += 2;
          continue;
        }
        ++pos;
        break;
      }
      out += text[pos++];
    }
    return out;
  }
  while (pos < text.size() && text[pos] != '.') {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(text[pos++])));
  }
  return out;
}

// A query as a subquery: without the trailing semicolons and blanks psql users type.
std::string as_subquery(std::string_view query) {
  while (!query.empty() &&
         (query.back() == ';' || std::isspace(static_cast<unsigned char>(query.back())))) {
    query.remove_suffix(1);
  }
  return fmt::format("({}\n) AS cassette_query", query);
}

}  // namespace

std::string quote_pg_identifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string describe_pg_error(const std::exception& error) {
  std::string message = error.what();
  if (size_t newline = message.find('\n'); newline != std::string::npos) message.resize(newline);
  for (std::string_view prefix : {"ERROR:  ", "FATAL:  "}) {
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
  }
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
    message.pop_back();
  }
  return message;
}

Result<std::unique_ptr<pqxx::connection>> connect(const std::string& connection_string) {
  try {
    auto connection = std::make_unique<pqxx::connection>(connection_string);
    pqxx::nontransaction setup(*connection);
    setup.exec(
        "SET DateStyle = 'ISO, YMD'; SET TimeZone = 'UTC'; SET IntervalStyle = 'iso_8601'; "
        "SET bytea_output = 'hex'; SET extra_float_digits = 3; SET client_encoding = 'UTF8'");
    setup.commit();
    return connection;
  } catch (const std::exception& e) {
    return Status::invalid_argument(
        fmt::format("cannot connect to PostgreSQL: {}", describe_pg_error(e)));
  }
}

PgTableName parse_pg_table_name(std::string_view text) {
  PgTableName table;
  size_t pos = 0;
  std::string first = read_name_part(text, pos);
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    table.schema = std::move(first);
    table.name = read_name_part(text, pos);
  } else {
    table.name = std::move(first);
  }
  auto shown = [](const std::string& part) {
    bool plain = !part.empty() && !std::isdigit(static_cast<unsigned char>(part[0]));
    for (char c : part) {
      plain = plain && (std::islower(static_cast<unsigned char>(c)) ||
                        std::isdigit(static_cast<unsigned char>(c)) || c == '_');
    }
    return plain ? part : quote_pg_identifier(part);
  };
  table.quoted = table.schema.empty()
                     ? quote_pg_identifier(table.name)
                     : quote_pg_identifier(table.schema) + "." + quote_pg_identifier(table.name);
  table.display =
      table.schema.empty() ? shown(table.name) : shown(table.schema) + "." + shown(table.name);
  return table;
}

Result<std::optional<std::vector<PgColumn>>> table_columns(pqxx::transaction_base& tx,
                                                           const PgTableName& table) {
  try {
    pqxx::result rows = tx.exec(fmt::format(
        "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull AND NOT "
        "a.atthasdef FROM pg_attribute a WHERE a.attrelid = to_regclass({}) AND a.attnum > 0 "
        "AND NOT a.attisdropped ORDER BY a.attnum",
        tx.quote(table.quoted)));
    if (rows.empty()) {
      pqxx::result exists =
          tx.exec(fmt::format("SELECT to_regclass({}) IS NOT NULL", tx.quote(table.quoted)));
      if (!exists[0][0].as<bool>()) return std::optional<std::vector<PgColumn>>();
    }
    std::vector<PgColumn> columns;
    for (const auto& row : rows) {
      columns.push_back({row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<bool>()});
    }
    return std::optional<std::vector<PgColumn>>(std::move(columns));
  } catch (const std::exception& e) {
    return Status::invalid_argument(fmt::format("PostgreSQL: {}", describe_pg_error(e)));
  }
}

Result<std::optional<std::string>> cassette_foreign_table_store(pqxx::transaction_base& tx,
                                                                const PgTableName& table) {
  try {
    pqxx::result rows =
        tx.exec(fmt::format("SELECT o.option_value FROM pg_foreign_table t "
                            "JOIN pg_foreign_server s ON s.oid = t.ftserver "
                            "JOIN pg_foreign_data_wrapper w ON w.oid = s.srvfdw, "
                            "pg_options_to_table(s.srvoptions) o "
                            "WHERE t.ftrelid = to_regclass({}) AND w.fdwname = 'cassette_fdw' "
                            "AND o.option_name = 'store'",
                            tx.quote(table.quoted)));
    if (rows.empty()) return std::optional<std::string>();
    return std::optional<std::string>(rows[0][0].as<std::string>());
  } catch (const std::exception& e) {
    return Status::invalid_argument(fmt::format("PostgreSQL: {}", describe_pg_error(e)));
  }
}

Result<std::vector<PgResultColumn>> describe_query(pqxx::transaction_base& tx,
                                                   const std::string& query) {
  try {
    pqxx::result shape = tx.exec(fmt::format("SELECT * FROM {} LIMIT 0", as_subquery(query)));
    std::vector<PgResultColumn> columns;
    std::set<uint32_t> oids;
    for (pqxx::row_size_type i = 0; i < shape.columns(); ++i) {
      PgResultColumn column;
      column.name = shape.column_name(i);
      column.type.oid = shape.column_type(i);
      oids.insert(column.type.oid);
      columns.push_back(std::move(column));
    }
    // Names for messages, and the kinds of types not known by oid: arrays by their element,
    // domains by their base type, everything else (enums, ...) by its text form.
    std::string list;
    for (uint32_t oid : oids) list += (list.empty() ? "" : ",") + std::to_string(oid);
    std::map<uint32_t, PgSourceType> types;
    if (!list.empty()) {
      pqxx::result rows = tx.exec(fmt::format(
          "SELECT t.oid, format_type(t.oid, NULL), t.typcategory = 'A' AND t.typelem <> 0, "
          "coalesce(e.typbasetype, 0), t.typelem, coalesce(nullif(t.typbasetype, 0), t.oid) "
          "FROM pg_type t LEFT JOIN pg_type e ON e.oid = t.typelem WHERE t.oid IN ({})",
          list));
      for (const auto& row : rows) {
        PgSourceType type;
        type.oid = row[0].as<uint32_t>();
        type.name = row[1].as<std::string>();
        auto base = row[5].as<uint32_t>();
        type.kind = pg_kind_of_oid(base).value_or(PgKind::kText);
        if (row[2].as<bool>()) {
          type.kind = PgKind::kArray;
          auto element_base = row[3].as<uint32_t>();
          type.element = pg_kind_of_oid(element_base != 0 ? element_base : row[4].as<uint32_t>())
                             .value_or(PgKind::kText);
          // An array of arrays or of json has no list form: read it as text.
          if (type.element == PgKind::kJson) type.kind = PgKind::kText;
        }
        types[type.oid] = type;
      }
    }
    for (PgResultColumn& column : columns) column.type = types[column.type.oid];
    return columns;
  } catch (const std::exception& e) {
    return Status::invalid_argument(fmt::format("PostgreSQL: {}", describe_pg_error(e)));
  }
}

std::optional<double> estimate_rows(pqxx::dbtransaction& tx, const std::string& query) {
  try {
    pqxx::subtransaction explain(tx, "cassette_estimate");
    pqxx::result plan = explain.exec(fmt::format("EXPLAIN SELECT * FROM {}", as_subquery(query)));
    explain.commit();
    // "Seq Scan on t  (cost=0.00..35.50 rows=2550 width=4)"
    std::string first = plan[0][0].as<std::string>();
    size_t at = first.find(" rows=");
    if (at == std::string::npos) return std::nullopt;
    return std::stod(first.substr(at + 6));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace cassette::cli::pg
