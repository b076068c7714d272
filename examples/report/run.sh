#!/usr/bin/env bash
# The reporting script: CQL tables joined with native SQLite tables, written as CSV and markdown.
#   examples/report/run.sh [BUILD_DIR [WORKDIR]]   (WORKDIR default: BUILD_DIR/report)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# A python3 whose sqlite3 module can load extensions (Debian's can; pyenv builds often cannot).
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
exec "$python" "$here/report.py" "${1:-build}" "${2:-${1:-build}/report}"
