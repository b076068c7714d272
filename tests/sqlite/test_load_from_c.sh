#!/usr/bin/env bash
# The extension loaded from a C program with sqlite3_load_extension (tests/sqlite/load_from_c.c),
# compiled here against the system's libsqlite3 and run on a fresh database in the current
# directory; its output must be exactly the rows and messages below.
set -euo pipefail
build_dir=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cc -std=c11 -Wall -Werror -o load_from_c "$here/load_from_c.c" -lsqlite3
./load_from_c "$build_dir/cassette" test.db >first.txt || { cat first.txt; exit 1; }
cat >want.txt <<'OUT'
loaded
result={"result": "void"}
sensor=s1 day=1 at=30 value=2.5
sensor=s1 day=1 at=20 value=1.5
sensor=s1 day=1 at=10 value=0.5
error: Invalid null value in condition for column sensor
n=3
OUT
diff want.txt first.txt
