// Printing statement results: the cqlsh table, CSV and JSON lines.
//
// Table (cqlsh's print_result, batch mode), for a SELECT:
//
//   <blank>
//    k | v
//   ---+-----
//    1 | abc
//   <blank>
//   (1 rows)
//
// Headers are left-justified (the line right-trimmed), values right-justified, each column as
// wide as its widest cell in display columns; a result without rows prints the header, the
// separator and two blank lines before "(0 rows)". Rows of other statements (a conditional
// write's [applied] row) print the same table without the row count.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/cql/result.h"

namespace cassette::cli {

// One cell as cqlsh shows it: the value in the kCqlsh style, "null" for a null.
std::string format_cell(const types::CqlType& type, const types::Value& value);

// The table for a result. `with_row_count`: a SELECT (print_result); otherwise the bare table
// cqlsh prints for other statements' rows. `tty`: the interactive layout (one blank line fewer
// for an empty result).
std::string format_table(const cql::ResultSet& rows, bool with_row_count, bool tty);

// A header record and one record per row; null as an empty field.
std::string format_csv(const cql::ResultSet& rows);

// One line: a JSON array of row objects, keys the column names in order, values as
// types::to_json writes them ("[]" for no rows).
std::string format_json(const cql::ResultSet& rows);

// A JSON string literal for `text` (UTF-8 kept as is; quotes, backslashes and control characters
// escaped).
std::string json_string(std::string_view text);

// cqlsh's warnings block: a blank line, "Warnings :", then each warning and a blank line.
std::string format_warnings(std::span<const std::string> warnings);

}  // namespace cassette::cli
