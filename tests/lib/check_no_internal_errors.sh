#!/usr/bin/env bash
# No expected output may show a last-resort catch-all: every entry point (the shell,
# Session::execute, the SQLite and PostgreSQL callbacks) turns an escaping C++ exception into an
# "internal error" message, and such a message is a bug to fix, not a result to record. The
# golden and SQL suites compare their output with these files byte for byte, so a case whose
# answer is an internal error fails unless its expected output says so; this refuses that.
#
#   tests/lib/check_no_internal_errors.sh [ROOT]     (default: the repository)
#
# Looks at tests/**/*.out, tests/**/*.expected and examples/*/expected.txt; lines that start
# with "== " (an SQL suite's section title, which may name what a case used to print) do not
# count. Prints "internal-errors: N passed, M failed" last, one case per file.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
# The catch-alls' messages: Session::execute (engine/cql/session.cc), the shell and its
# pg-export/pg-import (ext/cli/main.cc, statement_runner.cc, pg_bridge.cc), the SQLite
# extension (ext/sqlite) and the FDW (ext/postgres/api_internal.h).
pattern='internal error while running the statement|[Ii]nternal error in (cql|the cql module)'
pattern+='|internal error in cassette_fdw|^cassette( pg-[a-z]+)?: internal error'
passed=0
failed=0
while IFS= read -r -d '' file; do
  if hits=$(grep -nE "$pattern" "$file" | grep -vE '^[0-9]+:== '); then
    failed=$((failed + 1))
    echo "FAILED: ${file#"$root"/} expects an internal error:"
    echo "$hits" | head -5 | sed 's/^/    /'
  else
    passed=$((passed + 1))
  fi
done < <(find "$root/tests" "$root/examples" -type f \
           \( -name '*.out' -o -name '*.expected' -o -name 'expected.txt' \) -print0 | sort -z)
echo "internal-errors: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
