#!/usr/bin/env bash
# Two processes on one store see each other's commits: two long-running sqlite3 shells on the
# same database (one writing, one reading), the `cassette` shell on the same store, and a second
# database file that reaches the same store with store='...'.
#
#   tests/sqlite/test_processes.sh BUILD_DIR     (run in an empty directory; exits 0 on success)
set -uo pipefail
build_dir=$(cd "${1:-build}" && pwd)
ext="$build_dir/cassette"
cassette="$build_dir/cassette"
failures=0

source "$(dirname "$0")/../lib/sqlite_shells.sh"  # start, ask, stop, expect

start writer test.db
start reader test.db
expect "writer creates a table" "" \
  "$(ask writer "CREATE VIRTUAL TABLE t USING cql(k int, c int, v text, PRIMARY KEY (k, c));")"
expect "the reader sees the new table (after reloading the schema)" "0" \
  "$(ask reader "SELECT count(*) FROM t;")"
expect "writer inserts" "" "$(ask writer "INSERT INTO t VALUES (1, 1, 'first');")"
expect "the reader sees the committed row" "1|1|first" "$(ask reader "SELECT * FROM t;")"

ask writer "BEGIN; INSERT INTO t VALUES (1, 2, 'second'); UPDATE t SET v = 'FIRST' WHERE k = 1 AND c = 1;" >/dev/null
expect "an open transaction is invisible to the reader" "1|1|first" "$(ask reader "SELECT * FROM t;")"
ask writer "COMMIT;" >/dev/null
expect "after COMMIT the reader sees both writes" $'1|1|FIRST\n1|2|second' \
  "$(ask reader "SELECT * FROM t ORDER BY c;")"

ask writer "BEGIN; DELETE FROM t; INSERT INTO t VALUES (9, 9, 'never');" >/dev/null
ask writer "ROLLBACK;" >/dev/null
expect "a rolled-back transaction never shows" $'1|1|FIRST\n1|2|second' \
  "$(ask reader "SELECT * FROM t ORDER BY c;")"

expect "the reader writes too, the writer reads it" "1|3|from reader" \
  "$(ask reader "INSERT INTO t VALUES (1, 3, 'from reader');"; ask writer "SELECT * FROM t WHERE k = 1 AND c = 3;")"

# The cassette shell on the same store, while both sqlite3 shells are running.
expect "the cassette shell reads what sqlite3 committed" \
  $'k,c,v\n1,1,FIRST\n1,2,second\n1,3,from reader' \
  "$("$cassette" test.db.cassette --format csv -e "SELECT * FROM main.t WHERE k = 1")"
"$cassette" test.db.cassette -e "INSERT INTO main.t (k, c, v) VALUES (2, 1, 'from cassette'); UPDATE main.t SET v = 'changed by cassette' WHERE k = 1 AND c = 2"
expect "sqlite3 reads what the cassette shell committed" \
  $'1|1|FIRST\n1|2|changed by cassette\n1|3|from reader\n2|1|from cassette' \
  "$(ask reader "SELECT k, c, v FROM t ORDER BY k, c;")"
expect "so does the other sqlite3 shell" "4" "$(ask writer "SELECT count(*) FROM t;")"

# A counter incremented from three processes.
ask writer "SELECT cql('CREATE TABLE main.hits (page text PRIMARY KEY, n counter)');" >/dev/null
ask writer "CREATE VIRTUAL TABLE hits USING cql(table = 'main.hits');" >/dev/null
for who in writer reader; do
  ask "$who" "SELECT cql('UPDATE main.hits SET n = n + 1 WHERE page = ''/''');" >/dev/null
done
"$cassette" test.db.cassette -e "UPDATE main.hits SET n = n + 1 WHERE page = '/'"
expect "a counter incremented by three processes" "/|3" "$(ask reader "SELECT * FROM hits;")"

# Another database file on the same store.
start third other.db
expect "a second database exposes the same CQL table through store=" "4" \
  "$(ask third "CREATE VIRTUAL TABLE t USING cql(table = 'main.t', store = 'test.db.cassette'); SELECT count(*) FROM t;")"
ask third "INSERT INTO t VALUES (3, 1, 'from other.db');" >/dev/null
expect "the first database sees its write" "3|1|from other.db" "$(ask writer "SELECT * FROM t WHERE k = 3;")"

stop writer; stop reader; stop third
echo "processes: $failures failed"
[ "$failures" -eq 0 ]
