// CSV reading and writing for the shell: --format csv output and COPY TO/FROM. The dialect is
// Python's csv module's, which cqlsh uses: a delimiter, a quote character, and either doubled
// quotes ("a""b") or an escape character (a\"b, cqlsh's COPY default) inside quoted fields.
// Fields are quoted only when they must be (they hold the delimiter, the quote, the escape
// character, or a line break).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/status.h"

namespace cassette::cli {

struct CsvDialect {
  char delimiter = ',';
  char quote = '"';
  std::optional<char> escape;  // nullopt: quotes inside quoted fields are doubled
};

// One field, quoted and escaped as the dialect needs, or quoted anyway when `force_quotes` (COPY
// TO quotes a value that would otherwise read back as null: "" or the NULL marker).
std::string csv_field(std::string_view value, const CsvDialect& dialect, bool force_quotes = false);
// A whole record and its "\n". A record of a single empty field is written as "" so that it is
// not an empty line (as Python's csv writer does). `force_quotes`, when given, has one flag per
// field (see csv_field).
std::string csv_record(std::span<const std::string> fields, const CsvDialect& dialect,
                       std::span<const bool> force_quotes = {});

struct CsvRecord {
  std::vector<std::string> fields;
  std::vector<bool> quoted;  // per field: whether it was written in quotes
  int line = 1;              // the line the record starts on (1-based)
};

// Reads records from CSV text. Accepts "\n" and "\r\n" line ends, line breaks inside quoted
// fields, both doubled quotes and the escape character inside quotes, and skips empty lines.
class CsvReader {
 public:
  CsvReader(std::string_view text, CsvDialect dialect) : text_(text), dialect_(dialect) {}
  // The next record, nullopt at the end; an error for an unterminated quoted field.
  Result<std::optional<CsvRecord>> next();

 private:
  std::string_view text_;
  CsvDialect dialect_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace cassette::cli
