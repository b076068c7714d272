// COPY TO: runs a SELECT of the columns and writes the rows as CSV in cqlsh's value forms.
#include <fmt/format.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "engine/types/value.h"
#include "ext/cli/copy_internal.h"

namespace cassette::cli::copy_detail {

namespace {

uint64_t read_big_endian(std::string_view bytes) {
  uint64_t value = 0;
  for (unsigned char b : bytes) value = (value << 8) | b;
  return value;
}

// cqlsh's format_floating_point_type: %g with `precision` significant digits, widened so that a
// number printed without an exponent keeps `precision` digits after the leading ones.
std::string format_floating(double value, int precision) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  double magnitude = std::fabs(value);
  if (magnitude > std::numeric_limits<double>::epsilon()) {
    int exponent = static_cast<int>(std::log10(magnitude));  // truncated, as Python's int()
    if (exponent >= -4 && exponent < precision) precision = precision + exponent + 1;
  }
  return fmt::format("{:.{}g}", value, precision);
}

// cqlsh's round_microseconds: "...05.123456+0000" becomes "...05.123+0000".
std::string milliseconds_only(std::string text) {
  size_t dot = text.find('.');
  if (dot == std::string::npos) return text;
  size_t end = dot + 1;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  std::string digits = text.substr(dot + 1, end - dot - 1);
  if (digits.empty()) return text;
  digits.resize(6, '0');
  int millis = std::stoi(digits.substr(0, 3));
  return text.substr(0, dot) + fmt::format(".{:03}", millis) + text.substr(end);
}

std::string export_value(const types::CqlType& type, const std::string& bytes,
                         const CopyOptions& options) {
  using types::TypeKind;
  if (bytes.empty() && type.kind != TypeKind::kText && type.kind != TypeKind::kAscii &&
      type.kind != TypeKind::kBlob) {
    return std::string();  // an empty value of a non-string type
  }
  switch (type.kind) {
    case TypeKind::kText:
    case TypeKind::kAscii:
      return bytes;
    case TypeKind::kFloat:
      if (bytes.size() == 4) {
        float f = std::bit_cast<float>(static_cast<uint32_t>(read_big_endian(bytes)));
        return format_floating(f, options.float_precision);
      }
      break;
    case TypeKind::kDouble:
      if (bytes.size() == 8) {
        double d = std::bit_cast<double>(read_big_endian(bytes));
        return format_floating(d, options.double_precision);
      }
      break;
    case TypeKind::kTimestamp:
      return milliseconds_only(types::format_value(type, bytes, types::ValueStyle::kCqlsh));
    default:
      break;
  }
  return types::format_value(type, bytes, types::ValueStyle::kCqlsh);
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr) std::fclose(f);
  }
};

}  // namespace

bool run_export(const CopyCommand& command, const CopyTarget& target, const CopyOptions& options,
                CopyContext& context) {
  auto started = std::chrono::steady_clock::now();
  std::string select = "SELECT ";
  for (size_t i = 0; i < target.columns.size(); ++i) {
    if (i > 0) select += ", ";
    select += quote_identifier(target.columns[i]->name);
  }
  select += fmt::format(" FROM {}.{}", quote_identifier(target.table->keyspace),
                        quote_identifier(target.table->name));
  auto result = context.session->execute(select);
  if (!result.is_ok()) {
    context.console->error_line(format_statement_error(result.status(), context.where));
    return false;
  }

  std::string csv;
  if (options.header) {
    std::vector<std::string> names;
    for (const schema::ColumnDef* column : target.columns) names.push_back(column->name);
    csv += csv_record(names, options.dialect);
  }
  std::vector<std::string> fields;
  for (const auto& row : result->rows.rows) {
    fields.clear();
    for (size_t i = 0; i < target.columns.size(); ++i) {
      const types::Value& value = i < row.size() ? row[i] : types::Value();
      fields.push_back(value ? export_value(target.columns[i]->type, *value, options)
                             : options.null_value);
    }
    csv += csv_record(fields, options.dialect);
  }

  if (!command.file) {  // STDOUT: the data only, as cqlsh
    context.console->out(csv);
    return true;
  }
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(command.file->c_str(), "wb"));
  if (!file) {
    return fail(context, fmt::format("Can't open '{}' for writing: {}", *command.file,
                                     std::strerror(errno)));
  }
  if (std::fwrite(csv.data(), 1, csv.size(), file.get()) != csv.size() ||
      std::fclose(file.release()) != 0) {
    return fail(context, fmt::format("Can't write '{}': {}", *command.file, std::strerror(errno)));
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  context.console->out(fmt::format("{} rows exported to 1 files in {}.\n", result->rows.rows.size(),
                                   describe_interval(seconds)));
  return true;
}

}  // namespace cassette::cli::copy_detail
