#!/usr/bin/env bash
# The PostgreSQL foreign-data wrapper's tests, against a throwaway PostgreSQL 15:
#   tests/postgres/run.sh BUILD_DIR
# 1. gives a throwaway server BUILD_DIR's cassette_fdw in a private copy of PostgreSQL's
#    directories (PostgreSQL's own stay untouched),
# 2. starts a private server (tests/lib/pg_throwaway.sh) and runs the pg_regress suite
#    sql/regress/sql/*.sql against sql/regress/expected/*.out, one test per file,
# 3. runs the multi-process tests: two backends writing and reading one store at once, and the
#    `cassette` shell and PostgreSQL sharing a store.
# A sanitizer build's server runs with the ASan runtime preloaded (tests/lib/sanitize.sh), so the
# wrapper's C and C++ code, the engine with it, is checked inside real backends; the suite also
# checks that it really is, and that the server's log holds no sanitizer report at the end.
# Prints "postgres: N passed, M failed" last.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
passed=0
failed=0
summary() { echo "postgres: $passed passed, $failed failed"; }
pass() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAILED: $1"; failed=$((failed + 1)); }

if [ ! -f "$build_dir/cassette_fdw.so" ]; then
  echo "no $build_dir/cassette_fdw.so: build the cassette_fdw target first"
  failed=1; summary; exit 1
fi
# The server gets this build's cassette_fdw in a private copy of PostgreSQL's directories
# (tests/lib/pg_throwaway.sh, PG_EXTENSION_BUILD): the system's stay untouched, so a sanitizer
# build (which loads only into a server with the ASan runtime preloaded) or two runs at once of
# different builds never meet.
source "$root/tests/lib/sanitize.sh"
sanitize_host_env "$build_dir" || { failed=1; summary; exit 1; }
unset LD_PRELOAD  # only the server needs it (psql is not instrumented and loads nothing of ours)
export PG_SERVER_ENV=$SANITIZE_HOST_ENV
export PG_EXTENSION_BUILD=$build_dir

source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start || { failed=1; summary; exit 1; }
PG_REGRESS=/usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress
out_dir=$PG_ROOT/regress
mkdir -p "$out_dir"
chmod 0777 "$out_dir"

psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 -d postgres "$@"; }

# ---- a sanitizer build: the backends run the instrumented cassette_fdw under ASan -------------
if sanitize_build "$build_dir"; then
  maps=$(psql_q -c "LOAD 'cassette_fdw'" -c "SELECT pg_read_file('/proc/self/maps')" 2>&1)
  if grep -Eq 'libclang_rt\.asan|libasan\.so' <<<"$maps" &&
     grep -q "$PG_ROOT/pg/lib/postgresql/15/lib/cassette_fdw.so" <<<"$maps"; then
    pass "a backend runs the sanitizer build's cassette_fdw with ASan"
  else
    grep -E 'asan|cassette|ERROR' <<<"$maps" | head -5
    fail "a backend runs the sanitizer build's cassette_fdw with ASan"
  fi
fi

# ---- pg_regress ----------------------------------------------------------------------------
export CASSETTE_STORE=$PG_WORK_DIR/regress.cassette
# sql/regress/schedule orders the tests (each builds on the ones before it).
tests=$(sed -n 's/^test: *//p' "$root/sql/regress/schedule")
psql -X -q -d postgres -c "CREATE DATABASE cassette_regress" >/dev/null
"$PG_REGRESS" --use-existing --bindir="$PG_BIN" --host="$PGHOST" --port="$PGPORT" \
    --user=postgres --dbname=cassette_regress --inputdir="$root/sql/regress" \
    --outputdir="$out_dir" --schedule="$root/sql/regress/schedule" >"$out_dir/pg_regress.log" 2>&1
cat "$out_dir/pg_regress.log"
for t in $tests; do
  if grep -Eq "^(test|ok [0-9]+ +-?) *$t +\.\.\. ok|^ok [0-9]+ +- +$t " "$out_dir/pg_regress.log"; then
    pass "regress $t"
  else
    fail "regress $t"
  fi
done
if [ -f "$out_dir/regression.diffs" ]; then cat "$out_dir/regression.diffs"; fi

cassette() { pg_run_as_postgres "$build_dir/cassette" "$@"; }

# ---- two backends writing and reading one store at once -----------------------------------------
conc_store=$PG_WORK_DIR/concurrent.cassette
psql_q <<SQL >/dev/null
CREATE EXTENSION IF NOT EXISTS cassette_fdw;
CREATE SERVER conc FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$conc_store', create 'true');
SELECT cql('CREATE KEYSPACE c WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'conc');
SELECT cql('CREATE TABLE c.log (writer int, seq int, payload text, PRIMARY KEY (writer, seq))', 'conc');
CREATE SCHEMA conc;
IMPORT FOREIGN SCHEMA c FROM SERVER conc INTO conc;
SQL
rows=300
writer_script() {  # one transaction per INSERT, each followed by a read of the whole table
  local w=$1
  for i in $(seq 1 $rows); do
    echo "INSERT INTO conc.log VALUES ($w, $i, 'writer $w row $i');"
    echo "SELECT count(*) >= $i FROM conc.log WHERE writer = $w;"
  done
  # one multi-row transaction too
  echo "BEGIN; INSERT INTO conc.log SELECT $w, g, 'batch' FROM generate_series($((rows + 1)), $((rows + 100))) g; COMMIT;"
}
writer_script 1 >"$PG_ROOT/w1.sql"
writer_script 2 >"$PG_ROOT/w2.sql"
# writer 3 commits 50 rows per transaction while a reader counts them: every count it sees must
# be a whole number of transactions (a commit is atomic for readers in other processes).
for t in $(seq 0 19); do
  echo "INSERT INTO conc.log SELECT 3, g, 'tx $t' FROM generate_series($((t * 50 + 1)), $((t * 50 + 50))) g;"
done >"$PG_ROOT/w3.sql"
for _ in $(seq 1 300); do echo "SELECT count(*) FROM conc.log WHERE writer = 3;"; done >"$PG_ROOT/r3.sql"
psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -f "$PG_ROOT/w1.sql" >"$PG_ROOT/w1.out" 2>&1 &
p1=$!
psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -f "$PG_ROOT/w2.sql" >"$PG_ROOT/w2.out" 2>&1 &
p2=$!
psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -f "$PG_ROOT/w3.sql" >"$PG_ROOT/w3.out" 2>&1 &
p3=$!
psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -f "$PG_ROOT/r3.sql" >"$PG_ROOT/r3.out" 2>&1 &
p4=$!
wait $p1; s1=$?
wait $p2; s2=$?
wait $p3; s3=$?
wait $p4; s4=$?
partial=$(awk '$1 % 50 != 0' "$PG_ROOT/r3.out" | head -3)
if [ $s3 -eq 0 ] && [ $s4 -eq 0 ] && [ -z "$partial" ] && [ "$(wc -l <"$PG_ROOT/r3.out")" -eq 300 ]; then
  pass "a reader never sees part of another backend's transaction ($(sort -un "$PG_ROOT/r3.out" | wc -l) distinct counts seen)"
else
  echo "exit codes $s3 $s4; partial counts: $partial"; head -5 "$PG_ROOT/w3.out" "$PG_ROOT/r3.out"
  fail "a reader never sees part of another backend's transaction"
fi
counts=$(psql_q -c "SELECT writer, count(*), count(DISTINCT seq) FROM conc.log GROUP BY writer ORDER BY writer")
expected=$(printf '1|%d|%d\n2|%d|%d\n3|1000|1000' $((rows + 100)) $((rows + 100)) $((rows + 100)) $((rows + 100)))
if [ $s1 -eq 0 ] && [ $s2 -eq 0 ] && [ "$counts" = "$expected" ] &&
   ! grep -qv '^t$' "$PG_ROOT/w1.out" && ! grep -qv '^t$' "$PG_ROOT/w2.out"; then
  pass "two backends write and read one store concurrently"
else
  echo "exit codes $s1 $s2; counts:"; echo "$counts"; echo "expected:"; echo "$expected"
  grep -v '^t$' "$PG_ROOT/w1.out" "$PG_ROOT/w2.out" | head -20
  fail "two backends write and read one store concurrently"
fi
# the store as the shell sees it afterwards
shell_count=$(cassette "$conc_store" --format csv -e "SELECT count(*) FROM c.log" 2>/dev/null | tail -1)
if [ "$shell_count" = "$((2 * (rows + 100) + 1000))" ]; then
  pass "the shell reads what two backends wrote"
else
  echo "shell says: $shell_count"; fail "the shell reads what two backends wrote"
fi

# ---- no lost update: concurrent read-modify-write UPDATEs ---------------------------------------
# Four pgbench clients each run 25 increments of one row. READ COMMITTED: each UPDATE waits for
# the row lock of a concurrent one and re-reads the row (fdw_scan.c, "row locks"). REPEATABLE
# READ: a conflicting COMMIT fails with 40001 and pgbench retries it (--max-tries).
PGBENCH=/usr/lib/postgresql/15/bin/pgbench
psql_q <<SQL >/dev/null
SELECT cql('CREATE TABLE c.kv (k int PRIMARY KEY, v text)', 'conc');
IMPORT FOREIGN SCHEMA c LIMIT TO (kv) FROM SERVER conc INTO conc;
INSERT INTO conc.kv VALUES (7, '0'), (8, '0');
SQL
echo "UPDATE conc.kv SET v = (v::int + 1)::text WHERE k = 7;" >"$PG_ROOT/increment_rc.sql"
printf '%s\n' "BEGIN ISOLATION LEVEL REPEATABLE READ;" \
  "UPDATE conc.kv SET v = (v::int + 1)::text WHERE k = 8;" "COMMIT;" >"$PG_ROOT/increment_rr.sql"
for level in rc rr; do
  key=$([ $level = rc ] && echo 7 || echo 8)
  out=$("$PGBENCH" -n -c 4 -t 25 --max-tries=1000 -f "$PG_ROOT/increment_$level.sql" postgres 2>&1)
  got=$(psql_q -c "SELECT v FROM conc.kv WHERE k = $key")
  if [ "$got" = 100 ]; then
    pass "4 clients x 25 increments under ${level^^} end at 100"
  else
    echo "$out" | tail -15; echo "value: $got"
    fail "4 clients x 25 increments under ${level^^} end at 100"
  fi
done
# An UPDATE waiting for a DELETE of its row skips it rather than bringing it back half empty.
psql_q -c "INSERT INTO conc.kv VALUES (9, 'nine')" >/dev/null
psql -X -q -d postgres >/dev/null 2>&1 <<SQL &
BEGIN;
DELETE FROM conc.kv WHERE k = 9;
SELECT pg_sleep(1);
COMMIT;
SQL
deleter=$!
for _ in $(seq 1 200); do  # until the DELETE is done and its transaction sleeps
  [ "$(psql_q -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")" = 1 ] && break
  sleep 0.1
done
updated=$(psql_q -c "UPDATE conc.kv SET v = v || '!' WHERE k = 9 RETURNING k" 2>&1)
wait $deleter
got=$(psql_q -c "SELECT count(*) FROM conc.kv WHERE k = 9")
if [ -z "$updated" ] && [ "$got" = 0 ]; then
  pass "an UPDATE racing a DELETE does not bring the row back"
else
  echo "updated: $updated; rows with k = 9: $got"; fail "an UPDATE racing a DELETE does not bring the row back"
fi
# A 20000-row UPDATE takes a table lock past its row lock limit, and so stays within the
# lock table of the default max_locks_per_transaction.
got=$(psql_q <<SQL 2>&1
INSERT INTO conc.kv SELECT g, '0' FROM generate_series(1000, 20999) g;
UPDATE conc.kv SET v = '1' WHERE k >= 1000;
SELECT count(*) FROM conc.kv WHERE v = '1' AND k >= 1000;
SQL
)
if [ "$got" = 20000 ]; then
  pass "a 20000-row UPDATE does not run out of lock table"
else
  echo "$got" | tail -3; fail "a 20000-row UPDATE does not run out of lock table"
fi

# ---- the shell and PostgreSQL share a store -----------------------------------------------------
shared=$PG_WORK_DIR/shared.cassette
cassette "$shared" -e "CREATE KEYSPACE s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
  CREATE TABLE s.kv (k int PRIMARY KEY, v text);
  INSERT INTO s.kv (k, v) VALUES (1, 'from the shell');" >/dev/null 2>&1
psql_q <<SQL >/dev/null
CREATE SERVER shared FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$shared');
CREATE SCHEMA shared;
IMPORT FOREIGN SCHEMA s FROM SERVER shared INTO shared;
INSERT INTO shared.kv VALUES (2, 'from postgres');
SQL
got=$(psql_q -c "SELECT k || '=' || v FROM shared.kv ORDER BY k" | tr '\n' ';')
shell_got=$(cassette "$shared" --format csv -e "SELECT k, v FROM s.kv" 2>&1 | sort | tr '\n' ';')
if [ "$got" = "1=from the shell;2=from postgres;" ] &&
   [ "$shell_got" = "1,from the shell;2,from postgres;k,v;" ]; then
  pass "shell and PostgreSQL see each other's writes"
else
  echo "psql: $got"; echo "shell: $shell_got"; fail "shell and PostgreSQL see each other's writes"
fi
# a backend keeps its store open while the shell writes and changes the schema
cassette "$shared" -e "UPDATE s.kv SET v = 'changed by the shell' WHERE k = 2;
  CREATE TABLE s.more (id int PRIMARY KEY, note text); INSERT INTO s.more (id, note) VALUES (7, 'new');" \
  >/dev/null 2>&1
got=$(psql_q <<SQL | tr '\n' ';'
SELECT v FROM shared.kv WHERE k = 2;
IMPORT FOREIGN SCHEMA s LIMIT TO (more) FROM SERVER shared INTO shared;
SELECT id || ':' || note FROM shared.more;
SQL
)
if [ "$got" = "changed by the shell;7:new;" ]; then
  pass "PostgreSQL sees the shell's updates and new tables"
else
  echo "psql: $got"; fail "PostgreSQL sees the shell's updates and new tables"
fi
# an SAI index with text analysis on SSTables the shell flushed: PostgreSQL's = and IN read its
# components with the values analyzed (EXPLAIN ANALYZE counts the index read), and keep the rows
# equal as written (main scanned: it looked for a component the index does not have)
cassette "$shared" -e "CREATE TABLE s.names (id int PRIMARY KEY, name text);
  INSERT INTO s.names (id, name) VALUES (1, 'Éclair'); INSERT INTO s.names (id, name) VALUES (2, 'ECLAIR');
  INSERT INTO s.names (id, name) VALUES (3, 'eclair'); INSERT INTO s.names (id, name) VALUES (4, 'other');
  CREATE CUSTOM INDEX names_name ON s.names (name) USING 'sai'
    WITH OPTIONS = {'case_sensitive': 'false', 'normalize': 'true', 'ascii': 'true'};
  FLUSH;" >/dev/null 2>&1
got=$(psql_q <<SQL | tr '\n' ';'
IMPORT FOREIGN SCHEMA s LIMIT TO (names) FROM SERVER shared INTO shared;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM shared.names WHERE name = 'eclair';
SELECT id FROM shared.names WHERE name = 'eclair';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT id FROM shared.names WHERE name IN ('ECLAIR', 'Éclair', 'other');
SELECT id FROM shared.names WHERE name IN ('ECLAIR', 'Éclair', 'other') ORDER BY id;
SQL
)
want="Foreign Scan on names (actual rows=1 loops=1);  Cassette Access: filtered scan on indexed (name);\
  Cassette Index Reads: 1;3;Foreign Scan on names (actual rows=3 loops=1);\
  Cassette Access: filtered scan on indexed (name);  Cassette Index Reads: 1;1;2;4;"
if [ "$got" = "$want" ]; then
  pass "PostgreSQL reads an SAI index with text analysis for = and IN"
else
  echo "psql: $got"; echo "want: $want"; fail "PostgreSQL reads an SAI index with text analysis for = and IN"
fi
# Scans reading some columns (values(...)) of rows in an SSTable the shell flushed and in newer
# writes of its log: each column alone is what the same column of whole rows is, with the rows
# live through a cell the scan does not read (written by UPDATE) and none whose only cell was
# deleted after the flush.
cassette "$shared" -e "CREATE TABLE s.cells (k int, c int, a text, b int, l list<int>, PRIMARY KEY (k, c));
  INSERT INTO s.cells (k, c, a, b, l) VALUES (1, 1, 'one', 10, [1]);
  INSERT INTO s.cells (k, c, a, b) VALUES (1, 2, 'two', 20);
  UPDATE s.cells SET b = 30 WHERE k = 1 AND c = 3;
  UPDATE s.cells SET a = 'four' WHERE k = 2 AND c = 1;
  FLUSH;
  DELETE b FROM s.cells WHERE k = 1 AND c = 3;
  DELETE a FROM s.cells WHERE k = 1 AND c = 2;
  UPDATE s.cells SET l = [5] WHERE k = 2 AND c = 2;
  UPDATE s.cells SET b = 11 WHERE k = 1 AND c = 1;" >/dev/null 2>&1
got=$(psql_q <<SQL | tr '\n' ';'
IMPORT FOREIGN SCHEMA s LIMIT TO (cells) FROM SERVER shared INTO shared;
EXPLAIN (VERBOSE, COSTS OFF) SELECT a FROM shared.cells;
SELECT string_agg(coalesce(a, '-'), ',' ORDER BY k, c) FROM shared.cells;
SELECT string_agg(coalesce(b::text, '-'), ',' ORDER BY k, c) FROM shared.cells;
SELECT string_agg(coalesce(l::text, '-'), ',' ORDER BY k, c) FROM shared.cells;
SELECT count(*) FROM shared.cells;
SELECT string_agg(concat_ws('/', (r).k, (r).c, coalesce((r).a, '-'), coalesce((r).b::text, '-'),
                            coalesce((r).l::text, '-')), ',' ORDER BY (r).k, (r).c)
  FROM (SELECT t AS r FROM shared.cells t OFFSET 0) w;
SQL
)
want="Foreign Scan on shared.cells;  Output: a;  Cassette Access: full scan;\
  Cassette Plan: scan values(a);  CQL Table: s.cells;one,-,four,-;11,20,-,-;{1},-,-,{5};4;1/1/one/11/{1},1/2/-/20/-,2/1/four/-/-,2/2/-/-/{5};"
if [ "$got" = "$want" ]; then
  pass "scans of some columns over an SSTable and newer writes return the columns of whole rows"
else
  echo "psql: $got"; echo "want: $want"
  fail "scans of some columns over an SSTable and newer writes return the columns of whole rows"
fi
# REPEATABLE READ: a shell commit between the transaction's UPDATE of a row (which read it) and
# its COMMIT fails the COMMIT with 40001, writing nothing (the shell's update is kept). (A shell
# commit before the UPDATE fails the UPDATE itself: isolation.sql shows it between sessions.)
shell_update=$(printf '%q ' "$build_dir/cassette" "$shared" -e "UPDATE s.kv SET v = 'shell again' WHERE k = 1")
if [ "$(id -un)" != postgres ]; then shell_update="su postgres -s /bin/bash -c $(printf '%q' "$shell_update")"; fi
err=$(psql -X -q -At -d postgres 2>&1 <<SQL
\\set VERBOSITY verbose
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM shared.kv WHERE k = 1;
UPDATE shared.kv SET v = v || ' and postgres' WHERE k = 1;
INSERT INTO shared.kv VALUES (5, 'never');
\\! $shell_update
COMMIT;
SQL
)
got=$(psql_q -c "SELECT k || '=' || v FROM shared.kv WHERE k IN (1, 5) ORDER BY k")
if [ "$(grep ERROR <<<"$err")" = "ERROR:  40001: could not serialize access due to concurrent update" ] &&
   [ "$got" = "1=shell again" ]; then
  pass "a shell commit between a REPEATABLE READ read and its COMMIT fails the COMMIT with 40001"
else
  echo "psql: $err"; echo "rows: $got"
  fail "a shell commit between a REPEATABLE READ read and its COMMIT fails the COMMIT with 40001"
fi
# READ COMMITTED and a base table with a view: each write computes its view rows from the base
# row committed when it ran, so a shell commit that changes that row before the COMMIT fails the
# COMMIT with 40001 (the view rows would be stale: an orphan view row), writing nothing; a
# transaction nobody interferes with commits, and the view matches its base table.
cassette "$shared" -e "CREATE TABLE s.users (id int PRIMARY KEY, city text);
  CREATE MATERIALIZED VIEW s.by_city AS SELECT city, id FROM s.users
    WHERE city IS NOT NULL AND id IS NOT NULL PRIMARY KEY (city, id);
  INSERT INTO s.users (id, city) VALUES (1, 'paris');" >/dev/null 2>&1
psql_q -c "IMPORT FOREIGN SCHEMA s LIMIT TO (users) FROM SERVER shared INTO shared" >/dev/null
shell_move=$(printf '%q ' "$build_dir/cassette" "$shared" -e "UPDATE s.users SET city = 'rome' WHERE id = 1")
if [ "$(id -un)" != postgres ]; then shell_move="su postgres -s /bin/bash -c $(printf '%q' "$shell_move")"; fi
err=$(psql -X -q -At -d postgres 2>&1 <<SQL
\\set VERBOSITY verbose
BEGIN ISOLATION LEVEL READ COMMITTED;
UPDATE shared.users SET city = 'oslo' WHERE id = 1;
\\! $shell_move
COMMIT;
SQL
)
psql_q -c "BEGIN; INSERT INTO shared.users VALUES (2, 'lima'); UPDATE shared.users SET city = 'kyiv' WHERE id = 2; COMMIT;" >/dev/null
got=$(cassette "$shared" --format csv -e "SELECT city, id FROM s.by_city; SELECT id, city FROM s.users" 2>&1 | tr '\n' ';')
if [ "$(grep ERROR <<<"$err")" = "ERROR:  40001: could not serialize access due to concurrent update" ] &&
   [ "$got" = "city,id;rome,1;kyiv,2;id,city;1,rome;2,kyiv;" ]; then
  pass "a READ COMMITTED write to a base table with a view fails its COMMIT with 40001 when the row changed since"
else
  echo "psql: $err"; echo "rows: $got"
  fail "a READ COMMITTED write to a base table with a view fails its COMMIT with 40001 when the row changed since"
fi
# an aborted transaction leaves nothing for the shell to see
psql -X -q -d postgres -c "BEGIN; INSERT INTO shared.kv VALUES (3, 'never'); ROLLBACK;" >/dev/null 2>&1
psql -X -q -d postgres -v ON_ERROR_STOP=1 >/dev/null 2>&1 <<SQL
BEGIN;
INSERT INTO shared.kv VALUES (4, 'never either');
SELECT 1 / 0;
COMMIT;
SQL
shell_got=$(cassette "$shared" --format csv -e "SELECT k FROM s.kv WHERE k IN (3, 4)" 2>&1 | tr '\n' ';')
if [ "$shell_got" = "k;" ]; then
  pass "aborted transactions write nothing"
else
  echo "shell: $shell_got"; fail "aborted transactions write nothing"
fi

# ---- row estimates before ANALYZE: the engine's statistics ---------------------------------------
# Without ANALYZE's statistics PostgreSQL gives  p = 2  its default selectivity (0.5%: 20 of 4000
# rows). A partition lookup takes the engine's estimate instead: pg-import flushes its rows to an
# SSTable, whose statistics count 4000 rows in 4 partitions. (After ANALYZE: pushdown.sql.)
est_store=$PG_WORK_DIR/estimates.cassette
cassette "$est_store" -e "CREATE KEYSPACE e WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
  CREATE TABLE e.t (p int, c int, v text, PRIMARY KEY (p, c));" >/dev/null 2>&1
cassette pg-import "$est_store" e.t "host=$PGHOST port=$PGPORT dbname=postgres user=postgres" \
  "SELECT p, c, 'x' AS v FROM generate_series(1, 4) p, generate_series(1, 1000) c" >/dev/null 2>&1
got=$(psql_q <<SQL 2>&1 | tr '\n' ';'
CREATE SERVER estimates FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$est_store');
CREATE SCHEMA estimates;
IMPORT FOREIGN SCHEMA e FROM SERVER estimates INTO estimates;
CREATE FUNCTION estimates.plan_rows(query text) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END \$\$;
SELECT estimates.plan_rows('SELECT * FROM estimates.t'),
       estimates.plan_rows('SELECT * FROM estimates.t WHERE p = 2'),
       estimates.plan_rows('SELECT * FROM estimates.t WHERE p IN (1, 2)'),
       estimates.plan_rows('SELECT * FROM estimates.t WHERE p = 2 AND v = ''y''');
SQL
)
if [ "$got" = "4000|1000|2000|5;" ]; then
  pass "before ANALYZE a partition lookup is estimated from the store's statistics"
else
  echo "estimates (all, p = 2, p IN (1, 2), p = 2 AND v = 'y'): $got"
  fail "before ANALYZE a partition lookup is estimated from the store's statistics"
fi

# ---- a store the server's user cannot write: read through foreign tables, writes refused -------
# The store belongs to root, mode 0755: `postgres` reads it but cannot write there. Every kind of
# write fails at its own statement, naming the store, and leaves the files as they were.
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED: read-only store (runs as root, to make a store that postgres cannot write)"
else
  ro_store=$PG_ROOT/readonly.cassette
  "$build_dir/cassette" "$ro_store" -e "CREATE KEYSPACE r WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
    CREATE TABLE r.kv (k int PRIMARY KEY, v text); INSERT INTO r.kv (k, v) VALUES (1, 'one');" >/dev/null
  # A record still in the commit log: the backend replays it into memory.
  "$build_dir/cassette" "$ro_store" -e "INSERT INTO r.kv (k, v) VALUES (2, 'two')" >/dev/null
  chmod -R a+rX,go-w "$ro_store"
  store_files() { find "$ro_store" -exec stat -c '%n %s %y %U %a' {} + | sort; }
  before=$(store_files)
  psql_q <<SQL >/dev/null
CREATE SERVER readonly FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$ro_store');
CREATE SCHEMA readonly;
IMPORT FOREIGN SCHEMA r FROM SERVER readonly INTO readonly;
SQL
  read_rows() { psql_q -c "SELECT k || '=' || v FROM readonly.kv ORDER BY k" 2>&1 | tr '\n' ';'; }
  got=$(read_rows)
  if [ "$got" = "1=one;2=two;" ]; then
    pass "a read-only store reads through foreign tables"
  else
    echo "psql: $got"; fail "a read-only store reads through foreign tables"
  fi
  refused="store $ro_store is read-only (its directory is not writable): nothing was written"
  for write in "INSERT INTO readonly.kv VALUES (3, 'three')" \
      "UPDATE readonly.kv SET v = 'uno' WHERE k = 1" "DELETE FROM readonly.kv WHERE k = 2" \
      "TRUNCATE readonly.kv" "SELECT cql('INSERT INTO r.kv (k, v) VALUES (3, ''three'')', 'readonly')" \
      "SELECT cql('CREATE TABLE r.more (k int PRIMARY KEY)', 'readonly')"; do
    # In a transaction block the statement itself fails (line 2), not the COMMIT after it.
    err=$(printf 'BEGIN;\n%s;\nCOMMIT;\n' "$write" | psql -X -q -d postgres -f - 2>&1 >/dev/null)
    if [ "$err" = "psql:<stdin>:2: ERROR:  $refused" ]; then
      pass "a read-only store refuses: $write"
    else
      echo "psql: $err"; fail "a read-only store refuses: $write"
    fi
  done
  got=$(read_rows)
  if [ "$got" = "1=one;2=two;" ] && [ "$(store_files)" = "$before" ]; then
    pass "refused writes change nothing in a read-only store"
  else
    echo "psql: $got"; diff <(echo "$before") <(store_files)
    fail "refused writes change nothing in a read-only store"
  fi
fi

# ---- atomic commit: a transaction PostgreSQL aborts after PRE_COMMIT leaves nothing ------------
source "$root/tests/postgres/atomic_commit.sh"

# ---- a spilled transaction through the two phases of the commit --------------------------------
source "$root/tests/postgres/spill_prepare.sh"

# ---- TRUNCATE and INSERT in one transaction: one step for readers in other processes ----------
source "$root/tests/postgres/truncate_insert.sh"

# ---- a sanitizer build: no report in the server's log -----------------------------------------
# A finding aborts the backend (the test that met it fails too); this names it. Leak reports are
# off inside postgres (sanitize.sh), which frees some memory only at exit, by design.
if sanitize_build "$build_dir"; then
  reports=$(grep -E -A30 'ERROR: AddressSanitizer|runtime error:' "$PG_ROOT/server.log" | head -80)
  if [ -z "$reports" ]; then
    pass "no sanitizer report in the server's log"
  else
    echo "$reports"; fail "no sanitizer report in the server's log"
  fi
fi

summary
[ "$failed" -eq 0 ]
