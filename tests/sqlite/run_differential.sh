#!/usr/bin/env bash
# The SQL differential test (test_differential.py) for longer, from a given seed (make fuzz):
#
#   tests/sqlite/run_differential.sh BUILD_DIR SEED SECONDS
#
# runs seeds SEED, SEED+1, ... for SECONDS, with a python3 whose sqlite3 module can load
# extensions, and the sanitizer runtime preloaded when BUILD_DIR is a sanitizer build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:?BUILD_DIR}" && pwd)
seed=${2:?SEED}
seconds=${3:?SECONDS}
python=python3
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import sqlite3; sqlite3.Connection.enable_load_extension' 2>/dev/null; then
    python=$candidate; break
  fi
done
source "$here/../lib/sanitize.sh"
sanitize_host_env "$build_dir"
echo "differential: seeds from $seed for $seconds s (rerun: $0 $1 <seed> 1)"
exec "$python" "$here/test_differential.py" "$build_dir" "$seed" "$seconds"
