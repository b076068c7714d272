#!/usr/bin/env bash
# Tests of the `cassette` shell: runs the binary and checks exact outputs and exit codes.
#
#   tests/cli/test_cli.sh [BUILD_DIR]        (default: build)
#
# Prints "cli: N passed, M failed" last; exits non-zero when a test failed.
set -uo pipefail
build_dir=${1:-build}
cassette="$(cd "$build_dir" && pwd)/cassette"
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"  # check NAME STATUS STDOUT STDERR -- COMMAND...
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
check "bad sync" 2 "" "cassette: --sync must be full, normal or off, not 'sometimes'
Try 'cassette --help' for more information." -- "$cassette" :memory: --sync sometimes -e ''
for mode in full normal OFF; do
  check "sync $mode writes" 0 "" "" -- "$cassette" "sync-$mode" --sync "$mode" \
    -e "$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'one')"
  check "sync $mode read back" 0 "k,v
1,one" "" -- "$cassette" "sync-$mode" --sync=$mode --format csv -e "SELECT * FROM ks.t"
done
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

# ---- FLUSH and COMPACT (nodetool's, for tests that need SSTables) ---------------------------
check "flush and compact" 0 "
 k
---
 1

(1 rows)" "" -- "$cassette" "$work/flushed" -e "$KS; $TABLE; INSERT INTO ks.t (k) VALUES (1); FLUSH; USE ks; COMPACT t; COMPACT ks.t; SELECT k FROM ks.t"
check "bad flush" 1 "" "<stdin>:1:Improper FLUSH command." -- "$cassette" :memory: -e "FLUSH now"
check "compact unknown table" 1 "" "<stdin>:2:table ks.nope does not exist" -- \
  "$cassette" :memory: -e "$KS;
COMPACT ks.nope"

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
# An empty smallint ('') may stand for a whole column, not for an element of a collection
printf '1,"[{3: '"''"'}]"\n2,"[{3: 4}]"\n' >nested.csv
check_match "copy from empty element" 1 '^1 rows imported from 1 files in [0-9.]+ seconds \(0 skipped\)\.$' \
  "^<stdin>:1:Failed to import line 1 of 'nested.csv': ParseError - Failed to import \"\\[\\{3: ''\\}\\]\" into column l: Expected 2 bytes for a smallint \\(0\\)
<stdin>:1:Failed to process 1 rows$" -- \
  "$cassette" "$work/copy" -e "CREATE TABLE ks.nested (k int PRIMARY KEY, l frozen<list<frozen<map<int, smallint>>>>); COPY ks.nested (k, l) FROM 'nested.csv'"
check "copy from empty element skipped" 0 '[{"k": 2, "l": [{"3": 4}]}]' "" -- \
  "$cassette" "$work/copy" --format json -e "SELECT * FROM ks.nested"
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


# ---- COPY round trips are exact ----------------------------------------------------------
# Every type, frozen and not, nested, with the values that used to be bent on the way (a decimal
# read back through a double, floats cut to 5/12 digits, empty values read back as null, empty
# elements written as nothing):
# COPY TO, then COPY FROM into an empty table of the same shape, must give back every value.
RT_TYPES="CREATE TYPE ks.pt (x int, \"Y\" text, z frozen<list<double>>)"
RT_COLUMNS="k int, c int, s text static, dec decimal, vi varint, d double, f float, ts timestamp, dt date, tm time, du duration, u uuid, tu timeuuid, i inet, bl blob, bo boolean, t text, a ascii, ti tinyint, si smallint, bi bigint, l list<double>, st set<frozen<map<text, decimal>>>, m map<timestamp, frozen<tuple<int, text, blob>>>, tp tuple<float, date, time, duration>, ud frozen<pt>, ud2 pt, nl list<frozen<list<text>>>, e int, PRIMARY KEY (k, c)"
cat >roundtrip.cql <<'CQL'
INSERT INTO ks.rt (k, c, s, dec, vi, d, f, ts, dt, tm, du, u, tu, i, bl, bo, t, a, ti, si, bi, l, st, m, tp, ud, ud2, nl) VALUES (1, 1, 'static one', 12345678901234567890.123456789, -123456789012345678901234567890, 0.1, 3.4028235E38, '2024-01-02 03:04:05.678+0000', '2024-02-29', '12:34:56.123456789', -1y2mo3d4h5m6s7ms8us9ns, 123e4567-e89b-12d3-a456-426614174000, 50554d6e-29bb-11e5-b345-feff819cdc9f, '2001:db8::1', 0xcafe, false, 'a,b "c" ''q''
line two \ back', 'plain', -128, 32767, -9223372036854775808, [0.1, 1e300, -2.5e-300, 5e-324], {{'a': 1.10, 'b\c': -0.000001}, {'': 1E+400}}, {'1970-01-01 00:00:00.001+0000': (1, 'x''y', 0x00ff), '2262-04-11 23:47:16.854+0000': (null, null, null)}, (1.17549435E-38, '1970-01-01', '00:00:00.000000001', 1mo), {x: 1, "Y": 'Q''s', z: [1.5, -0.0]}, {x: null, "Y": 'mixed', z: null}, [['a', 'b,c'], [], ['[{''}]']]);
INSERT INTO ks.rt (k, c, dec, vi, d, f, ts, dt, tm, du, i, bl, t, l, e) VALUES (1, 2, 1E+400, 0, NaN, -Infinity, '0000-12-31 23:59:59.999+0000', '-5877641-06-23', '23:59:59.999999999', 0s, '1.2.3.4', 0x, '', [NaN, Infinity, -Infinity], blobAsInt(0x));
INSERT INTO ks.rt (k, c, dec, vi, d, f, dt, bl) VALUES (2, 1, -1E-2147483647, 99999999999999999999999999999999999999999999999999, -0.0, 1.4E-45, '5881580-07-11', 0x00);
INSERT INTO ks.rt (k, c, dec, d, f, t) VALUES (2, 2, 0.000, 1.7976931348623157E308, 0.1, 'NULL');
INSERT INTO ks.rt (k, c, d, f, l, st, m) VALUES (3, 1, blobAsDouble(0x), blobAsFloat(0x), [blobAsDouble(0x), 1], {{'e': blobAsDecimal(0x)}}, {'2024-01-01 00:00:00+0000': (blobAsInt(0x), '', 0x)});
INSERT INTO ks.rt (k, c) VALUES (3, 2);
UPDATE ks.rt SET s = 'static only' WHERE k = 4;
CQL
"$cassette" "$work/rt" -e "$KS; $RT_TYPES; CREATE TABLE ks.rt ($RT_COLUMNS); CREATE TABLE ks.rt2 ($RT_COLUMNS); CREATE TABLE ks.rt3 ($RT_COLUMNS)" >/dev/null 2>&1
"$cassette" "$work/rt" -f roundtrip.cql
# JSON for every value (Java's digits for doubles, exact for decimals, times to the nanosecond),
# the bytes themselves for the floating-point and empty values JSON cannot tell apart.
RT_JSON="SELECT JSON * FROM ks.TABLE; SELECT k, c, doubleAsBlob(d), floatAsBlob(f), intAsBlob(e), tinyintAsBlob(ti), blobAsText(textAsBlob(t)) FROM ks.TABLE"
rt_select() { "$cassette" "$work/rt" --format json -e "${RT_JSON//TABLE/$1}"; }
check_match "copy every type to csv" 0 '^7 rows exported to 1 files in [0-9.]+ seconds\.$' '^$' -- \
  "$cassette" "$work/rt" -e "COPY ks.rt TO 'rt.csv'"
check_match "copy every type from csv" 0 '^7 rows imported from 1 files in [0-9.]+ seconds \(0 skipped\)\.$' '^$' -- \
  "$cassette" "$work/rt" -e "COPY ks.rt2 FROM 'rt.csv'"
check "copy round trip is exact" 0 "$(rt_select rt)" "" -- rt_select rt2
# The same with another NULL marker (the text 'NULL' must then be quoted to stay text).
"$cassette" "$work/rt" -e "COPY ks.rt TO 'rt_null.csv' WITH NULL = 'NULL' AND HEADER = true" >/dev/null
"$cassette" "$work/rt" -e "COPY ks.rt3 FROM 'rt_null.csv' WITH NULL = 'NULL' AND HEADER = true" >/dev/null
check "copy round trip with NULL = 'NULL'" 0 "$(rt_select rt)" "" -- rt_select rt3
# What the CSV says (columns in cqlsh's order: the key, then the others by name):
# decimals and doubles in full, the empty value quoted, null empty, a date out of range as its
# day number.
check "copy csv values" 0 '1,2,,,0x,,NaN,1E+400,0,0s,"",-Infinity,1.2.3.4,"[NaN, Infinity, -Infinity]",,,static one,,,"",,23:59:59.999999999,,-62135596800001,,,,,0
2,1,,,0x00,,-0,-1E-2147483647,4294967295,,,1e-45,,,,,,,,,,,,,,,,,99999999999999999999999999999999999999999999999999
2,2,,,,,1.7976931348623157e+308,0.000,,,,0.1,,,,,,,,NULL,,,,,,,,,' "" -- \
  grep -E '^(1,2|2,1|2,2),' rt.csv
check "copy precision options keep cqlsh's digits" 0 '2,2,1.8e+308,0.1' "" -- \
  bash -c "\"$cassette\" \"$work/rt\" -e \"COPY ks.rt (k, c, d, f) TO STDOUT WITH DOUBLEPRECISION = 2 AND FLOATPRECISION = 3\" | grep '^2,2,'"
# Counters, as cqlsh copies them: FROM adds each value to its counter.
"$cassette" "$work/rt" -e "CREATE TABLE ks.cnt (k int, c int, n counter, m counter, PRIMARY KEY (k, c)); CREATE TABLE ks.cnt2 (k int, c int, n counter, m counter, PRIMARY KEY (k, c)); UPDATE ks.cnt SET n = n + 5, m = m - 9223372036854775807 WHERE k = 1 AND c = 1; UPDATE ks.cnt SET n = n + 1 WHERE k = 1 AND c = 2; COPY ks.cnt TO 'cnt.csv'" >/dev/null
check_match "copy counters from csv" 0 '^2 rows imported from 1 files' '^$' -- \
  "$cassette" "$work/rt" -e "COPY ks.cnt2 FROM 'cnt.csv'"
check "copy counters round trip" 0 '[{"k": 1, "c": 1, "m": -9223372036854775807, "n": 5}, {"k": 1, "c": 2, "m": 0, "n": 1}]' "" -- \
  "$cassette" "$work/rt" --format json -e "SELECT * FROM ks.cnt2"
"$cassette" "$work/rt" -e "COPY ks.cnt2 FROM 'cnt.csv'" >/dev/null
check "copy counters add up" 0 '[{"k": 1, "c": 1, "n": 10}, {"k": 1, "c": 2, "n": 2}]' "" -- \
  "$cassette" "$work/rt" --format json -e "SELECT k, c, n FROM ks.cnt2"
# One manual clock for both processes: on the real clock a second may pass between them.
copy_clock=(--clock '2030-01-01 00:00:00')
"$cassette" "$work/copy" "${copy_clock[@]}" -e "TRUNCATE ks.t; COPY ks.t FROM 'in.csv' WITH HEADER = true AND TTL = 100" >/dev/null
check "copy TTL" 0 '[{"ttl(v)": 100}]' "" -- "$cassette" "$work/copy" "${copy_clock[@]}" --format json -e "SELECT ttl(v) FROM ks.t WHERE k = 5"

# ---- exceptions, limits and long values ---------------------------------------------------
check "drop with a timestamp beyond a long" 1 "" \
  '<stdin>:1:SyntaxException: Failed parsing statement: [ALTER TABLE ks.t DROP v USING TIMESTAMP 99999999999999999999;] reason: NumberFormatException For input string: "99999999999999999999"' -- \
  "$cassette" :memory: -e "$KS; $TABLE; ALTER TABLE ks.t DROP v USING TIMESTAMP 99999999999999999999"
check "no temporary directory" 1 "" \
  "cassette: cannot open store :memory:: cannot find a temporary directory (\$TMPDIR): No such file or directory" -- \
  env TMPDIR="$work/none" "$cassette" :memory: -e ""
long_store=$(printf 'a%.0s' $(seq 5000))
check "pg-export of a store path too long for the system" 1 "" \
  "cassette pg-export: no store at $(printf 'a%.0s' $(seq 100))... (5000 bytes)" -- \
  "$cassette" pg-export "$long_store" ks.t ""
# A 1 MB value in a bad literal: a message that still says which value, in 100 characters.
printf '%s;\n%s;\n' "$KS" "$TABLE" >long.cql
python3 -c "print(\"INSERT INTO ks.t (k, v) VALUES ('\" + 'x' * 1048576 + \"', 'v');\")" >>long.cql
check "a long value is cut in messages" 1 "" \
  "long.cql:3:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"Invalid STRING constant ($(printf 'x%.0s' $(seq 100))... (1048576 bytes)) for \"k\" of type int\"" -- \
  "$cassette" :memory: -f long.cql
python3 -c "print('SELECT ' + '9' * 17000000 + ' FROM ks.t;')" >huge.cql
check "a statement longer than a request may be" 1 "" \
  'huge.cql:1:InvalidRequest: Error from server: code=2200 [Invalid query] message="Request is too big: length 17000018 exceeds maximum allowed length 16777216."' -- \
  "$cassette" :memory: -f huge.cql

# ---- HELP, EXIT and QUIT end at the end of their line, as in cqlsh ---------------------------
check_match "HELP without ;" 1 'COPY \[ks\.\]table(.|
)*EXIT, QUIT' '^<stdin>:4:InvalidRequest: .*keyspace nope does not exist' -- \
  bash -c "printf '%s;\nhelp\n\nSELECT * FROM nope.t;\n' \"$KS\" | \"$cassette\" :memory:"
check "EXIT without ;" 0 "" "" -- bash -c "printf '%s;\nEXIT\nSELECT * FROM nope.t;\n' \"$KS\" | \"$cassette\" :memory:"
check "quit without ; in -e" 0 "" "" -- "$cassette" :memory: -e "$KS;
  quit
SELECT * FROM nope.t"
check "exit inside a statement is part of it" 1 "" \
  "<stdin>:1:SyntaxException: line 2:0 mismatched input 'exit' expecting EOF (SELECT * FROM ks.t[exit]...)" -- \
  bash -c "printf 'SELECT * FROM ks.t\nexit\n;\n' | \"$cassette\" :memory:"

# ---- the interactive prompt: Ctrl-C, history (through a pseudo-terminal) -------------------
check_match "interactive Ctrl-C and history" 0 'interactive: [0-9]+ passed, 0 failed$' '' -- \
  python3 "$here/test_interactive.py" "$cassette" "$work"

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
    AND allow_auto_snapshot = true
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
    AND incremental_backups = true
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

# ---- stores: made only for a script that writes; a read-only store reads ------------------
check "read of a missing store" 1 "" \
  "cassette: cannot open store $work/nostore: store $work/nostore does not exist" -- \
  "$cassette" "$work/nostore" -e "SELECT * FROM ks.t"
check "no store made for a read" 0 "no" "" -- bash -c "test -e '$work/nostore' && echo yes || echo no"
check "missing parent" 1 "" \
  "cassette: cannot open store $work/no/such: cannot create store $work/no/such: directory $work/no does not exist" -- \
  "$cassette" "$work/no/such" -e "$KS"
check "no parent made" 0 "no" "" -- bash -c "test -e '$work/no' && echo yes || echo no"
mkdir -p "$work/notastore" && echo mine > "$work/notastore/notes.txt"
check "not a store" 1 "" \
  "cassette: cannot open store $work/notastore: $work/notastore is not a Cassette store (no CASSETTE file) and is not empty" -- \
  "$cassette" "$work/notastore" -e "$KS"
check "a write makes the store" 0 "" "" -- "$cassette" "$work/made" -e "$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'one')"
check "marker" 0 "Cassette store
format 1" "" -- cat "$work/made/CASSETTE"
# A store's directories and files are made 0777 and 0666 less the umask, as every Unix program
# makes its files: under umask 002 a group shares the store, under 077 only its owner reads it.
store_modes() {  # the distinct (type, mode) pairs of a new store made under umask $1
  bash -c "umask $1 && '$cassette' '$work/umask$1' -e \"$KS; $TABLE; INSERT INTO ks.t (k, v) VALUES (1, 'one')\" &&
    find '$work/umask$1' -printf '%y %m\n' | sort -u"
}
check "umask 002: a store the group shares" 0 "d 775
f 664" "" -- store_modes 002
check "umask 077: a store only its owner reads" 0 "d 700
f 600" "" -- store_modes 077
# The shared setup of ext/postgres/README.md: a default ACL gives the group read and write on
# every file a process makes there, even under PostgreSQL's umask 0077.
mkdir "$work/shared" && setfacl -d -m g:nogroup:rwX "$work/shared"
check "a default ACL shares a store with a group" 0 "d rwx
f rw-" "" -- bash -c "umask 077 && '$cassette' '$work/shared/store' -e \"$KS\" &&
    find '$work/shared/store' -printf '%y %p\n' | while read -r type path; do
      echo \"\$type \$(getfacl -p \"\$path\" | sed -n 's/^mask::\(.*\)/\1/p')\"; done | sort -u"

# A copy of a store that only `nobody` reads: under a directory it can traverse, itself
# without write permission for anyone but root.
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED: read-only store tests (they run as root, to drop to the user nobody)"
else
  ro=$(mktemp -d /tmp/cassette-ro-XXXXXX)
  chmod 755 "$ro"
  cp -r "$work/made" "$ro/store"
  # A record still in the commit log (no flush): read from the log, replayed in memory.
  "$cassette" "$ro/store" -e "INSERT INTO ks.t (k, v) VALUES (2, 'two')"
  chmod -R a+rX,go-w "$ro/store"
  before=$(cd "$ro/store" && find . -exec stat -c '%n %s %Y' {} + | sort)
  as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups "$cassette")
  check "read-only store: select" 0 "
 k | v
---+-----
 1 | one
 2 | two

(2 rows)" "" -- "${as_nobody[@]}" "$ro/store" -e "SELECT * FROM ks.t"
  check "read-only store: a write fails" 1 "" \
    "cassette: store $ro/store is read-only (its directory is not writable): nothing was written" -- \
    "${as_nobody[@]}" "$ro/store" -e "INSERT INTO ks.t (k, v) VALUES (3, 'three')"
  after=$(cd "$ro/store" && find . -exec stat -c '%n %s %Y' {} + | sort)
  check "read-only store: unchanged" 0 "same" "" -- bash -c "[ '$before' == '$after' ] && echo same || echo changed"
  rm -rf "$ro"
fi

# ---- materialized views: a base write and its view rows are one commit record -------------
# A shell killed (-9) in the middle of a stream of updates that move rows between view keys:
# after reopening, the view holds exactly one row per base row, with its value. The 7 base rows
# exist before the stream starts, so the check does not depend on how far the stream got.
mv_store=$work/mv_store
"$cassette" "$mv_store" -e "$KS; CREATE TABLE ks.b (k int PRIMARY KEY, v int);
CREATE MATERIALIZED VIEW ks.bv AS SELECT * FROM ks.b WHERE v IS NOT NULL AND k IS NOT NULL
PRIMARY KEY (v, k);
$(for k in $(seq 0 6); do echo "INSERT INTO ks.b (k, v) VALUES ($k, $k);"; done)" >/dev/null
for i in $(seq 7 20000); do echo "UPDATE ks.b SET v = $i WHERE k = $((i % 7));"; done >"$work/mv.cql"
"$cassette" "$mv_store" -f "$work/mv.cql" >/dev/null 2>&1 &
mv_pid=$!
for _ in $(seq 1 300); do  # until the stream has moved a few rows (another process reads)
  [[ "$("$cassette" "$mv_store" --format csv -e "SELECT max(v) FROM ks.b" 2>/dev/null |
        tail -n 1)" -gt 50 ]] 2>/dev/null && break
  sleep 0.1
done
kill -9 "$mv_pid" 2>/dev/null
wait "$mv_pid" 2>/dev/null
mv_base=$("$cassette" "$mv_store" --format csv -e "SELECT k, v FROM ks.b" | tail -n +2 | sort)
mv_view=$("$cassette" "$mv_store" --format csv -e "SELECT k, v FROM ks.bv" | tail -n +2 | sort)
check "materialized view: base and view agree after a kill" 0 "7 rows, same" "" -- \
  bash -c "[ '$mv_base' == '$mv_view' ] && echo \"\$(echo '$mv_view' | wc -l) rows, same\" || echo differ"

# COPY FROM into a base table keeps its view (a view key moved, one set, one NULL); a view takes
# no COPY FROM.
mvc=$work/mv_copy
"$cassette" "$mvc" -e "$KS; CREATE TABLE ks.u (k int PRIMARY KEY, c text, n text);
INSERT INTO ks.u (k, c, n) VALUES (1, 'fr', 'old'); INSERT INTO ks.u (k, c, n) VALUES (4, 'es', 'Di');
CREATE MATERIALIZED VIEW ks.uc AS SELECT * FROM ks.u WHERE c IS NOT NULL AND k IS NOT NULL
PRIMARY KEY (c, k)" >/dev/null
printf 'k,c,n\n1,de,Ada\n2,fr,Bob\n3,,Cy\n4,,Di\n' >mv_copy.csv
check_match "copy from into a base table with a view" 0 '^4 rows imported from 1 files in [0-9.]+ seconds \(0 skipped\)\.$' '^$' -- \
  "$cassette" "$mvc" -e "COPY ks.u FROM 'mv_copy.csv' WITH HEADER = true"
check "copy from keeps the view" 0 "c,k,n
de,1,Ada
fr,2,Bob" "" -- bash -c "'$cassette' '$mvc' --format csv -e 'SELECT c, k, n FROM ks.uc' | sort"
check "copy from into a view" 1 "" "<stdin>:1:Cannot directly modify a materialized view" -- \
  "$cassette" "$mvc" -e "COPY ks.uc FROM 'mv_copy.csv' WITH HEADER = true"

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
