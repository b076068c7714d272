// COPY TO / COPY FROM: exporting a table to CSV and importing CSV into a table, as cqlsh's COPY
// (pylib/cqlshlib/copyutil.py) does, in-process.
//
//   COPY ks.t (k, v) TO 'out.csv' WITH HEADER = true;
//   COPY ks.t FROM 'in.csv' WITH HEADER = true AND DELIMITER = '|';
//
// Options (as cqlsh's): DELIMITER (','), QUOTE ('"'), ESCAPE ('\'; equal to QUOTE means doubled
// quotes), HEADER (false), NULL (''); for FROM also SKIPROWS, MAXROWS, SKIPCOLS, MAXBATCHSIZE
// (200), MAXPARSEERRORS (-1: no limit), MAXINSERTERRORS (1000), TTL; for TO also FLOATPRECISION (5)
// and DOUBLEPRECISION (12). cqlsh's tuning options (NUMPROCESSES, CHUNKSIZE, ...) are accepted and
// ignored; anything else is an error.
//
// TO writes each value in cqlsh's CSV form (text as is, timestamps to the millisecond,
// collections as CQL literals) and a null as an empty field. FROM reads an unquoted empty field
// (or the NULL string) as null, parses every other field with types::parse_value_string, and
// writes rows in unlogged batches of INSERT JSON statements built in memory (no CQL text is
// parsed per row). A row that does not parse or insert is reported with its line and skipped;
// the COPY then counts as failed.
#pragma once

#include "engine/cql/session.h"
#include "ext/cli/console.h"
#include "ext/cli/error_format.h"
#include "ext/cli/shell_command.h"

namespace cassette::cli {

struct CopyContext {
  cql::Session* session = nullptr;
  Console* console = nullptr;
  SourceLocation where;  // for error prefixes
  bool tty = false;      // stdout is a terminal: show progress
};

// Runs the command, printing its summary on stdout and problems on stderr. Returns false when
// the command failed or any row could not be imported.
bool run_copy(const CopyCommand& command, CopyContext& context);

// The seconds as cqlsh describes an interval: "0.012 seconds", "1 minute and 3.500 seconds".
std::string describe_interval(double seconds);

}  // namespace cassette::cli
