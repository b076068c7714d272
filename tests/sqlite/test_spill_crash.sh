#!/usr/bin/env bash
# A writer killed (kill -9) in the middle of a transaction that spilled to disk leaves nothing of
# it: its rows are not visible, and the next opener removes its runs (tmp-<pid>-spill-<n>.run).
set -euo pipefail
build_dir=$(cd "${1:-build}" && pwd)
ln -sf "$build_dir/cassette.so" cassette.so
sqlite3 test.db <<'SQL'
.load ./cassette
CREATE VIRTUAL TABLE events USING cql(source text, ts int, payload text, PRIMARY KEY (source, ts));
INSERT INTO events VALUES ('small', 1, 'before');
SQL
# The writer spills its first run, reads its own writes from it (a count, an UPDATE), then is
# killed before its COMMIT.
status=0
sqlite3 test.db >writer.txt 2>&1 <<'SQL' || status=$?
.load ./cassette
BEGIN;
INSERT INTO events
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299999)
SELECT 's' || (i % 100), i, printf('%0250d', i) FROM n;
.shell ls test.db.cassette/data | grep -c spill
SELECT count(*) FROM events;
UPDATE events SET payload = 'updated' WHERE source = 's1' AND ts < 1000;
.shell kill -9 $PPID
COMMIT;
SQL
test "$status" -eq 137 || { echo "the writer was not killed (exit $status)"; cat writer.txt; exit 1; }
test "$(head -1 writer.txt)" = 1 || { echo "the writer spilled no run"; cat writer.txt; exit 1; }
test "$(sed -n 2p writer.txt)" = 300001 || { echo "the writer did not read its rows"; cat writer.txt; exit 1; }
sqlite3 test.db >after.txt 2>&1 <<'SQL'
.load ./cassette
SELECT count(*), group_concat(source) FROM events;
SQL
echo "1|small" | diff - after.txt
left=$(ls test.db.cassette/data | grep -c spill || true)
test "$left" = 0 || { echo "$left runs left behind"; exit 1; }
