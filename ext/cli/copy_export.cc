// COPY TO: runs a SELECT of the columns and writes the rows as CSV in cqlsh's value forms, made
// exact where cqlsh's lose something (types::ValueStyle::kCopy), so that COPY FROM reads every
// value back as it was.
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

#include "engine/types/scalar.h"
#include "engine/types/value.h"
#include "ext/cli/copy_internal.h"

namespace cassette::cli::copy_detail {

namespace {

// One field of the CSV: the value's text and whether it must be quoted to read back as this
// value rather than as null (the empty value of a type, or text equal to the NULL marker).
struct ExportField {
  std::string text;
  bool quote = false;
};

// cqlsh's format_floating_point_type at the precision the user asked for with FLOATPRECISION /
// DOUBLEPRECISION (digits may be lost, as the user chose); nullopt when not asked.
std::optional<std::string> with_user_precision(const types::CqlType& type, std::string_view bytes,
                                               const CopyOptions& options) {
  if (type.kind == types::TypeKind::kFloat && options.float_precision && bytes.size() == 4) {
    float f = types::read_float(bytes);
    return types::format_float_cqlsh(f, *options.float_precision);
  }
  if (type.kind == types::TypeKind::kDouble && options.double_precision && bytes.size() == 8) {
    double d = types::read_double(bytes);
    return types::format_float_cqlsh(d, *options.double_precision);
  }
  return std::nullopt;
}

ExportField export_value(const types::CqlType& type, const types::Value& value,
                         const CopyOptions& options) {
  if (!value) return {options.null_value, false};
  ExportField field;
  if (auto text = with_user_precision(type, *value, options)) {
    field.text = std::move(*text);
  } else {
    field.text = types::format_value(type, *value, types::ValueStyle::kCopy);
  }
  field.quote = field.text == options.null_value;
  return field;
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
    if (result.status().code() == StatusCode::kCancelled) {
      return fail(context, "Interrupted: nothing was written");
    }
    context.console->error_line(format_statement_error(result.status(), context.where));
    return false;
  }

  std::string csv;
  if (options.header) {
    std::vector<std::string> names;
    for (const schema::ColumnDef* column : target.columns) names.push_back(column->name);
    csv += csv_record(names, options.dialect);
  }
  const size_t width = target.columns.size();
  std::vector<std::string> fields(width);
  std::unique_ptr<bool[]> quotes(new bool[width]);
  for (const auto& row : result->rows.rows) {
    if (interrupted(context)) return fail(context, "Interrupted: nothing was written");
    for (size_t i = 0; i < width; ++i) {
      ExportField field =
          export_value(target.columns[i]->type, i < row.size() ? row[i] : types::Value(), options);
      fields[i] = std::move(field.text);
      quotes[i] = field.quote;
    }
    csv += csv_record(fields, options.dialect, std::span<const bool>(quotes.get(), width));
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
