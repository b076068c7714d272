#!/usr/bin/env bash
# The row cache across processes: two long-running sqlite3 shells on one store, the table cached
# (caching rows_per_partition), the reader's cache filled before every change the writer makes;
# each change must show in the reader's next read (its catch-up replays the writer's commits
# and follows its manifests). And the reader's own open transaction reads around its cache.
#
#   tests/sqlite/test_row_cache.sh BUILD_DIR     (run in an empty directory; exits 0 on success)
set -uo pipefail
build_dir=$(cd "${1:-build}" && pwd)
ext="$build_dir/cassette"
cassette="$build_dir/cassette"
failures=0

source "$(dirname "$0")/../lib/sqlite_shells.sh"  # start, ask, stop, expect

start writer test.db
start reader test.db
ask writer "CREATE VIRTUAL TABLE t USING cql(k int, c int, v text, PRIMARY KEY (k, c));
SELECT cql('ALTER TABLE main.t WITH caching = {''keys'': ''ALL'', ''rows_per_partition'': ''2''}');
INSERT INTO t VALUES (1, 1, 'a'), (1, 2, 'b'), (1, 3, 'c'), (2, 1, 'x');" >/dev/null
expect "DESCRIBE shows the option" \
  "    AND caching = {'keys': 'ALL', 'rows_per_partition': '2'}" \
  "$("$cassette" test.db.cassette -e "DESCRIBE TABLE main.t" | grep caching)"
# read NAME: k = 1's first two rows (the cached head), then the whole partition.
head_of() { ask "$1" "SELECT c, v FROM t WHERE k = 1 LIMIT 2; SELECT count(*) FROM t WHERE k = 1;"; }
expect "the reader fills its cache" $'1|a\n2|b\n3' "$(head_of reader)"
expect "and reads the same again" $'1|a\n2|b\n3' "$(head_of reader)"

ask writer "UPDATE t SET v = 'B' WHERE k = 1 AND c = 2;" >/dev/null
expect "another process's update" $'1|a\n2|B\n3' "$(head_of reader)"
ask writer "INSERT INTO t VALUES (1, 0, 'zero');" >/dev/null
expect "another process's insert before the head" $'0|zero\n1|a\n4' "$(head_of reader)"
ask writer "DELETE FROM t WHERE k = 1 AND c = 0;" >/dev/null
expect "another process's row deletion" $'1|a\n2|B\n3' "$(head_of reader)"
ask writer "SELECT cql('DELETE FROM main.t WHERE k = 1 AND c >= 1 AND c < 3');" >/dev/null
expect "another process's range deletion" $'3|c\n1' "$(head_of reader)"
ask writer "INSERT INTO t VALUES (1, 1, 'again'); SELECT cql_flush();" >/dev/null
expect "another process's insert, then its flush" $'1|again\n3|c\n2' "$(head_of reader)"
ask writer "SELECT cql('UPDATE main.t USING TTL 5 SET v = ''brief'' WHERE k = 1 AND c = 1');" >/dev/null
expect "a cell with a TTL" $'1|brief\n3|c\n2' "$(head_of reader)"
sleep 5.5
expect "the TTL runs out between two reads" $'1|\n3|c\n2' "$(head_of reader)"
ask writer "BEGIN; INSERT INTO t VALUES (1, 5, 'e'); DELETE FROM t WHERE k = 1 AND c = 3; COMMIT;" >/dev/null
expect "another process's transaction" $'1|\n5|e\n2' "$(head_of reader)"

ask reader "BEGIN; INSERT INTO t VALUES (1, 4, 'pending');" >/dev/null
expect "the reader's own pending write reads around its cache" $'1|\n4|pending\n3' \
  "$(head_of reader)"
ask reader "ROLLBACK;" >/dev/null
expect "rolled back, the cached head again" $'1|\n5|e\n2' "$(head_of reader)"
expect "the other partition, cached too" "1|x" "$(ask reader "SELECT c, v FROM t WHERE k = 2;")"

ask writer "SELECT cql('DELETE FROM main.t WHERE k = 1');" >/dev/null
expect "another process's partition deletion" "0" "$(head_of reader)"
expect "k = 2 unchanged" "1|x" "$(ask reader "SELECT c, v FROM t WHERE k = 2;")"
ask writer "SELECT cql('TRUNCATE main.t');" >/dev/null
expect "another process's TRUNCATE" "" "$(ask reader "SELECT c, v FROM t WHERE k = 2;")"
ask writer "INSERT INTO t VALUES (2, 7, 'new');" >/dev/null
expect "and a write after it" "7|new" "$(ask reader "SELECT c, v FROM t WHERE k = 2;")"
"$cassette" test.db.cassette -e "UPDATE main.t SET v = 'from the shell' WHERE k = 2 AND c = 7"
expect "the cassette shell's write" "7|from the shell" "$(ask reader "SELECT c, v FROM t WHERE k = 2;")"
ask writer "SELECT cql('ALTER TABLE main.t WITH caching = {''keys'': ''ALL'', ''rows_per_partition'': ''NONE''}');" >/dev/null
ask writer "INSERT INTO t VALUES (2, 8, 'uncached');" >/dev/null
expect "caching turned off by another process" $'7|from the shell\n8|uncached' \
  "$(ask reader "SELECT c, v FROM t WHERE k = 2;")"

stop writer; stop reader
echo "row cache: $failures failed"
[ "$failures" -eq 0 ]
