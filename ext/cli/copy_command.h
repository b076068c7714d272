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
// collections as CQL literals), made exact where cqlsh's loses digits (types::ValueStyle::kCopy:
// floats in the fewest digits that read back exactly unless FLOATPRECISION/DOUBLEPRECISION are
// given), a null as an empty field and an empty value (or text equal to the NULL marker) quoted.
// FROM reads an unquoted empty field (or the NULL string) as null, parses every other field with
// types::parse_value_string, and writes the values themselves (no CQL text, no JSON) through
// pg::CqlRowWriter, in batches of MAXBATCHSIZE rows, each an atomic write; into a counter table
// each row adds its values to the counters, as cqlsh's does. A row that does not parse or insert
// is reported with its line and skipped; the COPY then counts as failed. So a COPY TO then COPY
// FROM into an empty table gives back every value exactly.
#pragma once

#include <atomic>

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
  // Set by Ctrl-C: COPY FROM stops reading, writes the rows read so far and reports them; COPY
  // TO writes nothing. nullptr: not interruptible.
  const std::atomic<bool>* interrupt = nullptr;
};

// Runs the command, printing its summary on stdout and problems on stderr. Returns false when
// the command failed or any row could not be imported.
bool run_copy(const CopyCommand& command, CopyContext& context);

// The seconds as cqlsh describes an interval: "0.012 seconds", "1 minute and 3.500 seconds".
std::string describe_interval(double seconds);

}  // namespace cassette::cli
