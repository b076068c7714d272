#!/usr/bin/env bash
# Tests of the `cassette` shell: runs the binary and checks exact outputs and exit codes.
#
#   tests/cli/test_cli.sh [BUILD_DIR]        (default: build)
#
# Prints "cli: N passed, M failed" last; exits non-zero when a test failed.
set -uo pipefail
build_dir=${1:-build}
cassette="$(cd "$build_dir" && pwd)/cassette"
source "$(cd "$(dirname "$0")" && pwd)/../lib/check.sh"  # check NAME STATUS STDOUT STDERR -- COMMAND...
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# check_match NAME EXPECTED_STATUS STDOUT_REGEX STDERR_REGEX -- COMMAND...  (extended regexes,
# matched against the whole output with newlines as \n... use (.|\n)* where needed)
check_match() {
  local name=$1 want_status=$2 out_re=$3 err_re=$4
  shift 5
  local out err status
  run_captured "$@"
  if [[ "$status" == "$want_status" ]] && [[ "$out" =~ $out_re ]] && [[ "$err" =~ $err_re ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAILED: $name (status $status, want $want_status)"
    echo "  stdout: $out"
    echo "  stderr: $err"
  fi
}

KS="CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
TABLE="CREATE TABLE ks.t (k int PRIMARY KEY, v text)"

# ---- command line --------------------------------------------------------------------------
check_match "help" 0 '^Usage: cassette STORE' '^$' -- "$cassette" --help
check_match "version" 0 '^cassette [0-9]' '^$' -- "$cassette" --version
check "unknown option" 2 "" "cassette: unknown option --bogus
Try 'cassette --help' for more information." -- "$cassette" :memory: --bogus
check "missing store" 2 "" "cassette: missing STORE (a directory, or :memory:)
Try 'cassette --help' for more information." -- "$cassette" -e 'SELECT 1'
check "bad format" 2 "" "cassette: unknown --format 'xml' (expected table, csv or json)
Try 'cassette --help' for more information." -- "$cassette" :memory: --format xml -e ''
check "bad clock" 2 "" "cassette: invalid --clock time '2024-13-01' (expected 'YYYY-MM-DD HH:MM:SS', UTC)
Try 'cassette --help' for more information." -- "$cassette" :memory: --clock 2024-13-01 -e ''
check "-e and -f" 2 "" "cassette: give either -e or -f, not both
Try 'cassette --help' for more information." -- "$cassette" :memory: -e '' -f x.cql
check "empty script" 0 "" "" -- "$cassette" :memory: -e ''

# ---- errors as cqlsh prints them ------------------------------------------------------------
check_match "syntax error" 1 '^$' '^<stdin>:1:SyntaxException: line 1:9 ' -- \
  "$cassette" :memory: -e 'SELECT * FORM t'
check "invalid request" 1 "" \
  '<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message="No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"' -- \
  "$cassette" :memory: -e 'SELECT * FROM t'
check "already exists" 1 "" "<stdin>:1:AlreadyExists: Keyspace 'ks' already exists" -- \
  "$cassette" :memory: -e "$KS; $KS"
check "table already exists" 1 "" "<stdin>:1:AlreadyExists: Table 'ks.t' already exists" -- \
  "$cassette" :memory: -e "$KS; $TABLE; $TABLE"
check "stops at first error" 1 "" \
  '<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message="Keyspace '"'"'nope'"'"' does not exist"' -- \
  "$cassette" :memory: -e "USE nope; $KS; SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ks'"
check "keep going" 1 "
 k
---
 1

(1 rows)" '<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message="Keyspace '"'"'nope'"'"' does not exist"' -- \
  "$cassette" :memory: --keep-going -e "USE nope; $KS; $TABLE; INSERT INTO ks.t (k) VALUES (1); SELECT k FROM ks.t"

# ---- table output ---------------------------------------------------------------------------
SETUP="$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'one'); INSERT INTO ks.t (k, v) VALUES (20, 'twenty'); INSERT INTO ks.t (k) VALUES (3)"
check "select table" 0 "
 k  | v
----+--------
  1 |    one
 20 | twenty
  3 |   null

(3 rows)" "" -- "$cassette" :memory: -e "$SETUP; SELECT * FROM ks.t"
check "select no rows" 0 "
 k | v
---+---


(0 rows)" "" -- "$cassette" :memory: -e "$KS; $TABLE; SELECT * FROM ks.t"
check "wide header" 0 "
 a_long_name
-------------
           1

(1 rows)" "" -- "$cassette" :memory: -e "$KS; $TABLE; INSERT INTO ks.t (k) VALUES (1); SELECT k AS a_long_name FROM ks.t"
check "conditional write" 0 "
 [applied]
-----------
      True

 [applied] | k | v
-----------+---+-----
     False | 1 | one" "" -- \
  "$cassette" :memory: -e "$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'one') IF NOT EXISTS; INSERT INTO ks.t (k, v) VALUES (1, 'uno') IF NOT EXISTS"
check "use and -k" 0 "
 k  | v
----+--------
  1 |    one
 20 | twenty
  3 |   null

(3 rows)" "" -- "$cassette" "$work/store1" -e "$SETUP; SELECT * FROM ks.t"
check "-k keyspace" 0 "
 v
-----
 one

(1 rows)" "" -- "$cassette" "$work/store1" -k ks -e "SELECT v FROM t WHERE k = 1"
check "-k missing keyspace" 1 "" \
  '<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message="Keyspace '"'"'nope'"'"' does not exist"' -- \
  "$cassette" "$work/store1" -k nope -e "SELECT v FROM t WHERE k = 1"

# ---- json and csv ---------------------------------------------------------------------------
check "json" 0 '[{"k": 1, "v": "one"}, {"k": 20, "v": "twenty"}, {"k": 3, "v": null}]
[]' "" -- "$cassette" :memory: --format json -e "$SETUP; SELECT * FROM ks.t; SELECT * FROM ks.t WHERE k = 99"
check "json select json" 0 '[{"[json]": "{\"k\": 1, \"v\": \"one\"}"}]' "" -- \
  "$cassette" :memory: --format json -e "$SETUP; SELECT JSON * FROM ks.t WHERE k = 1"
check "csv" 0 'k,v
1,one
20,twenty
3,' "" -- "$cassette" :memory: --format csv -e "$SETUP; SELECT * FROM ks.t"
check "csv quoting" 0 'k,v
1,"a,b ""c"""' "" -- "$cassette" :memory: --format=csv -e "$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'a,b \"c\"'); SELECT * FROM ks.t"

# ---- echo, files, stdin ---------------------------------------------------------------------
check "echo" 1 "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};

CREATE TABLE ks.t (k int PRIMARY KEY, v text);

INSERT INTO ks.t (k, v) VALUES (1, 'one');

SELECT * FROM ks.t;

 k | v
---+-----
 1 | one

(1 rows)

SELECT * FROM nope.t;
<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"keyspace nope does not exist\"
" "" -- bash -c "\"$cassette\" :memory: --echo --keep-going -e \"$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'one'); SELECT * FROM ks.t; SELECT * FROM nope.t\" 2>&1"

printf '%s;\n%s;\n\nSELECT *\n  FROM ks.nope;\n' "$KS" "$TABLE" >script.cql
check "file line numbers" 1 "" \
  'script.cql:4:InvalidRequest: Error from server: code=2200 [Invalid query] message="table nope does not exist"' -- \
  "$cassette" :memory: -f script.cql
check "missing file" 1 "" "Can't open 'nothere.cql': No such file or directory" -- \
  "$cassette" :memory: -f nothere.cql
check "stdin script" 0 "
 k
---
 7

(1 rows)" "" -- bash -c "printf '%s;\n%s;\nINSERT INTO ks.t (k) VALUES (7);\nSELECT k FROM ks.t;\n' \"$KS\" \"$TABLE\" | \"$cassette\" :memory:"
printf 'INSERT INTO ks.t (k) VALUES (8);\n' >insert.cql
check "source" 0 "
 k
---
 8

(1 rows)" "" -- "$cassette" :memory: -e "$KS; $TABLE; SOURCE 'insert.cql'; SELECT k FROM ks.t"
check "exit stops the script" 0 "" "" -- "$cassette" :memory: -e "EXIT; SELECT * FROM nope.t"
check_match "help command" 0 'COPY \[ks\.\]table' '^$' -- "$cassette" :memory: -e "HELP"

check "unicode alignment" 0 "
 k | v      | n
---+--------+---
 1 | 日本語 | 1
 2 |      é | 2

(2 rows)" "" -- "$cassette" :memory: -e "$KS; CREATE TABLE ks.u (k int PRIMARY KEY, v text, n int); INSERT INTO ks.u (k, v, n) VALUES (1, '日本語', 1); INSERT INTO ks.u (k, v, n) VALUES (2, 'é', 2); SELECT k, v, n FROM ks.u WHERE k IN (1, 2)"
check "stdin line numbers" 1 "" "<stdin>:3:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"keyspace nope does not exist\"" -- \
  bash -c "printf '%s;\n\nSELECT *\n  FROM nope.t;\nSELECT 1 FROM x;\n' \"$KS\" | \"$cassette\" :memory:"
check "syntax error keeps the terminator" 1 "" "<stdin>:1:SyntaxException: line 1:8 mismatched input ';' expecting K_FROM (SELECT 1[;])" -- \
  "$cassette" :memory: -e "SELECT 1"
check_match "describe table" 0 '^
CREATE TABLE ks\.t \(
    k int PRIMARY KEY,
    v text
\) WITH ' '^$' -- "$cassette" :memory: -e "$KS; $TABLE; DESCRIBE TABLE ks.t"
check "describe tables" 0 $'\nt  u\n' "" -- "$cassette" :memory: -e "$KS; $TABLE; CREATE TABLE ks.u (k int PRIMARY KEY); USE ks; DESCRIBE TABLES"
check "describe error" 1 "" "<stdin>:1:Table 'nope' not found in keyspace 'ks'" -- \
  "$cassette" :memory: -e "$KS; USE ks; DESCRIBE TABLE nope"
check "csv collections" 0 "k,l,m
1,\"[1, 2]\",\"{'a': 1, 'b': 2}\"" "" -- "$cassette" :memory: --format csv -e "$KS; CREATE TABLE ks.c (k int PRIMARY KEY, l list<int>, m map<text, int>); INSERT INTO ks.c (k, l, m) VALUES (1, [1, 2], {'a': 1, 'b': 2}); SELECT k, l, m FROM ks.c"
check_match "interactive" 0 'cassette> USE nope;
InvalidRequest: Error from server: code=2200 \[Invalid query\] message="Keyspace '"'nope'"' does not exist"
cassette> CREATE KEYSPACE ks WITH replication = \{'"'class': 'SimpleStrategy'"',
      \.\.\. '"'replication_factor'"': 1\};
cassette> USE ks;
cassette:ks> exit$' '^$' -- bash -c "printf \"USE nope;\nCREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy',\n'replication_factor': 1};\nUSE ks;\nexit\n\" | HOME=\"$work\" script -qec \"'$cassette' :memory:\" /dev/null | tr -d '\r'"

# ---- the manual clock -----------------------------------------------------------------------
check "clock needs --clock" 1 "" \
  "<stdin>:1:CLOCK ADVANCE needs a manual clock: start cassette with --clock 'YYYY-MM-DD HH:MM:SS'" -- \
  "$cassette" :memory: -e "CLOCK ADVANCE 10"
check "bad clock command" 1 "" \
  "<stdin>:1:Improper CLOCK command (expected CLOCK ADVANCE <seconds>)." -- \
  "$cassette" :memory: --clock '2024-01-01 00:00:00' -e "CLOCK BACK 10"
check "clock and ttl" 0 "
 k | ttl(v)
---+--------
 1 |     10

(1 rows)

 k | ttl(v)
---+--------
 1 |      4

(1 rows)

 k | v
---+---


(0 rows)" "" -- "$cassette" :memory: --clock '2024-01-01 00:00:00' -e "$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'x') USING TTL 10; SELECT k, ttl(v) FROM ks.t; CLOCK ADVANCE 6; SELECT k, ttl(v) FROM ks.t; CLOCK ADVANCE 5; SELECT * FROM ks.t"
# (write timestamps are unique per store: a few microseconds past the clock after DDL)
check_match "clock writetime" 0 '^\[\{"writetime\(v\)": 17040672000000[0-9][0-9]\}\]$' '^$' -- \
  "$cassette" :memory: --format json --clock '2024-01-01 00:00:00' -e "$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'x'); SELECT writetime(v) FROM ks.t"

# ---- COPY -----------------------------------------------------------------------------------
"$cassette" "$work/copy" -e "$SETUP" >/dev/null 2>&1
check_match "copy to" 0 '^3 rows exported to 1 files in [0-9.]+ seconds\.$' '^$' -- \
  "$cassette" "$work/copy" -e "COPY ks.t TO 'out.csv' WITH HEADER = true"
check "copy to file" 0 "k,v
1,one
20,twenty
3," "" -- cat out.csv
check "copy to stdout" 0 "1|one
20|twenty
3|" "" -- "$cassette" "$work/copy" -k ks -e "COPY t (k, v) TO STDOUT WITH DELIMITER = '|'"
printf 'k,v\n5,five\n6,"six, with ""quotes"""\n7,\n8,""\n' >in.csv
check_match "copy from" 0 '^4 rows imported from 1 files in [0-9.]+ seconds \(0 skipped\)\.$' '^$' -- \
  "$cassette" "$work/copy" -e "COPY ks.t FROM 'in.csv' WITH HEADER = true"
check "copy from result" 0 '[{"k": 5, "v": "five"}, {"k": 6, "v": "six, with \"quotes\""}, {"k": 7, "v": null}, {"k": 8, "v": ""}]' "" -- \
  "$cassette" "$work/copy" --format json -e "SELECT * FROM ks.t WHERE k IN (5, 6, 7, 8)"
printf '9,nine\nten,10\n11,eleven,extra\n12,twelve\n' >bad.csv
check_match "copy from bad rows" 1 '^2 rows imported from 1 files in [0-9.]+ seconds \(0 skipped\)\.$' \
  "^<stdin>:1:Failed to import line 2 of 'bad.csv': ParseError - .*
<stdin>:1:Failed to import line 3 of 'bad.csv': ParseError - Invalid row length 3 should be 2
<stdin>:1:Failed to process 2 rows$" -- \
  "$cassette" "$work/copy" -e "COPY ks.t (k, v) FROM 'bad.csv'"
check "copy from bad rows skipped" 0 '[{"k": 9, "v": "nine"}, {"k": 12, "v": "twelve"}]' "" -- \
  "$cassette" "$work/copy" --format json -e "SELECT * FROM ks.t WHERE k IN (9, 10, 11, 12)"
check "copy unknown option" 1 "" "<stdin>:1:Unrecognized COPY FROM options: bogus" -- \
  "$cassette" "$work/copy" -e "COPY ks.t FROM 'in.csv' WITH bogus = 1"
check "copy unknown table" 1 "" "<stdin>:1:Column family nope not found" -- \
  "$cassette" "$work/copy" -e "COPY ks.nope FROM 'in.csv'"
check "copy no keyspace" 1 "" "<stdin>:1:Not in any keyspace." -- \
  "$cassette" "$work/copy" -e "COPY t FROM 'in.csv'"
check "copy bad column" 1 "" "<stdin>:1:Invalid column name x" -- \
  "$cassette" "$work/copy" -e "COPY ks.t (k, x) TO 'o.csv'"
check "copy improper" 1 "" "<stdin>:1:Improper COPY command." -- \
  "$cassette" "$work/copy" -e "COPY ks.t SIDEWAYS 'o.csv'"
check "copy missing file" 1 "" "<stdin>:1:Can't open 'none.csv' for reading: No such file or directory" -- \
  "$cassette" "$work/copy" -e "COPY ks.t FROM 'none.csv'"

# Round trip of many types through COPY TO and COPY FROM.
TYPES="CREATE TABLE ks.types (k int PRIMARY KEY, b bigint, d double, f float, dec decimal, bo boolean, ts timestamp, u uuid, bl blob, l list<int>, s set<text>, m map<text, int>, dt date, tm time, i inet)"
"$cassette" "$work/copy" -e "$TYPES; INSERT INTO ks.types (k, b, d, f, dec, bo, ts, u, bl, l, s, m, dt, tm, i) VALUES (1, 9000000000, 3.25, 1.5, 12.345, true, '2024-01-02 03:04:05.678+0000', 123e4567-e89b-12d3-a456-426614174000, 0xcafe, [1, 2], {'a', 'b c'}, {'x': 1}, '2024-02-29', '12:34:56.789', '127.0.0.1')" >/dev/null 2>&1
"$cassette" "$work/copy" -e "COPY ks.types TO 'types.csv'" >/dev/null 2>&1
"$cassette" "$work/copy" -e "TRUNCATE ks.types; COPY ks.types FROM 'types.csv'" >/dev/null 2>&1
check "copy round trip" 0 '[{"k": 1, "b": 9000000000, "bl": "0xcafe", "bo": true, "d": 3.25, "dec": 12.345, "dt": "2024-02-29", "f": 1.5, "i": "127.0.0.1", "l": [1, 2], "m": {"x": 1}, "s": ["a", "b c"], "tm": "12:34:56.789000000", "ts": "2024-01-02 03:04:05.678Z", "u": "123e4567-e89b-12d3-a456-426614174000"}]' "" -- \
  "$cassette" "$work/copy" --format json -e "SELECT k, b, bl, bo, d, dec, dt, f, i, l, m, s, tm, ts, u FROM ks.types"


# ---- every type in --format json and csv (json values as Cassandra's toJson()) -------------
ALL="CREATE TYPE ks.pt (x int, \"Y\" text); CREATE TABLE ks.all (k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d decimal, db double, dt date, du duration, f float, i inet, l list<int>, m map<int, text>, s set<text>, si smallint, t text, ti tinyint, tm time, tp tuple<int, text>, ts timestamp, tu timeuuid, u uuid, ud frozen<pt>, vi varint)"
ALLROW="INSERT INTO ks.all (k, a, b, bl, bo, d, db, dt, du, f, i, l, m, s, si, t, ti, tm, tp, ts, tu, u, ud, vi) VALUES (1, 'a\"b', -5, 0xcafe, true, 1.50, 2.5e-7, '2024-01-01', 1h2m, 1.5, '::1', [1, 2], {2: 'x', 1: 'y'}, {'b', 'a,c'}, 7, 'back\\slash', -1, '12:34:56', (1, null), '2024-01-01 00:00:00+0000', 50554d6e-29bb-11e5-b345-feff819cdc9f, 123e4567-e89b-12d3-a456-426614174000, {x: 1, \"Y\": 'q'}, 12345678901234567890); INSERT INTO ks.all (k) VALUES (2)"
"$cassette" "$work/types" -e "$KS; $ALL; $ALLROW" >/dev/null 2>&1
check "json every type" 0 '[{"k": 1, "a": "a\"b", "b": -5, "bl": "0xcafe", "bo": true, "d": 1.50, "db": 2.5E-7, "dt": "2024-01-01", "du": "1h2m", "f": 1.5, "i": "0:0:0:0:0:0:0:1", "l": [1, 2], "m": {"1": "y", "2": "x"}, "s": ["a,c", "b"], "si": 7, "t": "back\\slash", "ti": -1, "tm": "12:34:56.000000000", "tp": [1, null], "ts": "2024-01-01 00:00:00.000Z", "tu": "50554d6e-29bb-11e5-b345-feff819cdc9f", "u": "123e4567-e89b-12d3-a456-426614174000", "ud": {"x": 1, "\"Y\"": "q"}, "vi": 12345678901234567890}, {"k": 2, "a": null, "b": null, "bl": null, "bo": null, "d": null, "db": null, "dt": null, "du": null, "f": null, "i": null, "l": null, "m": null, "s": null, "si": null, "t": null, "ti": null, "tm": null, "tp": null, "ts": null, "tu": null, "u": null, "ud": null, "vi": null}]' "" -- \
  "$cassette" "$work/types" --format json -e "SELECT * FROM ks.all"
check "json toJson equals SELECT JSON" 0 '[{"[json]": "{\"k\": 1, \"d\": 1.50, \"m\": {\"1\": \"y\", \"2\": \"x\"}, \"ud\": {\"x\": 1, \"\\\"Y\\\"\": \"q\"}}"}]
[{"system.tojson(d)": "1.50", "system.tojson(m)": "{\"1\": \"y\", \"2\": \"x\"}"}]' "" -- \
  "$cassette" "$work/types" --format json -e "SELECT JSON k, d, m, ud FROM ks.all WHERE k = 1; SELECT toJson(d), toJson(m) FROM ks.all WHERE k = 1"
check "csv every type" 0 'k,a,b,bl,bo,d,db,dt,du,f,i,l,m,s,si,t,ti,tm,tp,ts,tu,u,ud,vi
1,"a""b",-5,0xcafe,True,1.50,2.5e-07,2024-01-01,1h2m,1.5,::1,"[1, 2]","{1: '"'y'"', 2: '"'x'"'}","{'"'a,c'"', '"'b'"'}",7,back\\slash,-1,12:34:56.000000000,"(1, null)",2024-01-01 00:00:00.000000+0000,50554d6e-29bb-11e5-b345-feff819cdc9f,123e4567-e89b-12d3-a456-426614174000,"{x: 1, Y: '"'q'"'}",12345678901234567890
2,,,,,,,,,,,,,,,,,,,,,,,' "" -- \
  "$cassette" "$work/types" --format csv -e "SELECT * FROM ks.all"

# ---- the catalog survives a restart: schema changes in one run, read back in the next ---------
"$cassette" "$work/types" -e "CREATE INDEX ON ks.all (t); ALTER TABLE ks.all ADD extra text; ALTER TABLE ks.all DROP bo; ALTER TYPE ks.pt ADD z int; CREATE KEYSPACE ks2 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2} AND durable_writes = false; CREATE TABLE ks2.c (k text, c int, n counter, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'x'; UPDATE ks2.c SET n = n + 3 WHERE k = 'a' AND c = 1; CREATE KEYSPACE gone WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}; DROP KEYSPACE gone" >/dev/null 2>&1
check "catalog after restart" 0 "
ks  ks2


CREATE KEYSPACE ks2 WITH replication = {'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc1': '2'}  AND durable_writes = false;

CREATE TABLE ks2.c (
    k text,
    c int,
    n counter,
    PRIMARY KEY (k, c)
) WITH CLUSTERING ORDER BY (c DESC)
    AND additional_write_policy = '99p'
    AND bloom_filter_fp_chance = 0.01
    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}
    AND cdc = false
    AND comment = 'x'
    AND compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', 'min_threshold': '4'}
    AND compression = {'chunk_length_in_kb': '16', 'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}
    AND memtable = 'default'
    AND crc_check_chance = 1.0
    AND default_time_to_live = 0
    AND extensions = {}
    AND gc_grace_seconds = 864000
    AND max_index_interval = 2048
    AND memtable_flush_period_in_ms = 0
    AND min_index_interval = 128
    AND read_repair = 'BLOCKING'
    AND speculative_retry = '99p';

CREATE TYPE ks.pt (
    x int,
    \"Y\" text,
    z int
);

 k | ud                      | extra
---+-------------------------+-------
 1 | {x: 1, Y: 'q', z: null} |  null

(1 rows)

 k | c | n
---+---+---
 a | 1 | 3

(1 rows)" "" -- \
  "$cassette" "$work/types" -e "DESCRIBE KEYSPACES; DESCRIBE KEYSPACE ks2; DESCRIBE TYPE ks.pt; SELECT k, ud, extra FROM ks.all WHERE k = 1; SELECT * FROM ks2.c"
check_match "catalog after restart: table" 0 'CREATE TABLE ks.all \(
    k int PRIMARY KEY,
    a ascii,(.|
)*    extra text,(.|
)*    AND comment = '"''"'(.|
)*CREATE INDEX all_t_idx ON ks.all \(t\);$' '^$' -- "$cassette" "$work/types" -e "DESCRIBE TABLE ks.all"
check "catalog after restart: dropped column" 1 "" "<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"Undefined column name bo\"" -- \
  "$cassette" "$work/types" -e "SELECT bo FROM ks.all"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
