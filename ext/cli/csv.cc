// CSV fields and records, after Python's csv module with QUOTE_MINIMAL.
#include "ext/cli/csv.h"

#include <fmt/format.h>

namespace cassette::cli {

std::string csv_field(std::string_view value, const CsvDialect& dialect, bool force_quotes) {
  bool needs_quotes = force_quotes;
  for (char c : value) {
    if (c == dialect.delimiter || c == dialect.quote || c == '\n' || c == '\r' ||
        (dialect.escape && c == *dialect.escape)) {
      needs_quotes = true;
      break;
    }
  }
  if (!needs_quotes) return std::string(value);
  std::string out;
  out.reserve(value.size() + 2);
  out += dialect.quote;
  for (char c : value) {
    if (c == dialect.quote) {
      out += dialect.escape ? *dialect.escape : dialect.quote;
    } else if (dialect.escape && c == *dialect.escape) {
      out += *dialect.escape;
    }
    out += c;
  }
  out += dialect.quote;
  return out;
}

std::string csv_record(std::span<const std::string> fields, const CsvDialect& dialect,
                       std::span<const bool> force_quotes) {
  std::string line;
  if (fields.size() == 1 && fields[0].empty()) {
    line += dialect.quote;
    line += dialect.quote;
  } else {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) line += dialect.delimiter;
      line += csv_field(fields[i], dialect, i < force_quotes.size() && force_quotes[i]);
    }
  }
  line += '\n';
  return line;
}

Result<std::optional<CsvRecord>> CsvReader::next() {
  // Skip empty lines between records.
  while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  if (pos_ >= text_.size()) return std::optional<CsvRecord>();

  CsvRecord record;
  record.line = line_;
  std::string field;
  bool quoted = false;     // this field started with a quote
  bool in_quotes = false;  // inside the quoted part
  auto end_field = [&] {
    record.fields.push_back(std::move(field));
    record.quoted.push_back(quoted);
    field.clear();
    quoted = false;
  };

  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (in_quotes) {
      if (dialect_.escape && c == *dialect_.escape && pos_ + 1 < text_.size()) {
        field += text_[pos_ + 1];
        if (text_[pos_ + 1] == '\n') ++line_;
        pos_ += 2;
        continue;
      }
      if (c == dialect_.quote) {
        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == dialect_.quote) {  // doubled quote
          field += c;
          pos_ += 2;
          continue;
        }
        in_quotes = false;
        ++pos_;
        continue;
      }
      if (c == '\n') ++line_;
      field += c;
      ++pos_;
      continue;
    }
    if (c == dialect_.delimiter) {
      end_field();
      ++pos_;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
      ++pos_;
      ++line_;
      end_field();
      return std::optional<CsvRecord>(std::move(record));
    }
    if (c == dialect_.quote && field.empty() && !quoted) {
      quoted = true;
      in_quotes = true;
      ++pos_;
      continue;
    }
    if (dialect_.escape && c == *dialect_.escape && pos_ + 1 < text_.size() &&
        text_[pos_ + 1] != '\n' && text_[pos_ + 1] != '\r') {
      field += text_[pos_ + 1];
      pos_ += 2;
      continue;
    }
    field += c;
    ++pos_;
  }
  if (in_quotes) {
    return Status::invalid_argument(
        fmt::format("unterminated quoted field starting on line {}", record.line));
  }
  end_field();
  return std::optional<CsvRecord>(std::move(record));
}

}  // namespace cassette::cli
