// INSERT JSON decoding (see insert_json.h).
#include "engine/cql/insert_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "engine/cql/term.h"
#include "engine/util/json.h"

namespace cassette::cql {

Result<std::vector<JsonColumnValue>> decode_insert_json(const InsertStatement& statement,
                                                        const schema::TableDef& table,
                                                        const ExecutionContext& context) {
  if (!statement.json_value) return Status::invalid_argument("Missing JSON value");
  CASSETTE_ASSIGN_OR_RETURN(
      types::Value document,
      evaluate_term(*statement.json_value, types::CqlType::simple(types::TypeKind::kText), "[json]",
                    context));
  if (!document) return Status::invalid_argument("Got null for INSERT JSON values");
  Result<json::JsonValue> parsed = json::parse_json(*document);
  if (!parsed.is_ok()) {
    return Status::invalid_argument(
        fmt::format("Could not decode JSON string as a map: {}. (String was: {})",
                    parsed.status().message(), *document));
  }
  if (parsed->is_null()) return Status::invalid_argument("Got null for INSERT JSON values");
  if (parsed->kind != json::JsonValue::Kind::kObject) {
    return Status::invalid_argument(fmt::format(
        "Could not decode JSON string as a map: a JSON object was expected. (String was: {})",
        *document));
  }
  // Keys name columns: "quoted" keys keep their case, others are lower-cased (Json.java's
  // handleCaseSensitivity). A repeated key keeps its last value, as a Java map would.
  std::vector<std::pair<std::string, const json::JsonValue*>> entries;
  for (const auto& [raw_key, value] : parsed->members) {
    std::string key = raw_key;
    if (key.size() >= 2 && key.front() == '"' && key.back() == '"') {
      key = key.substr(1, key.size() - 2);
    } else {
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
    if (it != entries.end()) {
      it->second = &value;
    } else {
      entries.emplace_back(std::move(key), &value);
    }
  }
  std::vector<JsonColumnValue> values;
  for (const schema::ColumnDef& column : table.columns) {
    JsonColumnValue entry;
    entry.column = &column;
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const auto& e) { return e.first == column.name; });
    if (it == entries.end()) {
      entry.unset = statement.json_default_unset;
      values.push_back(std::move(entry));
      continue;
    }
    const json::JsonValue* value = it->second;
    entries.erase(it);
    if (!value->is_null()) {
      Result<types::Value> decoded = types::from_json(column.type, value->source, column.name);
      if (!decoded.is_ok()) {
        return Status::invalid_argument(fmt::format("Error decoding JSON value for {}: {}",
                                                    column.name, decoded.status().message()));
      }
      entry.value = std::move(*decoded);
    }
    values.push_back(std::move(entry));
  }
  if (!entries.empty()) {
    return Status::invalid_argument(
        fmt::format("JSON values map contains unrecognized column: {}", entries.front().first));
  }
  return values;
}

}  // namespace cassette::cql
