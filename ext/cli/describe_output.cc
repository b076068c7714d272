// DESCRIBE printing, after cqlsh's describe_element / describe_list / describe_keyspaces.
#include "ext/cli/describe_output.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "ext/cli/output_format.h"

namespace cassette::cli {

namespace {

std::optional<size_t> column_index(const cql::ResultSet& rows, std::string_view name) {
  for (size_t i = 0; i < rows.columns.size(); ++i) {
    if (rows.columns[i].name == name) return i;
  }
  return std::nullopt;
}

// A text cell's value (the describe columns are all text).
std::string text_of(const std::vector<types::Value>& row, size_t index) {
  return index < row.size() && row[index] ? *row[index] : std::string();
}

}  // namespace

std::string columnize(std::span<const std::string> names, size_t width) {
  if (names.empty()) return "<empty>\n";
  if (names.size() == 1) return names[0] + "\n";
  const size_t size = names.size();
  size_t rows_count = size;
  size_t columns_count = 1;
  std::vector<size_t> column_widths{0};
  bool fitted = false;
  for (size_t nrows = 1; nrows < size; ++nrows) {
    size_t ncols = (size + nrows - 1) / nrows;
    std::vector<size_t> widths;
    long total = -2;
    for (size_t col = 0; col < ncols; ++col) {
      size_t col_width = 0;
      for (size_t row = 0; row < nrows; ++row) {
        size_t i = row + nrows * col;
        if (i >= size) break;
        col_width = std::max(col_width, names[i].size());
      }
      widths.push_back(col_width);
      total += static_cast<long>(col_width) + 2;
      if (total > static_cast<long>(width)) break;
    }
    if (total <= static_cast<long>(width)) {
      rows_count = nrows;
      columns_count = ncols;
      column_widths = widths;
      fitted = true;
      break;
    }
  }
  if (!fitted) {
    rows_count = size;
    columns_count = 1;
    column_widths = {0};
  }
  std::string out;
  for (size_t row = 0; row < rows_count; ++row) {
    std::vector<std::string> texts;
    for (size_t col = 0; col < columns_count; ++col) {
      size_t i = row + rows_count * col;
      texts.push_back(i < size ? names[i] : std::string());
    }
    while (!texts.empty() && texts.back().empty()) texts.pop_back();
    for (size_t col = 0; col < texts.size(); ++col) {
      if (col > 0) out += "  ";
      out += texts[col];
      if (texts[col].size() < column_widths[col]) {
        out += std::string(column_widths[col] - texts[col].size(), ' ');
      }
    }
    out += '\n';
  }
  return out;
}

std::string format_describe(const cql::ResultSet& rows, cql::DescribeStatement::Kind kind,
                            bool has_current_keyspace) {
  using Kind = cql::DescribeStatement::Kind;
  std::optional<size_t> name = column_index(rows, "name");
  std::optional<size_t> keyspace = column_index(rows, "keyspace_name");
  std::optional<size_t> create = column_index(rows, "create_statement");

  if (kind == Kind::kKeyspaces && name) {
    std::vector<std::string> names;
    for (const auto& row : rows.rows) names.push_back(text_of(row, *name));
    return "\n" + columnize(names) + "\n";
  }
  if ((kind == Kind::kTables || kind == Kind::kTypes) && name && keyspace) {
    std::string out;
    std::optional<std::string> current;
    std::vector<std::string> names;
    auto flush = [&] {
      out += '\n';
      if (!has_current_keyspace) {
        out += "Keyspace " + *current + "\n";
        out += "---------" + std::string(current->size(), '-') + "\n";
      }
      out += columnize(names);
    };
    for (const auto& row : rows.rows) {
      std::string ks = text_of(row, *keyspace);
      if (!current || ks != *current) {
        if (current) flush();
        current = ks;
        names.clear();
      }
      names.push_back(text_of(row, *name));
    }
    if (current) {
      flush();
      out += '\n';
    }
    return out;
  }
  if (create) {
    std::string out;
    for (const auto& row : rows.rows) {
      out += '\n';
      out += text_of(row, *create);
      out += '\n';
    }
    return out;
  }
  return format_table(rows, /*with_row_count=*/true, /*tty=*/false);
}

}  // namespace cassette::cli
