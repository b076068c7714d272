# Atomic commit with PostgreSQL (ext/postgres/README.md, "Atomic commit"): sourced by run.sh,
# with its server running and pass/fail/psql_q defined. A transaction PostgreSQL aborts after
# the cassette writes were prepared leaves nothing in any store.

# The server's own cluster as a postgres_fdw server: a remote table whose deferred constraint
# fails the remote COMMIT, which postgres_fdw runs in its PRE_COMMIT callback.
psql_q -c "CREATE DATABASE remote" >/dev/null
psql -X -q -At -v ON_ERROR_STOP=1 -d remote -c \
  "CREATE TABLE t (k int UNIQUE DEFERRABLE INITIALLY DEFERRED); INSERT INTO t VALUES (1)" >/dev/null
atomic_a=$PG_WORK_DIR/atomic_a.cassette
atomic_b=$PG_WORK_DIR/atomic_b.cassette
psql_q <<SQL >/dev/null
CREATE EXTENSION IF NOT EXISTS cassette_fdw;
CREATE EXTENSION postgres_fdw;
CREATE SERVER loopback FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (dbname 'remote', host '$PGHOST', port '$PGPORT');
CREATE USER MAPPING FOR CURRENT_USER SERVER loopback OPTIONS (user 'postgres');
CREATE FOREIGN TABLE remote_t (k int) SERVER loopback OPTIONS (table_name 't');
CREATE SERVER atomic_a FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$atomic_a', create 'true');
CREATE SERVER atomic_b FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$atomic_b', create 'true');
SELECT cql('CREATE KEYSPACE k WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'atomic_a');
SELECT cql('CREATE TABLE k.kv (k int PRIMARY KEY, v text)', 'atomic_a');
SELECT cql('CREATE KEYSPACE k WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'atomic_b');
SELECT cql('CREATE TABLE k.kv (k int PRIMARY KEY, v text)', 'atomic_b');
CREATE SCHEMA atomic_a;
CREATE SCHEMA atomic_b;
IMPORT FOREIGN SCHEMA k FROM SERVER atomic_a INTO atomic_a;
IMPORT FOREIGN SCHEMA k FROM SERVER atomic_b INTO atomic_b;
SQL
atomic_rows() {  # the rows of schema $1's table, as a new backend reads them
  psql_q -c "SELECT string_agg(k || ',' || v, ' ' ORDER BY k) FROM $1.kv" 2>&1
}

# postgres_fdw's callback registers at its first connection and cassette_fdw's when it loads:
# the one registered last runs first, so cassette prepares before the remote COMMIT fails.
out=$(psql -X -q -At -d postgres 2>&1 <<'SQL'
SELECT count(*) FROM remote_t;
BEGIN;
INSERT INTO atomic_a.kv VALUES (1, 'lost');
INSERT INTO remote_t VALUES (1);
COMMIT;
SELECT 'after: ' || count(*) FROM atomic_a.kv;
SQL
)
if grep -q 'duplicate key value violates unique constraint' <<<"$out" &&
   grep -q '^after: 0$' <<<"$out" && [ -z "$(atomic_rows atomic_a)" ]; then
  pass "a transaction whose postgres_fdw COMMIT fails leaves no row in the store"
else
  echo "$out"; echo "store holds: $(atomic_rows atomic_a)"
  fail "a transaction whose postgres_fdw COMMIT fails leaves no row in the store"
fi

# Two stores: while another backend holds store b between its two phases for longer than the
# store's busy timeout (5 s; holding 12 s leaves a slow machine 7 s to get there), a transaction
# over a and b fails on b and writes a neither.
psql -X -q -At -d postgres >"$PG_ROOT/holder.out" 2>&1 <<'SQL' &
SET cassette.debug_pause_after_prepare = 12;
INSERT INTO atomic_b.kv VALUES (10, 'holder');
SQL
holder=$!
for _ in $(seq 1 100); do
  [ "$(psql_q -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")" = 1 ] && break
  sleep 0.1
done
out=$(psql -X -q -At -d postgres 2>&1 <<'SQL'
BEGIN;
INSERT INTO atomic_a.kv VALUES (2, 'both or neither');
INSERT INTO atomic_b.kv VALUES (2, 'both or neither');
COMMIT;
SQL
)
wait $holder
if grep -q 'busy' <<<"$out" && [ -z "$(atomic_rows atomic_a)" ] &&
   [ "$(atomic_rows atomic_b)" = "10,holder" ]; then
  pass "a transaction over two stores whose second is locked writes neither"
else
  echo "$out"; cat "$PG_ROOT/holder.out"
  echo "a: $(atomic_rows atomic_a) b: $(atomic_rows atomic_b)"
  fail "a transaction over two stores whose second is locked writes neither"
fi

# A backend killed between PRE_COMMIT and COMMIT: after crash recovery its transaction is
# aborted, and so is its prepared record, once the next backend writes the store.
psql -X -q -At -d postgres >"$PG_ROOT/killed.out" 2>&1 <<'SQL' &
SET cassette.debug_pause_after_prepare = 60;
BEGIN;
INSERT INTO atomic_a.kv VALUES (3, 'killed');
INSERT INTO atomic_b.kv VALUES (3, 'killed');
COMMIT;
SQL
killed_client=$!
victim=
for _ in $(seq 1 100); do
  victim=$(psql_q -c "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
  [ -n "$victim" ] && break
  sleep 0.1
done
[ -n "$victim" ] && kill -9 "$victim"
wait $killed_client
for _ in $(seq 1 100); do
  psql_q -c "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.2
done
before=$(atomic_rows atomic_a)
out=$(psql -X -q -At -d postgres 2>&1 <<'SQL'
INSERT INTO atomic_a.kv VALUES (4, 'after');
INSERT INTO atomic_b.kv VALUES (4, 'after');
SELECT k, v FROM atomic_a.kv ORDER BY k;
SELECT k, v FROM atomic_b.kv ORDER BY k;
SQL
)
expected=$'4|after\n4|after\n10|holder'
if [ -n "$victim" ] && [ -z "$before" ] && [ "$out" = "$expected" ]; then
  pass "a backend killed between PRE_COMMIT and COMMIT leaves no row after recovery"
else
  echo "victim: $victim; before: $before"; echo "$out"
  fail "a backend killed between PRE_COMMIT and COMMIT leaves no row after recovery"
fi

# A committed transaction over both stores: both see it, as the shell does.
psql_q -c "BEGIN; INSERT INTO atomic_a.kv VALUES (5, 'ok'); INSERT INTO atomic_b.kv VALUES (5, 'ok'); COMMIT" >/dev/null
if [ "$(atomic_rows atomic_a)" = "4,after 5,ok" ] &&
   [ "$(atomic_rows atomic_b)" = "4,after 5,ok 10,holder" ]; then
  pass "a transaction over two stores commits in both"
else
  echo "a: $(atomic_rows atomic_a) b: $(atomic_rows atomic_b)"
  fail "a transaction over two stores commits in both"
fi

# A backend killed between PRE_COMMIT and COMMIT, and no backend to write the store again: the
# shell refuses to write over the transaction in doubt until the operator decides it with
# `cassette resolve` (ext/cli/USAGE.md, "Transactions in doubt"). Nothing here reads the store
# through PostgreSQL before the decision: a backend opening it would decide it itself.
psql -X -q -At -d postgres >"$PG_ROOT/doubt.out" 2>&1 <<'SQL' &
SET cassette.debug_pause_after_prepare = 60;
INSERT INTO atomic_a.kv VALUES (6, 'in doubt');
SQL
doubt_client=$!
victim=
for _ in $(seq 1 100); do
  victim=$(psql_q -c "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
  [ -n "$victim" ] && break
  sleep 0.1
done
[ -n "$victim" ] && kill -9 "$victim"
wait $doubt_client
for _ in $(seq 1 100); do
  psql_q -c "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.2
done
system_id=$(psql_q -c "SELECT system_identifier FROM pg_control_system()")
listed=$(pg_run_as_postgres "$build_dir/cassette" resolve "$atomic_a" 2>&1)
refused=$(pg_run_as_postgres "$build_dir/cassette" "$atomic_a" \
          -e "INSERT INTO k.kv (k, v) VALUES (7, 'shell')" 2>&1)
unknown=$(pg_run_as_postgres "$build_dir/cassette" resolve "$atomic_a" commit "no such tag" 2>&1)
unknown_status=$?
aborted=$(pg_run_as_postgres "$build_dir/cassette" resolve "$atomic_a" abort "$listed" 2>&1)
after=$(pg_run_as_postgres "$build_dir/cassette" resolve "$atomic_a" 2>&1)
written=$(pg_run_as_postgres "$build_dir/cassette" "$atomic_a" \
          -e "INSERT INTO k.kv (k, v) VALUES (7, 'shell')" 2>&1)
if [ -n "$victim" ] && [[ "$listed" =~ ^"PostgreSQL cluster $system_id transaction "[0-9]+$ ]] &&
   grep -q "holds a transaction prepared by $listed whose writer stopped" <<<"$refused" &&
   [ "$unknown_status" = 1 ] &&
   [ "$unknown" = "cassette resolve: store $atomic_a holds no transaction in doubt prepared by no such tag" ] &&
   [ "$aborted" = "aborted $listed" ] && [ "$after" = "no transaction is in doubt in $atomic_a" ] &&
   [ -z "$written" ] && [ "$(atomic_rows atomic_a)" = "4,after 5,ok 7,shell" ]; then
  pass "cassette resolve lists a killed backend's transaction in doubt and aborts it"
else
  printf 'victim: %s\nlisted: %s\nrefused: %s\nunknown (%s): %s\naborted: %s\nafter: %s\n' \
    "$victim" "$listed" "$refused" "$unknown_status" "$unknown" "$aborted" "$after"
  echo "written: $written; rows: $(atomic_rows atomic_a)"
  fail "cassette resolve lists a killed backend's transaction in doubt and aborts it"
fi
