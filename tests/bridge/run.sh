#!/usr/bin/env bash
# Tests of the PostgreSQL bridge (`cassette pg-export` / `cassette pg-import`) against a throwaway
# PostgreSQL 15 server: exact rows and column types on both sides, rejected rows and their
# reasons, error messages and exit codes, a 50k-row table streamed both ways, a round trip
# PG -> CQL -> PG, and the examples/migration scenario.
#
#   tests/bridge/run.sh [BUILD_DIR]        (default: build)
#
# Prints "bridge: N passed, M failed" last; exits non-zero when a test failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-$root/build}" && pwd)
cassette="$build_dir/cassette"
passed=0
failed=0

source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start || { echo "bridge: 0 passed, 1 failed"; exit 1; }
export PGTZ=UTC PGDATESTYLE=ISO PGOPTIONS="-c client_min_messages=warning"
work=$PG_WORK_DIR
cd "$work"
connstr="dbname=postgres"
sql() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }
cql() { "$cassette" "$work/store" "$@"; }
# Summaries end with timings; tests compare them with the numbers masked.
mask_time() { sed -E 's/ in [0-9]+\.[0-9]+ s \([0-9]+ rows\/s\)/ in T s (R rows\/s)/'; }

source "$root/tests/lib/check.sh"  # check NAME STATUS STDOUT STDERR -- COMMAND...
check_output_filter() { mask_time; }

# ---- a CQL table with every type, exported ------------------------------------------------------

cql -e "
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TYPE ks.addr (street text, zip int);
CREATE TABLE ks.every (k int, c text, ti tinyint, si smallint, i int, bi bigint, vi varint,
  de decimal, f float, d double, b boolean, t text, a ascii, bl blob, u uuid, tu timeuuid,
  ts timestamp, dt date, tm time, du duration, ip inet, ls list<int>, st set<text>,
  mp map<text, int>, tp tuple<int, text>, ud frozen<addr>, nl list<frozen<list<int>>>,
  PRIMARY KEY (k, c));
INSERT INTO ks.every (k, c, ti, si, i, bi, vi, de, f, d, b, t, a, bl, u, tu, ts, dt, tm, du, ip,
  ls, st, mp, tp, ud, nl) VALUES (1, 'a', -128, 32767, -2147483648, 9223372036854775807,
  123456789012345678901234567890, 12.340, 3.14159, 0.1, true, 'tab	nl
back\\ quote\" é', 'plain', 0xcafe00, 123e4567-e89b-12d3-a456-426614174000,
  50554d6e-29bb-11e5-b345-feff819cdc9f, '2024-02-29 13:14:15.678+0000', '2024-02-29',
  '13:14:15.123456', 1y2mo3d4h5m6s7ms, '::1', [3, 1, 2], {'x', 'y z'}, {'k1': 1, 'k2': 2},
  (7, 'seven'), {street: 'Main St', zip: 12345}, [[1, 2], [3]]);
INSERT INTO ks.every (k, c) VALUES (2, 'b');
INSERT INTO ks.every (k, c, f, d, dt, ts, du, ip, bl, st) VALUES (3, '', NaN, -Infinity,
  '1900-01-01', '1969-12-31 23:59:59.999+0000', -3d, '192.168.0.1', 0x, {'\"q\"', 'back\\'});
" || echo "setup of ks.every failed"

check "pg-export creates the table and copies every row" 0 \
  "pg-export: ks.every -> every (created): 3 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-export "$work/store" ks.every "$connstr"

check "exported column types (ext/pg_common/pg_types.h) and primary key" 0 \
"k integer
c text
a text
b boolean
bi bigint
bl bytea
d double precision
de numeric
dt date
du interval
f real
i integer
ip inet
si smallint
t text
ti smallint
tm time without time zone
tp jsonb
ts timestamp with time zone
tu uuid
u uuid
ud jsonb
vi numeric
ls integer[]
mp jsonb
nl jsonb
st text[]
PRIMARY KEY (k, c)" "" -- \
  sql -c "SELECT attname || ' ' || format_type(atttypid, atttypmod) FROM pg_attribute
          WHERE attrelid = 'every'::regclass AND attnum > 0 ORDER BY attnum" \
      -c "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'every'::regclass"

check "exported values, exactly" 0 \
"k=1 c=a a=plain b=t bi=9223372036854775807 bl=\\xcafe00 d=0.1 de=12.340 dt=2024-02-29 du=1 year 2 mons 3 days 04:05:06.007 f=3.14159 i=-2147483648 ip=::1 si=32767 t=tab	nl
back\\ quote\" é ti=-128 tm=13:14:15.123456 tp=[7, \"seven\"] ts=2024-02-29 13:14:15.678+00 tu=50554d6e-29bb-11e5-b345-feff819cdc9f u=123e4567-e89b-12d3-a456-426614174000 ud={\"zip\": 12345, \"street\": \"Main St\"} vi=123456789012345678901234567890 ls={3,1,2} ls[1]=3 mp={\"k1\": 1, \"k2\": 2} nl=[[1, 2], [3]] st={x,\"y z\"}
k=2 c=b a= b= bi= bl= d= de= dt= du= f= i= ip= si= t= ti= tm= tp= ts= tu= u= ud= vi= ls= ls[1]= mp= nl= st=
k=3 c= a= b= bi= bl=\\x d=-Infinity de= dt=1900-01-01 du=-3 days f=NaN i= ip=192.168.0.1 si= t= ti= tm= tp= ts=1969-12-31 23:59:59.999+00 tu= u= ud= vi= ls= ls[1]= mp= nl= st={\"\\\"q\\\"\",\"back\\\\\"}" "" -- \
  sql -c "SELECT format('k=%s c=%s a=%s b=%s bi=%s bl=%s d=%s de=%s dt=%s du=%s f=%s i=%s ip=%s si=%s t=%s ti=%s tm=%s tp=%s ts=%s tu=%s u=%s ud=%s vi=%s ls=%s ls[1]=%s mp=%s nl=%s st=%s',
          k, c, a, b, bi, bl, d, de, dt, du, f, i, ip, si, t, ti, tm, tp, ts, tu, u, ud, vi, ls,
          ls[1], mp, nl, st) FROM every ORDER BY k"

check "exported json and arrays are typed values" 0 "7|Main St|2|y z|t" "" -- \
  sql -c "SELECT (tp->>0)::int, ud->>'street', mp->'k2', st[2], 'x' = ANY(st) FROM every WHERE k = 1"

# An existing table: compatible (wider types) takes the rows; incompatible is refused, clearly.
sql -c "CREATE TABLE wide (k bigint, c varchar(10), i numeric(20), extra text DEFAULT 'x',
                           PRIMARY KEY (k, c))"
cql -e "CREATE TABLE ks.narrow (k int, c text, i int, PRIMARY KEY (k, c));
        INSERT INTO ks.narrow (k, c, i) VALUES (1, 'one', 10);
        INSERT INTO ks.narrow (k, c, i) VALUES (2, 'two', NULL)" || echo "setup of ks.narrow failed"
check "pg-export into an existing compatible table" 0 \
  "pg-export: ks.narrow -> wide: 2 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-export "$work/store" ks.narrow "$connstr" wide
check "rows in the existing table" 0 "1|one|10|x
2|two||x" "" -- sql -c "SELECT * FROM wide ORDER BY k"
sql -c "CREATE SCHEMA rpt" -c "CREATE TABLE rpt.bad (k boolean, i int, must int NOT NULL)"
check "pg-export into an incompatible table says what does not fit" 1 "" \
"cassette pg-export: PostgreSQL table rpt.bad cannot take the rows of ks.narrow:
  column k is boolean, but int k needs integer
  column c is missing (expected text)
  column must is NOT NULL without a default, and ks.narrow has no such column" -- \
  "$cassette" pg-export "$work/store" ks.narrow "$connstr" rpt.bad
check "pg-export of rows already there fails as a whole" 1 "" \
  "cassette pg-export: PostgreSQL: duplicate key value violates unique constraint \"wide_pkey\"" -- \
  "$cassette" pg-export "$work/store" ks.narrow "$connstr" wide
check "a failed export writes nothing" 0 "2" "" -- sql -c "SELECT count(*) FROM wide"
# A foreign table on the exported store itself (as the README's sections once led to) is refused
# before anything is written, under any name of the store: the copy would write the store into
# itself. Only the catalog matters here, so the wrapper is a bare one named cassette_fdw.
ln -s "$work/store" "$work/store-link"
sql -c "CREATE FOREIGN DATA WRAPPER cassette_fdw" \
    -c "CREATE SERVER self FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$work/store-link')" \
    -c "CREATE FOREIGN TABLE narrow_self (k int, c text, i int) SERVER self OPTIONS (table 'ks.narrow')"
check "pg-export refuses a foreign table on the store it exports" 1 "" \
  "cassette pg-export: PostgreSQL table narrow_self is a cassette_fdw foreign table on the store being exported ($work/store-link): pg-export would write the store into itself; name another PostgreSQL table" -- \
  "$cassette" pg-export "$work/store" ks.narrow "$connstr" narrow_self
check "a refused export changes nothing in the store" 0 "
 k | c   | i
---+-----+------
 1 | one |   10
 2 | two | null

(2 rows)" "" -- cql -e "SELECT k, c, i FROM ks.narrow"
sql -c "DROP FOREIGN DATA WRAPPER cassette_fdw CASCADE"

# ---- pg-import ----------------------------------------------------------------------------------

sql -c "CREATE TABLE people (id int, name text, born date, tags text[], score numeric,
                             extra jsonb, ok boolean, seen timestamptz, addr inet, pic bytea,
                             span interval, ref uuid)" \
    -c "INSERT INTO people VALUES
  (1, 'ann', '1990-01-02', '{b,a,b}', 12, '{\"x\": 1}', true, '2024-01-01 10:00:00.123+02',
   '10.0.0.1', '\\x00ff', '1 day 02:00:00.5', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, 'bob', '2000-02-29', '{}', -7, '{}', false, '1970-01-01 00:00:00+00', '::ffff:1.2.3.4',
   '\\x', '-1 mons -2 days', NULL),
  (NULL, 'nokey', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 'dan', NULL, '{a,NULL}', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (5, 'eve', 'infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (6, 'fay', NULL, NULL, 1.5, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (7, 'gus', NULL, NULL, NULL, NULL, NULL, '2024-01-01 00:00:00.123456+00', NULL, NULL, NULL, NULL),
  (8, 'hal', NULL, NULL, NULL, '{\"x\": \"one\"}', NULL, NULL, NULL, NULL, NULL, NULL),
  (9, 'ivy', NULL, NULL, NULL, NULL, NULL, NULL, '10.0.0.0/8', NULL, NULL, NULL),
  (10, 'jon', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '1 mon -1 days', NULL),
  (11, 'kim', NULL, NULL, 3000000000, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
cql -e "CREATE TABLE ks.people (id int PRIMARY KEY, name text, born date, tags set<text>,
          score int, extra map<text, int>, ok boolean, seen timestamp, addr inet, pic blob,
          span duration, ref uuid, unused text)" || echo "setup of ks.people failed"

check "pg-import converts, writes and rejects rows" 1 \
  "pg-import: query -> ks.people: 3 rows in T s (R rows/s), 9 rejected (written to people.rejects.csv)" "" -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr" "SELECT * FROM people ORDER BY id;"
check "imported rows, read back with the shell" 0 \
'[{"id": 1, "addr": "10.0.0.1", "born": "1990-01-02", "extra": {"x": 1}, "name": "ann", "ok": true, "pic": "0x00ff", "ref": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "score": 12, "seen": "2024-01-01 08:00:00.123Z", "span": "1d2h500ms", "tags": ["a", "b"], "unused": null}, {"id": 2, "addr": null, "born": null, "extra": null, "name": null, "ok": null, "pic": null, "ref": null, "score": null, "seen": null, "span": null, "tags": null, "unused": null}, {"id": 3, "addr": "1.2.3.4", "born": "2000-02-29", "extra": null, "name": "bob", "ok": false, "pic": "0x", "ref": null, "score": -7, "seen": "1970-01-01 00:00:00.000Z", "span": "-1mo2d", "tags": null, "unused": null}]' "" -- \
  "$cassette" "$work/store" --format json -e "SELECT * FROM ks.people WHERE id IN (1, 2, 3)"
check "the rejects file: each row as PostgreSQL gave it, and why" 0 \
'id,name,born,tags,score,extra,ok,seen,addr,pic,span,ref,reason
4,dan,,"{a,NULL}",,,,,,,,,column tags: null is not supported inside collections
5,eve,infinity,,,,,,,,,,column born: Unable to coerce '"'"'infinity'"'"' to a formatted date (long)
6,fay,,,1.5,,,,,,,,column score: Unable to make int from '"'"'1.5'"'"'
7,gus,,,,,,2024-01-01 00:00:00.123456+00,,,,,"column seen: timestamp '"'"'2024-01-01 00:00:00.123456+00'"'"' has sub-millisecond digits, but CQL timestamps hold milliseconds (use date_trunc('"'"'milliseconds'"'"', ...) in the query)"
8,hal,,,,"{""x"": ""one""}",,,,,,,column extra: Unable to make int from '"'"'one'"'"'
9,ivy,,,,,,,10.0.0.0/8,,,,column addr: Unable to make inet address from '"'"'10.0.0.0/8'"'"'
10,jon,,,,,,,,,P1M-1D,,"column span: The duration months, days and nanoseconds must be all of the same sign (1, -1, 0)"
11,kim,,,3000000000,,,,,,,,column score: Unable to make int from '"'"'3000000000'"'"'
,nokey,,,,,,,,,,,Invalid null value in condition for column id' "" -- \
  cat people.rejects.csv

check "pg-import: a result column the table does not have" 1 "" \
  "cassette pg-import: Undefined column name nope in table ks.people" -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr" "SELECT 1 AS id, 2 AS nope"
check "pg-import: a type that does not convert" 1 "" \
  "cassette pg-import: type mismatch: column score of ks.people is int, but the query gives boolean" -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr" "SELECT 1 AS id, true AS score"
check "pg-import: the primary key must be given" 1 "" \
  "cassette pg-import: Some partition key parts are missing: id" -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr" "SELECT 'x' AS name"
check "pg-import: a missing PostgreSQL table" 1 "" \
  "cassette pg-import: PostgreSQL: relation \"nope\" does not exist" -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr" "SELECT * FROM nope"
check "pg-import: into a counter table" 1 "" \
  "cassette pg-import: INSERT statements are not allowed on counter tables, use UPDATE instead" -- \
  bash -c "'$cassette' '$work/store' -e 'CREATE TABLE ks.hits (k int PRIMARY KEY, n counter)' &&
           '$cassette' pg-import '$work/store' ks.hits '$connstr' 'SELECT 1 AS k, 2 AS n'"
cql -e "CREATE TABLE ks.partial (id int PRIMARY KEY, v int)" || echo "setup of ks.partial failed"
check "pg-import: an error in the middle of the query keeps the batches written" 1 \
  '[{"count": 2000}]' \
  "cassette pg-import: PostgreSQL: division by zero (2000 rows were written before it)" -- \
  bash -c "'$cassette' pg-import '$work/store' ks.partial '$connstr' \
             'SELECT n AS id, 10 / (n - 3000) AS v FROM generate_series(1, 5000) AS n'; status=\$?;
           '$cassette' '$work/store' --format json -e 'SELECT count(*) FROM ks.partial' 2>/dev/null;
           exit \$status"
check "pg-import: nothing rejected leaves no rejects file" 0 \
  "pg-import: query -> ks.people: 2 rows in T s (R rows/s), 0 rejected
no rejects file" "" -- \
  bash -c "'$cassette' pg-import '$work/store' ks.people '$connstr' \
             'SELECT id, name FROM people WHERE id < 3' --rejects none.csv &&
           { [ -e none.csv ] || echo 'no rejects file'; }"

# Rows with the same key in one batch share its write timestamp: Cassandra's tie rule (the larger
# value wins) decides, and a collection's overwrite (a deletion just below that timestamp) keeps
# the elements of both, as in a BATCH; in batches of one row, the later row wins.
cql -e "CREATE TABLE ks.dups (k int PRIMARY KEY, v text, s set<int>)" || echo "setup of ks.dups failed"
dups="SELECT * FROM (VALUES (1, 'x', '{1}'::int[]), (1, 'y', '{2}'), (2, 'b', '{3}'), (2, 'a', NULL))
      AS t(k, v, s)"
check "duplicate keys in one batch" 0 \
  '[{"k": 1, "s": [1, 2], "v": "y"}, {"k": 2, "s": [3], "v": "b"}]' "" -- \
  bash -c "'$cassette' pg-import '$work/store' ks.dups '$connstr' \"$dups\" >/dev/null &&
           '$cassette' '$work/store' --format json -e 'SELECT * FROM ks.dups WHERE k IN (1, 2)'"
check "duplicate keys in batches of one row" 0 \
  '[{"k": 1, "s": [2], "v": "y"}, {"k": 2, "s": null, "v": "a"}]' "" -- \
  bash -c "'$cassette' pg-import '$work/store' ks.dups '$connstr' \"$dups\" --batch-size 1 >/dev/null &&
           '$cassette' '$work/store' --format json -e 'SELECT * FROM ks.dups WHERE k IN (1, 2)'"

# ---- errors -------------------------------------------------------------------------------------

check "bad connection string" 1 "" \
  "cassette pg-export: cannot connect to PostgreSQL: missing \"=\" after \"garbage\" in connection info string" -- \
  "$cassette" pg-export "$work/store" ks.every "garbage"
check "no server there" 1 "" \
  "cassette pg-import: cannot connect to PostgreSQL: connection to server on socket \"$work/nowhere/.s.PGSQL.5432\" failed: No such file or directory" -- \
  "$cassette" pg-import "$work/store" ks.people "host=$work/nowhere port=5432" "SELECT 1"
check "missing CQL table" 1 "" "cassette pg-export: table nope does not exist" -- \
  "$cassette" pg-export "$work/store" ks.nope "$connstr"
check "missing keyspace" 1 "" "cassette pg-import: keyspace nope does not exist" -- \
  "$cassette" pg-import "$work/store" nope.t "$connstr" "SELECT 1"
check "missing store" 1 "" "cassette pg-export: no store at $work/absent" -- \
  "$cassette" pg-export "$work/absent" ks.every "$connstr"
check "usage: too few arguments" 2 "" \
  "cassette pg-import: pg-import takes 4 arguments: pg-import STORE KEYSPACE.TABLE CONNSTR 'SELECT ...'
Try 'cassette pg-import --help' for more information." -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr"
check "usage: a table without its keyspace" 2 "" \
  "cassette pg-export: the CQL table must be given as keyspace.table, not 'every'
Try 'cassette pg-export --help' for more information." -- \
  "$cassette" pg-export "$work/store" every "$connstr"
check "usage: a bad batch size" 2 "" \
  "cassette pg-import: --batch-size must be a positive number of rows, not '0'
Try 'cassette pg-import --help' for more information." -- \
  "$cassette" pg-import "$work/store" ks.people "$connstr" "SELECT 1" --batch-size 0

# ---- round trip PG -> CQL -> PG -----------------------------------------------------------------

sql -c "CREATE TABLE trip (id int, at timestamptz, amount numeric, ratio real, big double precision,
                           day date, tod time, flag boolean, bytes bytea, name text, ids uuid[],
                           nums integer[], doc jsonb, host inet, span interval, tiny smallint,
                           huge bigint, PRIMARY KEY (id, at))" \
    -c "INSERT INTO trip SELECT n, timestamptz '2024-03-01 00:00:00+00' + n * interval '1.001 s',
          n * 1.25 - 1000, n / 3.0, n * 1e300 / 7, date '2000-01-01' + n, time '00:00' + n * interval '1.5 s',
          n % 2 = 0, decode(md5(n::text), 'hex'), E'name\\t' || n || E'\\n\\\\',
          ARRAY[md5(n::text)::uuid], ARRAY[n, -n], jsonb_build_object('n', n::text, 's', 'x' || n),
          ('10.0.' || n % 256 || '.' || n % 7)::inet, n * interval '1 min 1.5 s', n % 100, n * 1000000000000
        FROM generate_series(1, 300) AS n"
cql -e "CREATE TABLE ks.trip (id int, at timestamp, amount decimal, ratio float, big double,
          day date, tod time, flag boolean, bytes blob, name text, ids list<uuid>, nums list<int>,
          doc map<text, text>, host inet, span duration, tiny smallint, huge bigint,
          PRIMARY KEY (id, at))" || echo "setup of ks.trip failed"
check "round trip: pg-import" 0 "pg-import: query -> ks.trip: 300 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-import "$work/store" ks.trip "$connstr" \
    "SELECT id, at, amount, ratio, big, day, tod, flag, bytes, name, ids, nums, doc, host, span, tiny, huge FROM trip"
check "round trip: pg-export" 0 "pg-export: ks.trip -> trip_back (created): 300 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-export "$work/store" ks.trip "$connstr" trip_back
cols="id, at, amount, ratio, big, day, tod, flag, bytes, name, ids, nums, doc, host, span, tiny, huge"
check "round trip: the same rows in both tables" 0 "300|0|0" "" -- \
  sql -c "SELECT (SELECT count(*) FROM trip_back),
                 (SELECT count(*) FROM (SELECT $cols FROM trip EXCEPT SELECT $cols FROM trip_back) a),
                 (SELECT count(*) FROM (SELECT $cols FROM trip_back EXCEPT SELECT $cols FROM trip) b)"

# BC dates and timestamps, as pg-export writes them ("0044-03-15 BC"), import and export back.
sql -c "CREATE TABLE bc (id int PRIMARY KEY, day date, at timestamptz)" \
    -c "INSERT INTO bc VALUES (1, '0044-03-15 BC', '0044-03-15 12:30:00.5+00 BC'),
          (2, '4714-11-24 BC', '4714-11-24 00:00:00+00 BC'), (3, '0001-12-31 BC', '0001-12-31 23:59:59.999+00 BC'),
          (4, '0001-01-01', '0001-01-01 00:00:00+00')"
cql -e "CREATE TABLE ks.bc (id int PRIMARY KEY, day date, at timestamp)" || echo "setup of ks.bc failed"
check "BC dates: pg-import" 0 "pg-import: query -> ks.bc: 4 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-import "$work/store" ks.bc "$connstr" "SELECT * FROM bc"
check "BC dates: the shell reads them" 0 "id,day,at
1,-735160,-63517778999500
2,-2440588,-210866803200000
3,-719163,-62135596800001
4,0001-01-01,0001-01-01 00:00:00.000000+0000" "" -- \
  "$cassette" "$work/store" --format csv -e "SELECT id, day, at FROM ks.bc WHERE id IN (1, 2, 3, 4)"
check "BC dates: pg-export" 0 "pg-export: ks.bc -> bc_back (created): 4 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-export "$work/store" ks.bc "$connstr" bc_back
check "BC dates: exported rows" 0 "1|0044-03-15 BC|0044-03-15 12:30:00.5+00 BC
2|4714-11-24 BC|4714-11-24 00:00:00+00 BC
3|0001-12-31 BC|0001-12-31 23:59:59.999+00 BC
4|0001-01-01|0001-01-01 00:00:00+00" "" -- sql -c "SELECT id, day, at FROM bc_back ORDER BY id"
check "BC dates: the same rows back" 0 "4|0|0" "" -- \
  sql -c "SELECT (SELECT count(*) FROM bc_back),
                 (SELECT count(*) FROM (SELECT id, day, at FROM bc EXCEPT SELECT id, day, at FROM bc_back) a),
                 (SELECT count(*) FROM (SELECT id, day, at FROM bc_back EXCEPT SELECT id, day, at FROM bc) b)"

# ---- a larger table, streamed both ways ---------------------------------------------------------

sql -c "CREATE TABLE big AS SELECT n AS id, n % 97 AS bucket, 'row ' || n AS label,
          timestamptz '2024-01-01 00:00:00+00' + n * interval '1 s' AS at
        FROM generate_series(1, 50000) AS n"
cql -e "CREATE TABLE ks.big (bucket int, id int, label text, at timestamp,
          PRIMARY KEY (bucket, id))" || echo "setup of ks.big failed"
check "50k rows: pg-import in batches" 0 "pg-import: query -> ks.big: 50000 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-import "$work/store" ks.big "$connstr" "SELECT * FROM big" --batch-size 700
check "50k rows: the store has them" 0 '[{"count": 50000, "system.sum(id)": 1250025000}]
[{"count": 515, "system.max(id)": 49955}]' "
Warnings :
Aggregation query used without partition key" -- \
  "$cassette" "$work/store" --format json -e "SELECT count(*), sum(id) FROM ks.big" \
    -e "SELECT count(*), max(id) FROM ks.big WHERE bucket = 0"
check "50k rows: pg-export" 0 "pg-export: ks.big -> big_back (created): 50000 rows in T s (R rows/s), 0 rejected" "" -- \
  "$cassette" pg-export "$work/store" ks.big "$connstr" big_back
check "50k rows: the same rows back in PostgreSQL" 0 "50000|0" "" -- \
  sql -c "SELECT (SELECT count(*) FROM big_back),
                 (SELECT count(*) FROM (SELECT id, bucket, label, at FROM big
                                        EXCEPT SELECT id, bucket, label, at FROM big_back) d)"

# On a terminal (script(1) gives the command one) a progress bar is drawn on stderr and erased
# before the summary; the checks above, without a terminal, saw an empty stderr.
check "a progress bar on a terminal" 0 "bar drawn, then erased" "" -- \
  bash -c "script -qec \"'$cassette' pg-export '$work/store' ks.big '$connstr' big_tty\" /dev/null \
             | tr '\r' '\n' > tty.out;
           grep -qE '^pg-export ks.big \[#*-*\] +[0-9]+%  [0-9]+ rows  [0-9]+ rows/s' tty.out &&
           grep -qE '^.\[Kpg-export: ks.big -> big_tty \(created\): 50000 rows' tty.out &&
           echo 'bar drawn, then erased'"

# ---- static columns -----------------------------------------------------------------------------

cql -e "CREATE TABLE ks.st (k int, c int, s text STATIC, v int, PRIMARY KEY (k, c));
        INSERT INTO ks.st (k, c, s, v) VALUES (1, 1, 'one', 10);
        INSERT INTO ks.st (k, c, v) VALUES (1, 2, 20);
        INSERT INTO ks.st (k, s) VALUES (2, 'static only')" || echo "setup of ks.st failed"
check "static columns repeat per row; a static-only partition is rejected" 1 \
  "pg-export: ks.st -> st (created): 2 rows in T s (R rows/s), 1 rejected (written to st.rejects.csv)
1|1|one|10
1|2|one|20
k,c,s,v,reason
2,,static only,,\"a partition with only static values has no clustering key, and PostgreSQL primary key columns cannot be null\"" "" -- \
  bash -c "'$cassette' pg-export '$work/store' ks.st '$connstr'; status=\$?;
           psql -X -At -d postgres -c 'SELECT * FROM st ORDER BY k, c'; cat st.rejects.csv; exit \$status"

# CQL timestamps and dates reach far beyond PostgreSQL's: such a row is rejected, not sent to
# make the whole COPY fail.
cql -e "CREATE TABLE ks.far (k int PRIMARY KEY, ts timestamp, d date);
        INSERT INTO ks.far (k, ts, d) VALUES (1, '2024-01-02 03:04:05.678+0000', '2024-01-02');
        INSERT INTO ks.far (k, ts) VALUES (2, 9223372036854775807);
        INSERT INTO ks.far (k, d) VALUES (3, '-5877641-06-23')" || echo "setup of ks.far failed"
check "timestamps and dates outside PostgreSQL's range are rejected" 1 \
  "pg-export: ks.far -> far (created): 1 rows in T s (R rows/s), 2 rejected (written to far.rejects.csv)
1|2024-01-02|2024-01-02 03:04:05.678+00
k,d,ts,reason
2,,9223372036854775807,column ts: timestamp 9223372036854775807 is outside PostgreSQL's range
3,-2147483648,,column d: date -2147483648 is outside PostgreSQL's range" "" -- \
  bash -c "'$cassette' pg-export '$work/store' ks.far '$connstr'; status=\$?;
           psql -X -At -d postgres -c 'SELECT * FROM far ORDER BY k'; cat far.rejects.csv; exit \$status"

# ---- the migration example ----------------------------------------------------------------------

"$root/examples/migration/run.sh" "$build_dir" >"$work/migration.out" 2>&1
check "examples/migration runs" 0 "0" "" -- echo $?
check "examples/migration: the imports" 0 \
"pg-import: query -> shop.orders_by_customer: 400 rows in T s (R rows/s), 0 rejected
pg-import: query -> shop.items_by_order: 801 rows in T s (R rows/s), 0 rejected
pg-import: query -> shop.customers_by_city: 40 rows in T s (R rows/s), 0 rejected
pg-export: shop.orders_by_customer -> reporting_orders (created): 400 rows in T s (R rows/s), 0 rejected" "" -- \
  bash -c "grep -E '^pg-(import|export):' '$work/migration.out' | sed -E 's/ in [0-9]+\.[0-9]+ s \([0-9]+ rows\/s\)/ in T s (R rows\/s)/'"
check "examples/migration: a customer's latest orders, from one partition" 0 \
" customer_name | ordered_at                      | order_id | status  | total
---------------+---------------------------------+----------+---------+--------
        Ada #8 | 2024-05-19 23:17:00.000000+0000 |     1361 | shipped | 355.90" "" -- \
  bash -c "grep -A4 'customer_name | ordered_at' '$work/migration.out' | head -3"
check "examples/migration: the report back in PostgreSQL, equal to the normalized one" 0 \
"  month  | orders | revenue | avg_items 
---------+--------+---------+-----------
 2024-01 |     72 | 8285.80 |      2.00
 2024-02 |     67 | 7577.70 |      2.01
 2024-03 |     72 | 8088.70 |      1.99
 2024-04 |     69 | 7653.10 |      1.99
 2024-05 |     73 | 8336.90 |      2.01
 2024-06 |      7 |  683.40 |      2.00
(6 rows)

rows that differ from the same report on the normalized tables: 0
done" "" -- tail -12 "$work/migration.out"

echo "bridge: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
