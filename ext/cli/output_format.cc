// Result printers: the cqlsh table (print_result / print_formatted_result), CSV and JSON.
#include "ext/cli/output_format.h"

#include <fmt/format.h>

#include "engine/types/value.h"
#include "engine/util/json.h"
#include "ext/cli/csv.h"
#include "ext/cli/display_width.h"

namespace cassette::cli {

namespace {

struct Cell {
  std::string text;
  size_t width = 0;
};

Cell make_cell(std::string text) {
  size_t width = display_width(text);
  return Cell{std::move(text), width};
}

std::string padding(size_t width, size_t used) {
  return used < width ? std::string(width - used, ' ') : std::string();
}

}  // namespace

std::string format_cell(const types::CqlType& type, const types::Value& value) {
  if (!value) return "null";
  return types::format_value(type, *value, types::ValueStyle::kCqlsh);
}

std::string format_table(const cql::ResultSet& rows, bool with_row_count, bool tty) {
  const size_t columns = rows.columns.size();
  std::vector<Cell> names;
  names.reserve(columns);
  std::vector<size_t> widths;
  for (const cql::ResultColumn& column : rows.columns) {
    names.push_back(make_cell(column.name));
    widths.push_back(names.back().width);
  }
  std::vector<std::vector<Cell>> cells;
  cells.reserve(rows.rows.size());
  for (const auto& row : rows.rows) {
    std::vector<Cell>& line = cells.emplace_back();
    line.reserve(columns);
    for (size_t i = 0; i < columns; ++i) {
      line.push_back(
          make_cell(format_cell(rows.columns[i].type, i < row.size() ? row[i] : types::Value())));
      widths[i] = std::max(widths[i], line.back().width);
    }
  }

  std::string out = "\n";
  std::string header;
  for (size_t i = 0; i < columns; ++i) {
    if (i > 0) header += " | ";
    header += names[i].text;
    header += padding(widths[i], names[i].width);
  }
  while (!header.empty() && header.back() == ' ') header.pop_back();
  out += ' ';
  out += header;
  out += '\n';
  out += '-';
  for (size_t i = 0; i < columns; ++i) {
    if (i > 0) out += "-+-";
    out += std::string(widths[i], '-');
  }
  out += "-\n";

  if (cells.empty()) {
    out += '\n';  // print_formatted_result without rows
  } else {
    for (const auto& line : cells) {
      out += ' ';
      for (size_t i = 0; i < columns; ++i) {
        if (i > 0) out += " | ";
        out += padding(widths[i], line[i].width);
        out += line[i].text;
      }
      out += '\n';
    }
    if (tty) out += '\n';
  }
  if (with_row_count) {
    if (!tty) out += '\n';  // print_result's blank line after the last page in batch mode
    out += fmt::format("({} rows)\n", rows.rows.size());
  }
  return out;
}

std::string format_csv(const cql::ResultSet& rows) {
  CsvDialect dialect;
  std::vector<std::string> fields;
  for (const cql::ResultColumn& column : rows.columns) fields.push_back(column.name);
  std::string out = csv_record(fields, dialect);
  for (const auto& row : rows.rows) {
    fields.clear();
    for (size_t i = 0; i < rows.columns.size(); ++i) {
      const types::Value& value = i < row.size() ? row[i] : types::Value();
      fields.push_back(
          value ? types::format_value(rows.columns[i].type, *value, types::ValueStyle::kCqlsh)
                : std::string());
    }
    out += csv_record(fields, dialect);
  }
  return out;
}

std::string json_string(std::string_view text) {
  return json::quote_json_string(text);
}

std::string format_json(const cql::ResultSet& rows) {
  std::string out = "[";
  for (size_t r = 0; r < rows.rows.size(); ++r) {
    if (r > 0) out += ", ";
    out += '{';
    const auto& row = rows.rows[r];
    for (size_t i = 0; i < rows.columns.size(); ++i) {
      if (i > 0) out += ", ";
      out += json_string(rows.columns[i].name);
      out += ": ";
      out += types::to_json(rows.columns[i].type, i < row.size() ? row[i] : types::Value());
    }
    out += '}';
  }
  out += "]\n";
  return out;
}

std::string format_warnings(std::span<const std::string> warnings) {
  if (warnings.empty()) return {};
  std::string out = "\nWarnings :\n";
  for (const std::string& warning : warnings) {
    out += warning;
    out += "\n\n";
  }
  return out;
}

}  // namespace cassette::cli
