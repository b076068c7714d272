# A transaction that TRUNCATEs a cassette table and then INSERTs into it commits both as one step
# (ext/postgres/README.md, "Atomic commit"; engine/storage/FORMAT.md, "Transactions that
# TRUNCATE"): another process counting the table while a backend loops `BEGIN; TRUNCATE; INSERT
# 100 rows; COMMIT` never counts anything but 100, for in-memory and for spilled transactions
# (which cassette.debug_transaction_spill_bytes makes of a few rows). Before, the truncation was a
# manifest change and the rows a commit record or a second manifest change after it, and such a
# reader counted 0 between the two. Sourced by run.sh, with its server running and
# pass/fail/psql_q defined.

trunc_store=$PG_WORK_DIR/truncate_insert.cassette
psql_q <<SQL >/dev/null
CREATE EXTENSION IF NOT EXISTS cassette_fdw;
CREATE SERVER trunc FOREIGN DATA WRAPPER cassette_fdw OPTIONS (store '$trunc_store', create 'true');
SELECT cql('CREATE KEYSPACE k WITH replication = {''class'': ''SimpleStrategy'', ''replication_factor'': 1}', 'trunc');
SELECT cql('CREATE TABLE k.t (k int PRIMARY KEY, v text)', 'trunc');
CREATE SCHEMA trunc;
IMPORT FOREIGN SCHEMA k FROM SERVER trunc INTO trunc;
INSERT INTO trunc.t SELECT g, 'round 0' FROM generate_series(1, 100) g;
SQL
# Writer 1 commits in-memory transactions, then writer 2 spilled ones (its store opened after the
# SET). The reader is the `cassette` shell, another process on the store: a PostgreSQL backend
# would not do, as PostgreSQL's own lock of a TRUNCATEd table keeps its readers waiting until the
# commit is over. It counts the table over and over, each count the latest commit.
trunc_rounds=${TRUNC_ROUNDS:-60}
trunc_writer_script() {  # $1: the first round; $2: "spill" for spilled transactions
  if [ "$2" = spill ]; then echo "LOAD 'cassette_fdw'; SET cassette.debug_transaction_spill_bytes = 512;"; fi
  for i in $(seq "$1" $(($1 + trunc_rounds - 1))); do
    echo "BEGIN; TRUNCATE trunc.t;"
    echo "INSERT INTO trunc.t SELECT g, 'round $i' FROM generate_series(1, 100) g; COMMIT;"
  done
}
trunc_writer_script 1 memory >"$PG_ROOT/trunc_writer1.sql"
trunc_writer_script $((trunc_rounds + 1)) spill >"$PG_ROOT/trunc_writer2.sql"
for _ in $(seq 1 200); do echo "SELECT count(*), max(v) FROM k.t;"; done >"$PG_ROOT/trunc_reads.cql"
chmod 0644 "$PG_ROOT/trunc_reads.cql"
(
  for w in 1 2; do
    psql -X -q -At -v ON_ERROR_STOP=1 -d postgres -f "$PG_ROOT/trunc_writer$w.sql" || exit 1
  done
) >"$PG_ROOT/trunc_writer.out" 2>&1 &
trunc_writer=$!
: >"$PG_ROOT/trunc_reader.out"; : >"$PG_ROOT/trunc_reader.err"
while kill -0 $trunc_writer 2>/dev/null; do
  pg_run_as_postgres "$build_dir/cassette" "$trunc_store" --format csv -f "$PG_ROOT/trunc_reads.cql" \
    >>"$PG_ROOT/trunc_reader.out" 2>>"$PG_ROOT/trunc_reader.err"
done
wait $trunc_writer; trunc_ws=$?
# Lines "count,max": the counts other than 100, and the rounds seen of each kind.
trunc_wrong=$(grep -E '^[0-9]+,' "$PG_ROOT/trunc_reader.out" | grep -v '^100,' | sort | uniq -c | tr -s ' ' | head -5)
trunc_memory=$(grep -E '^100,round ' "$PG_ROOT/trunc_reader.out" | cut -d' ' -f2 | sort -un |
  awk -v n="$trunc_rounds" '$1 >= 1 && $1 <= n' | wc -l)
trunc_spilled=$(grep -E '^100,round ' "$PG_ROOT/trunc_reader.out" | cut -d' ' -f2 | sort -un |
  awk -v n="$trunc_rounds" '$1 > n' | wc -l)
# Anything else it printed: its header, and on standard error the warning of a count.
trunc_other=$(grep -vE '^[0-9]+,|^count,system\.max\(v\)$' "$PG_ROOT/trunc_reader.out" | head -3
  grep -vE '^Warnings :$|^Aggregation query used without partition key$|^$' "$PG_ROOT/trunc_reader.err" | head -3)
trunc_final=$(psql_q -c "SELECT count(*) || ' ' || min(v) || ' ' || max(v) FROM trunc.t")
# (It must have read during both writers: at least 5 rounds of each kind.)
if [ $trunc_ws -eq 0 ] && [ -z "$trunc_wrong" ] && [ -z "$trunc_other" ] &&
   [ "$trunc_memory" -ge 5 ] && [ "$trunc_spilled" -ge 5 ] &&
   [ "$trunc_final" = "100 round $((2 * trunc_rounds)) round $((2 * trunc_rounds))" ] &&
   [ ! -s "$PG_ROOT/trunc_writer.out" ]; then
  pass "another process never reads a table between a transaction's TRUNCATE and its INSERT ($trunc_memory + $trunc_spilled rounds seen)"
else
  echo "writers' exit code $trunc_ws; rounds seen: $trunc_memory in memory, $trunc_spilled spilled; final: $trunc_final"
  echo "counts other than 100 (how many, count, round):"; echo "$trunc_wrong"; echo "$trunc_other"
  head -5 "$PG_ROOT/trunc_writer.out"
  fail "another process never reads a table between a transaction's TRUNCATE and its INSERT"
fi
