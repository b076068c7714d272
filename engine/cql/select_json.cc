// SELECT JSON: each result row becomes one JSON object, keyed by the result column names, in the
// single text column "[json]" (Cassandra's Selection.rowToJson). Values are written as toJson()
// writes them; a column name with upper-case characters (a case-sensitive identifier) is
// double-quoted inside its key, e.g. {"\"Name\"": 1}, so the key reads back as the identifier.
#include <string>

#include "engine/cql/selection.h"
#include "engine/util/json.h"

namespace cassette::cql {

namespace {

bool has_upper_case(std::string_view name) {
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

}  // namespace

std::string row_to_json(const std::vector<ResultColumn>& columns, size_t visible_count,
                        const std::vector<types::Value>& row) {
  std::string out = "{";
  for (size_t i = 0; i < visible_count && i < columns.size(); ++i) {
    if (i > 0) out += ", ";
    const std::string& name = columns[i].name;
    std::string key = has_upper_case(name) ? "\"" + name + "\"" : name;
    out += '"';
    out += json::escape_json_string(key);
    out += "\": ";
    out += types::to_json(columns[i].type, row[i]);
  }
  out += "}";
  return out;
}

}  // namespace cassette::cql
