// txn::Transaction with CQL statements run inside it (Session::execute with a transaction):
// writes buffered until commit, seen by the transaction's own reads, undone by savepoints, and
// committed as one store transaction; statements a transaction cannot hold are refused.
#include "engine/txn/transaction.h"

#include <doctest/doctest.h>

#include "engine/codec/table_codec.h"
#include "engine/cql/parser.h"
#include "engine/cql/view_maintenance.h"
#include "engine/types/byte_comparable.h"
#include "tests/unit/cql_test_fixture.h"

using cassette::test::CqlFixture;
using cassette::test::Rows;

namespace cassette {

namespace {

class TransactionFixture : public CqlFixture {
 public:
  TransactionFixture() : transaction_(store_.get()) {
    ok("CREATE TABLE t (a int, b int, v text, PRIMARY KEY (a, b))");
  }

  // Runs `statement` inside the transaction.
  Result<cql::ExecutionResult> in_transaction(std::string_view statement) {
    CASSETTE_ASSIGN_OR_RETURN(cql::Statement parsed, cql::parse_statement(statement));
    return session_->execute(parsed, &transaction_);
  }
  void ok_in(std::string_view statement) {
    auto r = in_transaction(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  }
  std::string error_in(std::string_view statement) {
    auto r = in_transaction(statement);
    INFO(statement);
    REQUIRE(!r.is_ok());
    return r.status().message();
  }
  // Rows of a SELECT run inside the transaction, as "v1|v2".
  Rows rows_in(std::string_view statement) {
    auto r = in_transaction(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return lines(r->rows);
  }
  storage::SequenceNumber sequence() { return store_->snapshot().value()->seq; }
  // The overlay stamps the transaction's rows just above the clock: the manual clock must have
  // moved past the timestamps the store gave the committed rows (a real clock has).
  void tick() { clock_.advance_seconds(1); }

 protected:
  txn::Transaction transaction_;
};

}  // namespace

TEST_CASE_FIXTURE(TransactionFixture, "txn: CQL writes wait for the commit, and are read inside") {
  ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'committed')");
  ok("INSERT INTO t (a, b, v) VALUES (1, 3, 'other')");
  tick();
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'pending')");
  ok_in("UPDATE t SET v = 'changed' WHERE a = 1 AND b = 1");
  CHECK(rows("SELECT b, v FROM t WHERE a = 1") == Rows{"1|committed", "3|other"});
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1") == Rows{"1|changed", "2|pending", "3|other"});
  CHECK(rows_in("SELECT count(*) FROM t") == Rows{"3"});

  const storage::SequenceNumber before = sequence();
  REQUIRE(transaction_.commit().is_ok());
  CHECK(sequence() == before + 1);  // one store transaction: one commit-log record
  CHECK(transaction_.empty());
  CHECK(rows("SELECT b, v FROM t WHERE a = 1") == Rows{"1|changed", "2|pending", "3|other"});
  // One timestamp for the whole transaction, above the committed row's.
  const Rows times = rows("SELECT writetime(v) FROM t WHERE a = 1");
  REQUIRE(times.size() == 3);
  CHECK(times[0] == times[1]);
  CHECK(times[1] > times[2]);
}

TEST_CASE_FIXTURE(TransactionFixture, "txn: rollback_to and clear undo the CQL writes") {
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'kept')");
  transaction_.savepoint(0);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'undone')");
  ok_in("DELETE FROM t WHERE a = 1 AND b = 1");
  CHECK(rows_in("SELECT b, v FROM t") == Rows{"2|undone"});
  transaction_.rollback_to(0);
  CHECK(rows_in("SELECT b, v FROM t") == Rows{"1|kept"});
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT b, v FROM t") == Rows{"1|kept"});

  ok_in("INSERT INTO t (a, b, v) VALUES (2, 1, 'dropped')");
  transaction_.clear();
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT count(*) FROM t WHERE a = 2") == Rows{"0"});
}

TEST_CASE_FIXTURE(TransactionFixture, "txn: partition and range deletions fold and commit") {
  ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
  ok("INSERT INTO t (a, b, v) VALUES (1, 2, 'y')");
  ok("INSERT INTO t (a, b, v) VALUES (1, 3, 'z')");
  ok("INSERT INTO t (a, b, v) VALUES (2, 1, 'w')");
  tick();
  ok_in("DELETE FROM t WHERE a = 1 AND b >= 3");
  ok_in("DELETE FROM t WHERE a = 1 AND b <= 1");  // a second header for the partition: merged
  ok_in("DELETE FROM t WHERE a = 2");
  CHECK(rows_in("SELECT a, b, v FROM t") == Rows{"1|2|y"});
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT a, b, v FROM t") == Rows{"1|2|y"});
}

TEST_CASE_FIXTURE(TransactionFixture,
                  "txn: a deletion shadows the transaction's writes it covers") {
  // The transaction's writes share one timestamp, at which a partition or range deletion wins
  // (as in a CQL BATCH): the rows written before and after the DELETE are deleted, in the
  // transaction's reads (however the clock moved between its statements) and after the commit.
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'before')");
  tick();
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1") == Rows{"2|before"});
  tick();
  ok_in("DELETE FROM t WHERE a = 1");
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1").empty());
  tick();
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'after')");
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1").empty());
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT b, v FROM t WHERE a = 1").empty());
}

TEST_CASE_FIXTURE(TransactionFixture, "txn: counters add up; collections gain every element") {
  ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  ok("CREATE TABLE s (k int PRIMARY KEY, tags set<text>, l list<int>)");
  ok("UPDATE c SET n = n + 5 WHERE k = 1");
  tick();
  ok_in("UPDATE c SET n = n + 1 WHERE k = 1");
  ok_in("UPDATE c SET n = n + 2 WHERE k = 1");
  ok_in("UPDATE s SET tags = tags + {'a'}, l = l + [1] WHERE k = 1");
  ok_in("UPDATE s SET tags = tags + {'b'}, l = l + [2] WHERE k = 1");
  CHECK(rows_in("SELECT n FROM c WHERE k = 1") == Rows{"8"});
  CHECK(rows_in("SELECT tags, l FROM s WHERE k = 1") == Rows{"{'a', 'b'}|[1, 2]"});
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT n FROM c WHERE k = 1") == Rows{"8"});
  CHECK(rows("SELECT tags, l FROM s WHERE k = 1") == Rows{"{'a', 'b'}|[1, 2]"});
}

TEST_CASE_FIXTURE(TransactionFixture, "txn: what a transaction cannot hold is refused") {
  CHECK(error_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'x') IF NOT EXISTS") ==
        "A conditional statement (IF ...) cannot run inside a SQL transaction; COMMIT first");
  CHECK(error_in("UPDATE t SET v = 'x' WHERE a = 1 AND b = 1 IF EXISTS") ==
        "A conditional statement (IF ...) cannot run inside a SQL transaction; COMMIT first");
  CHECK(error_in("DELETE FROM t WHERE a = 1 AND b = 1 IF v = 'x'") ==
        "A conditional statement (IF ...) cannot run inside a SQL transaction; COMMIT first");
  CHECK(error_in("CREATE TABLE u (k int PRIMARY KEY)") ==
        "CREATE TABLE cannot run inside a SQL transaction; COMMIT first");
  CHECK(error_in("TRUNCATE t") == "TRUNCATE cannot run inside a SQL transaction; COMMIT first");
  CHECK(error_in("DROP KEYSPACE ks") ==
        "DROP KEYSPACE cannot run inside a SQL transaction; COMMIT first");
  CHECK(transaction_.empty());
  CHECK(rows("SELECT count(*) FROM t") == Rows{"0"});
}

TEST_CASE_FIXTURE(TransactionFixture, "txn: a failed statement buffers nothing") {
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
  CHECK(error_in("BEGIN BATCH INSERT INTO t (a, b, v) VALUES (1, 2, 'y'); "
                 "INSERT INTO t (a, b, v) VALUES (1, 'no', 'z'); APPLY BATCH") ==
        "Invalid STRING constant (no) for \"b\" of type int");
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1") == Rows{"1|x"});
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT b, v FROM t WHERE a = 1") == Rows{"1|x"});
}

TEST_CASE_FIXTURE(TransactionFixture,
                  "txn: read_view(s) sees the statements before s; later statements win") {
  ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'committed')");
  tick();
  transaction_.set_statement(5);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'statement 5')");
  transaction_.set_statement(7);
  ok_in("UPDATE t SET v = 'statement 7' WHERE a = 1 AND b = 1");
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 3, 'statement 7')");
  const storage::TableId t = session_->catalog().current().value()->find_table("ks", "t")->table_id;
  auto rows_before = [&](txn::StatementId s) {  // the rows of t that read_view(s) holds
    auto view = transaction_.read_view(s);
    REQUIRE(view.is_ok());
    auto cursor = store_->read(*view.value(), t, storage::Store::range_spec({}));
    size_t n = 0;
    while (cursor->next()) ++n;
    return n;
  };
  CHECK(rows_before(5) == 1);
  CHECK(rows_before(7) == 2);
  CHECK(rows_before(8) == 3);
  CHECK(rows_before(6) == 2);  // an older view again
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1") ==
        Rows{"1|statement 7", "2|statement 5", "3|statement 7"});
  // The same cell written again by a later statement: the later one wins at commit.
  transaction_.set_statement(9);
  ok_in("UPDATE t SET v = 'statement 9' WHERE a = 1 AND b = 2");
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT b, v FROM t WHERE a = 1") ==
        Rows{"1|statement 7", "2|statement 9", "3|statement 7"});
}

TEST_CASE_FIXTURE(TransactionFixture,
                  "txn: a TRUNCATE drops committed rows and earlier writes; commits atomically") {
  ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'committed')");
  REQUIRE(store_->flush().is_ok());
  ok("INSERT INTO t (a, b, v) VALUES (1, 2, 'committed, in the memtable')");
  ok("CREATE TABLE u (k int PRIMARY KEY, v text)");
  ok("INSERT INTO u (k, v) VALUES (1, 'other table')");
  tick();
  std::shared_ptr<const schema::TableDef> t =
      session_->catalog().current().value()->find_table("ks", "t");
  ok_in("INSERT INTO t (a, b, v) VALUES (2, 1, 'before truncate')");
  transaction_.savepoint(0);
  REQUIRE(transaction_.truncate(t, transaction_.next_statement()).is_ok());
  CHECK(rows_in("SELECT a, b, v FROM t") == Rows{});
  CHECK(rows_in("SELECT k, v FROM u") == Rows{"1|other table"});
  ok_in("INSERT INTO t (a, b, v) VALUES (3, 1, 'after truncate')");
  CHECK(rows_in("SELECT a, b, v FROM t") == Rows{"3|1|after truncate"});
  transaction_.rollback_to(0);  // the TRUNCATE is undone with the savepoint
  CHECK(rows_in("SELECT a, b, v FROM t") ==
        Rows{"1|1|committed", "1|2|committed, in the memtable", "2|1|before truncate"});
  REQUIRE(transaction_.truncate(t, transaction_.next_statement()).is_ok());
  ok_in("INSERT INTO t (a, b, v) VALUES (3, 1, 'after truncate')");
  CHECK(rows("SELECT count(*) FROM t") == Rows{"2"});  // nothing happened outside yet

  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT a, b, v FROM t") == Rows{"3|1|after truncate"});
  CHECK(rows("SELECT k, v FROM u") == Rows{"1|other table"});
}

namespace {

// Two transactions on one store under snapshot isolation: `transaction_` (A) and `other_` (B).
class ConflictFixture : public TransactionFixture {
 public:
  ConflictFixture() : other_(store_.get()) {
    transaction_.set_isolation(txn::Transaction::Isolation::kSnapshot);
    other_.set_isolation(txn::Transaction::Isolation::kSnapshot);
    ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
    ok("INSERT INTO t (a, b, v) VALUES (1, 2, 'y')");
    tick();
  }

  Rows rows_in_other(std::string_view statement) {
    auto parsed = cql::parse_statement(statement);
    REQUIRE(parsed.is_ok());
    auto r = session_->execute(*parsed, &other_);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return lines(r->rows);
  }
  // What a host records for an UPDATE or DELETE of row (a, b) of t: read, then written.
  static void record(txn::Transaction& transaction, cql::Session& session, int a, int b) {
    auto table = session.catalog().current().value()->find_table("ks", "t");
    REQUIRE(table != nullptr);
    const schema::KeyLayout& layout = table->layout();
    std::string clustering;
    const std::vector<std::string> parts{int32(b)};
    REQUIRE(types::encode_clustering(layout.clustering_types, layout.clustering_orders(), parts,
                                     &clustering)
                .is_ok());
    transaction.add_conflict_key(table, cql::partition_key_bytes(std::vector{int32(a)}), false,
                                 clustering);
  }
  static std::string int32(int v) {
    std::string bytes(4, '\0');
    for (int i = 0; i < 4; ++i) bytes[3 - i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return bytes;
  }

 protected:
  txn::Transaction other_;
};

const char* const kConflict =
    "could not serialize access due to a concurrent update of ks.t (key 1); the transaction was "
    "rolled back: retry it";

}  // namespace

TEST_CASE_FIXTURE(ConflictFixture, "txn: the second of two read-then-write commits fails") {
  // The lost update: both read v, both write it; the second commit would overwrite the first.
  CHECK(rows_in("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"x"});
  CHECK(rows_in_other("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"x"});
  rows_in_other("UPDATE t SET v = 'x+b' WHERE a = 1 AND b = 1");
  record(other_, session(), 1, 1);
  REQUIRE(other_.commit().is_ok());
  tick();
  ok_in("UPDATE t SET v = 'x+a' WHERE a = 1 AND b = 1");
  record(transaction_, session(), 1, 1);
  const Status s = transaction_.commit();
  CHECK(s.is_serialization_failure());
  CHECK(s.message() == kConflict);
  CHECK(transaction_.empty());
  CHECK(!transaction_.snapshot_pinned());
  CHECK(rows("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"x+b"});  // nothing written
  // The retry reads a new snapshot and commits.
  CHECK(rows_in("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"x+b"});
  ok_in("UPDATE t SET v = 'x+b+a' WHERE a = 1 AND b = 1");
  record(transaction_, session(), 1, 1);
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"x+b+a"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: read-then-write commits of different rows both commit") {
  rows_in("SELECT v FROM t WHERE a = 1");
  rows_in_other("SELECT v FROM t WHERE a = 1");
  rows_in_other("UPDATE t SET v = 'b' WHERE a = 1 AND b = 2");
  record(other_, session(), 1, 2);
  REQUIRE(other_.commit().is_ok());
  ok_in("UPDATE t SET v = 'a' WHERE a = 1 AND b = 1");
  record(transaction_, session(), 1, 1);
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT b, v FROM t WHERE a = 1") == Rows{"1|a", "2|b"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: a blind write never conflicts") {
  rows_in("SELECT v FROM t WHERE a = 1");
  ok("UPDATE t SET v = 'other' WHERE a = 1 AND b = 1");
  tick();
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'blind')");  // no key: Cassandra's upsert
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"blind"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: a deletion racing an update conflicts") {
  rows_in("SELECT v FROM t WHERE a = 1 AND b = 1");
  ok("DELETE FROM t WHERE a = 1 AND b = 1");
  tick();
  ok_in("UPDATE t SET v = 'updated' WHERE a = 1 AND b = 1");
  record(transaction_, session(), 1, 1);
  CHECK(transaction_.commit().message() == kConflict);
  CHECK(rows("SELECT count(*) FROM t WHERE a = 1 AND b = 1") == Rows{"0"});

  // And the other way round: a row deleted in a transaction, updated by a commit in between.
  rows_in("SELECT v FROM t WHERE a = 1 AND b = 2");
  ok("UPDATE t SET v = 'changed' WHERE a = 1 AND b = 2");
  tick();
  ok_in("DELETE FROM t WHERE a = 1 AND b = 2");
  record(transaction_, session(), 1, 2);
  CHECK(transaction_.commit().message() == kConflict);
  CHECK(rows("SELECT v FROM t WHERE a = 1 AND b = 2") == Rows{"changed"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: a pinned snapshot does not see a later commit") {
  CHECK(rows_in("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"x"});
  CHECK(transaction_.snapshot_pinned());
  ok("UPDATE t SET v = 'later' WHERE a = 1 AND b = 1");
  ok("INSERT INTO t (a, b, v) VALUES (1, 3, 'new')");
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1") == Rows{"1|x", "2|y"});
  transaction_.clear();  // a rollback releases it
  CHECK(rows_in("SELECT b, v FROM t WHERE a = 1") == Rows{"1|later", "2|y", "3|new"});

  // Per statement (PostgreSQL's READ COMMITTED): each read sees the latest commit.
  transaction_.clear();
  transaction_.set_isolation(txn::Transaction::Isolation::kPerStatement);
  CHECK(rows_in("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"later"});
  CHECK(!transaction_.snapshot_pinned());
  ok("UPDATE t SET v = 'latest' WHERE a = 1 AND b = 1");
  CHECK(rows_in("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"latest"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: a write with an older timestamp is no conflict") {
  rows_in("SELECT v FROM t WHERE a = 1 AND b = 1");
  ok("UPDATE t USING TIMESTAMP 1 SET v = 'lost' WHERE a = 1 AND b = 1");  // loses to 'x'
  ok_in("UPDATE t SET v = 'mine' WHERE a = 1 AND b = 1");
  record(transaction_, session(), 1, 1);
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"mine"});
}

TEST_CASE_FIXTURE(ConflictFixture,
                  "txn: check_row_unchanged tells a row changed since the snapshot") {
  // PostgreSQL's row locks: after waiting for another writer, a REPEATABLE READ transaction asks
  // whether the row still reads as its snapshot has it, before its commit.
  auto table = session().catalog().current().value()->find_table("ks", "t");
  REQUIRE(table != nullptr);
  const std::string key = cql::partition_key_bytes(std::vector{int32(1)});
  std::string row1, row2;
  const schema::KeyLayout& layout = table->layout();
  REQUIRE(types::encode_clustering(layout.clustering_types, layout.clustering_orders(),
                                   std::vector<std::string>{int32(1)}, &row1)
              .is_ok());
  REQUIRE(types::encode_clustering(layout.clustering_types, layout.clustering_orders(),
                                   std::vector<std::string>{int32(2)}, &row2)
              .is_ok());
  // No snapshot pinned yet: nothing to compare with.
  CHECK(transaction_.check_row_unchanged(table, key, false, row1).is_ok());
  rows_in("SELECT v FROM t WHERE a = 1");
  CHECK(transaction_.check_row_unchanged(table, key, false, row1).is_ok());
  ok("UPDATE t SET v = 'other' WHERE a = 1 AND b = 1");
  tick();
  const Status s = transaction_.check_row_unchanged(table, key, false, row1);
  CHECK(s.is_serialization_failure());
  CHECK(s.message() == kConflict);
  CHECK(transaction_.check_row_unchanged(table, key, false, row2).is_ok());  // another row
  CHECK(transaction_.check_row_unchanged(table, key, true, "").is_ok());     // the static row
  ok("DELETE FROM t WHERE a = 1 AND b = 2");
  tick();
  CHECK(transaction_.check_row_unchanged(table, key, false, row2).is_serialization_failure());
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: rolling back to a savepoint drops its conflict keys") {
  rows_in("SELECT v FROM t WHERE a = 1");
  ok_in("UPDATE t SET v = 'kept' WHERE a = 1 AND b = 2");
  record(transaction_, session(), 1, 2);
  transaction_.savepoint(0);
  ok_in("UPDATE t SET v = 'undone' WHERE a = 1 AND b = 1");
  record(transaction_, session(), 1, 1);
  CHECK(transaction_.conflict_key_count() == 2);
  transaction_.rollback_to(0);
  CHECK(transaction_.conflict_key_count() == 1);
  ok("UPDATE t SET v = 'other' WHERE a = 1 AND b = 1");  // row 1 no longer written here
  tick();
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT b, v FROM t WHERE a = 1") == Rows{"1|other", "2|kept"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: a CQL list index write reads the list: a key") {
  ok("CREATE TABLE l (k int PRIMARY KEY, l list<text>)");
  ok("INSERT INTO l (k, l) VALUES (1, ['a', 'b', 'c'])");
  tick();
  // B deletes the element A sets by index: A's write would bring 'b' back under its old path.
  ok_in("UPDATE l SET l[1] = 'B' WHERE k = 1");
  CHECK(transaction_.conflict_key_count() == 1);
  ok("DELETE l[1] FROM l WHERE k = 1");
  tick();
  CHECK(transaction_.commit().is_serialization_failure());
  CHECK(rows("SELECT l FROM l WHERE k = 1") == Rows{"['a', 'c']"});

  // DELETE l[i] and l = l - [...] read the list too; a blind append records nothing.
  ok_in("DELETE l[0] FROM l WHERE k = 1");
  ok_in("UPDATE l SET l = l - ['c'] WHERE k = 1");
  ok_in("UPDATE l SET l = l + ['d'] WHERE k = 1");
  CHECK(transaction_.conflict_key_count() == 2);
  ok("UPDATE l SET l[0] = 'A' WHERE k = 1");
  tick();
  CHECK(transaction_.commit().message() ==
        "could not serialize access due to a concurrent update of ks.l (key 1); the transaction "
        "was rolled back: retry it");
  CHECK(rows("SELECT l FROM l WHERE k = 1") == Rows{"['A', 'c']"});

  // Without a change in between, the same read-modify-write commits.
  ok_in("BEGIN BATCH UPDATE l SET l[1] = 'C' WHERE k = 1; APPLY BATCH");
  CHECK(transaction_.conflict_key_count() == 1);
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT l FROM l WHERE k = 1") == Rows{"['A', 'C']"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: counter increments are deltas and never conflict") {
  ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  ok("UPDATE c SET n = n + 1 WHERE k = 1");
  tick();
  rows_in("SELECT n FROM c WHERE k = 1");
  ok_in("UPDATE c SET n = n + 10 WHERE k = 1");
  auto table = session().catalog().current().value()->find_table("ks", "c");
  transaction_.add_conflict_key(table, cql::partition_key_bytes(std::vector{int32(1)}), false, "");
  CHECK(transaction_.conflict_key_count() == 0);
  ok("UPDATE c SET n = n + 100 WHERE k = 1");
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT n FROM c WHERE k = 1") == Rows{"111"});
}

TEST_CASE_FIXTURE(ConflictFixture, "txn: a host's row write keeps the views, from its snapshot") {
  ok("CREATE MATERIALIZED VIEW tv AS SELECT * FROM t WHERE v IS NOT NULL AND a IS NOT NULL AND b "
     "IS NOT NULL PRIMARY KEY (v, a, b)");
  tick();
  auto schema = session().catalog().current().value();
  auto table = schema->find_table("ks", "t");
  REQUIRE(table != nullptr);
  const schema::ColumnDef* v = table->find_column("v");
  REQUIRE(v != nullptr);
  const schema::KeyLayout& layout = table->layout();
  std::string clustering;
  const std::vector<std::string> parts{int32(1)};
  REQUIRE(types::encode_clustering(layout.clustering_types, layout.clustering_orders(), parts,
                                   &clustering)
              .is_ok());
  const std::string key = cql::partition_key_bytes(std::vector{int32(1)});
  // What a host's UPDATE t SET v = `value` WHERE a = 1 AND b = 1 adds.
  auto write_v = [&](txn::Transaction& transaction, const std::string& value) {
    storage::Row row;
    storage::ColumnData cell;
    cell.id = v->id;
    cell.cell = storage::Cell::live(storage::kAutoTimestamp, value);
    row.columns.push_back(std::move(cell));
    cql::keep_views(transaction, schema);
    REQUIRE(transaction
                .add(txn::Transaction::Kind::kWrite, table, key, false, clustering, row,
                     transaction.next_statement())
                .is_ok());
  };
  // The view row moves with the write, and the transaction reads it before the commit.
  write_v(transaction_, "p");
  write_v(transaction_, "q");
  CHECK(rows_in("SELECT v, b FROM tv WHERE v IN ('x', 'p', 'q')") == Rows{"q|1"});
  CHECK(rows("SELECT v, b FROM tv WHERE v IN ('x', 'p', 'q')") == Rows{"x|1"});
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT v, b FROM tv WHERE v IN ('x', 'p', 'q')") == Rows{"q|1"});
  tick();
  // The view rows were computed from the pinned snapshot's row: another commit that changed the
  // row since makes them stale, and the commit fails instead of writing them.
  CHECK(rows_in("SELECT v FROM t WHERE a = 1 AND b = 1") == Rows{"q"});
  ok("UPDATE t SET v = 'other' WHERE a = 1 AND b = 1");
  tick();
  write_v(transaction_, "host");
  const Status s = transaction_.commit();
  CHECK(s.is_serialization_failure());
  CHECK(s.message() == kConflict);
  CHECK(rows("SELECT v, b FROM tv WHERE v IN ('q', 'other', 'host')") == Rows{"other|1"});
  // The retry reads the new row.
  write_v(transaction_, "host");
  REQUIRE(transaction_.commit().is_ok());
  CHECK(rows("SELECT v, b FROM tv WHERE v IN ('q', 'other', 'host')") == Rows{"host|1"});
  CHECK(rows("SELECT v, b FROM t WHERE a = 1") == Rows{"host|1", "y|2"});
}

}  // namespace cassette
