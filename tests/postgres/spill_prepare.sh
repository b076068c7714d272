# A PostgreSQL transaction whose cassette writes spilled to disk, through the two phases of its
# commit (ext/postgres/README.md, "Atomic commit"; docs/ARCHITECTURE.md, "Transactions larger
# than memory", layer 6): PRE_COMMIT merges the runs into SSTables that the prepared record lists,
# COMMIT installs them, an abort after PRE_COMMIT or a backend killed between the two removes
# them. Sourced by run.sh after atomic_commit.sh (its loopback postgres_fdw table remote_t).
# cassette.debug_transaction_spill_bytes makes a few thousand rows spill.

spill_store=$PG_WORK_DIR/spill_prepare.cassette
psql_q <<SQL >/dev/null
CREATE SERVER spill_prepare FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$spill_store', create 'true');
SELECT cql('CREATE KEYSPACE k WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'spill_prepare');
SELECT cql('CREATE TABLE k.big (p int, c int, v text, PRIMARY KEY (p, c))', 'spill_prepare');
CREATE SCHEMA spill_prepare;
IMPORT FOREIGN SCHEMA k FROM SERVER spill_prepare INTO spill_prepare;
INSERT INTO spill_prepare.big VALUES (0, 0, 'before');
SQL
spill_rows() {  # count, and count of v = 'spilled', as a new backend reads them
  psql_q -c "SELECT count(*) || ' ' || count(*) FILTER (WHERE v LIKE 'spilled%') FROM spill_prepare.big" 2>&1
}
spill_files() {  # the store's SSTables and spill runs in data/
  echo "$(ls "$spill_store/data" | grep -c '\.sst$') sst, $(ls "$spill_store/data" | grep -c '\.run$') runs"
}
spill_paused() {  # the pid of the backend sleeping after PRE_COMMIT, once there is one
  local pid=
  for _ in $(seq 1 300); do
    pid=$(psql_q -c "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
    [ -n "$pid" ] && break
    sleep 0.1
  done
  echo "$pid"
}
# 5000 rows of ~220 bytes, 40 partitions: over 100 runs at a 16 kB threshold.
spill_insert="SET cassette.debug_transaction_spill_bytes = 16384;
BEGIN;
INSERT INTO spill_prepare.big SELECT i % 40 + 1, i, 'spilled ' || lpad(i::text, 200, '0')
FROM generate_series(1, 5000) AS i;
UPDATE spill_prepare.big SET v = 'spilled and updated' WHERE p = 7 AND c < 100;"
files_before=$(spill_files)
sst_before=${files_before%% *}

# Committed: while it waits between the two phases its rows are prepared SSTables (its runs are
# gone), invisible to other backends; after COMMIT everyone reads them.
psql -X -q -At -d postgres >"$PG_ROOT/spill_commit.out" 2>&1 <<SQL &
$spill_insert
SET cassette.debug_pause_after_prepare = 3;
COMMIT;
SQL
spill_client=$!
paused=$(spill_paused)
during_files=$(spill_files)
during_rows=$(spill_rows)
wait $spill_client
after_rows=$(spill_rows)
updated=$(psql_q -c "SELECT count(*) FROM spill_prepare.big WHERE v = 'spilled and updated'")
shell_rows=$(pg_run_as_postgres "$build_dir/cassette" "$spill_store" -e "SELECT count(*) FROM k.big" 2>&1 | tr -d ' ' | grep -E '^[0-9]+$')
if [ -n "$paused" ] && [ "${files_before#* }" = "sst, 0 runs" ] &&
   [ "$during_files" = "$((sst_before + 1)) sst, 0 runs" ] && [ "$during_rows" = "1 0" ] &&
   [ "$after_rows" = "5001 5000" ] && [ "$updated" = 3 ] && [ "$shell_rows" = 5001 ] &&
   [ ! -s "$PG_ROOT/spill_commit.out" ]; then
  pass "a spilled transaction is prepared as SSTables its COMMIT installs"
else
  echo "paused: $paused; files before: $files_before, during: $during_files"
  echo "rows during: $during_rows, after: $after_rows, updated: $updated, shell: $shell_rows"
  cat "$PG_ROOT/spill_commit.out"
  fail "a spilled transaction is prepared as SSTables its COMMIT installs"
fi

# Aborted after PRE_COMMIT (the remote COMMIT fails): nothing, and its SSTables are gone.
files_before=$(spill_files)
out=$(psql -X -q -At -d postgres 2>&1 <<SQL
SELECT count(*) FROM remote_t;
$spill_insert
INSERT INTO remote_t VALUES (1);
COMMIT;
SQL
)
if grep -q 'duplicate key value violates unique constraint' <<<"$out" &&
   [ "$(spill_rows)" = "5001 5000" ] && [ "$(spill_files)" = "$files_before" ]; then
  pass "a spilled transaction aborted after PRE_COMMIT leaves no row and no file"
else
  echo "$out"; echo "rows: $(spill_rows); files before: $files_before, after: $(spill_files)"
  fail "a spilled transaction aborted after PRE_COMMIT leaves no row and no file"
fi

# A backend killed between PRE_COMMIT and COMMIT: in doubt, its SSTables kept (no orphans) until
# the next backend that writes decides it from PostgreSQL's outcome (aborted) and removes them.
psql -X -q -At -d postgres >"$PG_ROOT/spill_killed.out" 2>&1 <<SQL &
$spill_insert
SET cassette.debug_pause_after_prepare = 60;
COMMIT;
SQL
spill_client=$!
victim=$(spill_paused)
[ -n "$victim" ] && kill -9 "$victim"
wait $spill_client
for _ in $(seq 1 100); do
  psql_q -c "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.2
done
in_doubt_files=$(spill_files)
listed=$(pg_run_as_postgres "$build_dir/cassette" resolve "$spill_store" 2>&1)
out=$(psql_q -c "INSERT INTO spill_prepare.big VALUES (0, 1, 'after')" 2>&1)
if [ -n "$victim" ] && [ "$in_doubt_files" = "$(( ${files_before%% *} + 1 )) sst, 0 runs" ] &&
   [[ "$listed" =~ ^"PostgreSQL cluster "[0-9]+" transaction "[0-9]+$ ]] && [ -z "$out" ] &&
   [ "$(spill_rows)" = "5002 5000" ] && [ "$(spill_files)" = "$files_before" ]; then
  pass "a backend killed between the phases of a spilled transaction: its SSTables go at the abort"
else
  echo "victim: $victim; files before: $files_before, in doubt: $in_doubt_files, after: $(spill_files)"
  echo "listed: $listed"; echo "$out"; echo "rows: $(spill_rows)"
  fail "a backend killed between the phases of a spilled transaction: its SSTables go at the abort"
fi
