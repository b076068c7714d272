// txn::Transaction past StoreOptions::transaction_spill_bytes (engine/txn/spill.h): its writes
// go to sorted runs on disk, the commit merges them with the fold's rules into SSTables at one
// timestamp, and what is not built yet is refused (docs/ARCHITECTURE.md, "Transactions larger
// than memory").
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "engine/codec/table_codec.h"
#include "engine/cql/parser.h"
#include "engine/cql/session.h"
#include "engine/storage/clock.h"
#include "engine/txn/transaction.h"
#include "tests/unit/cql_test_fixture.h"
#include "tests/unit/temp_dir.h"

namespace cassette {
namespace {

using Rows = std::vector<std::string>;

class SpillFixture {
 public:
  // `spill_bytes` 1: every statement's writes go to a run of their own.
  explicit SpillFixture(uint64_t spill_bytes = 1) { open(spill_bytes); }

  void open(uint64_t spill_bytes) {
    transaction_.reset();
    session_.reset();
    store_.reset();
    storage::StoreOptions options;
    options.clock = &clock_;
    options.background_threads = false;
    options.transaction_spill_bytes = spill_bytes;
    store_ = storage::Store::open(dir_.path(), options).value();
    session_ = cql::Session::open(store_).value();
    ok("CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', "
       "'replication_factor': 1}");
    ok("USE ks");
    ok("CREATE TABLE IF NOT EXISTS t (a int, b int, v text, w int, PRIMARY KEY (a, b))");
    transaction_ = std::make_unique<txn::Transaction>(store_.get());
  }

  void ok(std::string_view statement) {
    auto r = session_->execute(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  }
  Rows rows(std::string_view statement) {
    auto r = session_->execute(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
    return test::CqlFixture::lines(r->rows);
  }
  Result<cql::ExecutionResult> in_transaction(std::string_view statement) {
    CASSETTE_ASSIGN_OR_RETURN(cql::Statement parsed, cql::parse_statement(statement));
    return session_->execute(parsed, transaction_.get());
  }
  void ok_in(std::string_view statement) {
    auto r = in_transaction(statement);
    INFO(statement);
    REQUIRE_MESSAGE(r.is_ok(), r.status().message());
  }
  // The transaction's runs on disk.
  size_t spill_files() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_.file("data"))) {
      if (e.path().filename().string().find("-spill-") != std::string::npos) ++n;
    }
    return n;
  }
  // The SSTables in the store's data directory: its manifest's and a prepared transaction's.
  size_t sstables() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_.file("data"))) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".sst") && !name.starts_with("tmp-")) ++n;
    }
    return n;
  }
  void tick() { clock_.advance_seconds(1); }
  txn::Transaction& transaction() { return *transaction_; }
  std::shared_ptr<const schema::TableDef> table(std::string_view name) {
    return session_->catalog().current().value()->find_table("ks", std::string(name));
  }
  // `statement` run in the transaction: its rows, or its error.
  Rows read_in(std::string_view statement) {
    auto r = in_transaction(statement);
    if (!r.is_ok()) return Rows{"error: " + r.status().message()};
    return test::CqlFixture::lines(r->rows);
  }

 protected:
  test::TempDir dir_;
  storage::ManualClock clock_;
  std::shared_ptr<storage::Store> store_;
  std::unique_ptr<cql::Session> session_;
  std::unique_ptr<txn::Transaction> transaction_;
};

}  // namespace

TEST_CASE_FIXTURE(SpillFixture, "spill: overwrites and deletions across runs commit as the fold") {
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 1, 'committed', 10)");
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 2, 'committed', 20)");
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 9, 'committed', 90)");
  tick();
  ok_in("INSERT INTO t (a, b, v, w) VALUES (1, 3, 'new', 30)");
  CHECK(transaction_->spilled());
  ok_in("INSERT INTO t (a, b, v, w) VALUES (1, 4, 'new', 40)");
  ok_in("UPDATE t SET v = 'changed' WHERE a = 1 AND b = 3");  // a row of an earlier run
  ok_in("UPDATE t SET v = 'changed' WHERE a = 1 AND b = 1");  // a committed row
  ok_in("DELETE FROM t WHERE a = 1 AND b = 2");               // a committed row
  ok_in("DELETE FROM t WHERE a = 1 AND b = 4");               // a row of an earlier run
  // Deleted by one run, written again by a later one without w: w stays null, as in memory.
  ok_in("INSERT INTO t (a, b, v, w) VALUES (1, 5, 'first', 50)");
  ok_in("DELETE FROM t WHERE a = 1 AND b = 5");
  ok_in("UPDATE t SET v = 'again' WHERE a = 1 AND b = 5");
  ok_in("INSERT INTO t (a, b, v) VALUES (2, 1, 'other partition')");
  ok_in("DELETE FROM t WHERE a = 1 AND b >= 9");  // a range deletion over a committed row
  CHECK(spill_files() == 11);
  CHECK(rows("SELECT count(*) FROM t") == Rows{"3"});  // nothing visible before the commit

  REQUIRE(transaction_->commit().is_ok());
  CHECK(spill_files() == 0);
  CHECK(transaction_->empty());
  CHECK(rows("SELECT a, b, v, w FROM t") ==
        Rows{"1|1|changed|10", "1|3|changed|30", "1|5|again|null", "2|1|other partition|null"});
  // One timestamp for the whole transaction, above the committed row's.
  const Rows times = rows("SELECT writetime(v) FROM t");
  REQUIRE(times.size() == 4);
  CHECK(times[0] == times[1]);
  CHECK(times[1] == times[2]);
  CHECK(times[2] == times[3]);
  CHECK(rows("SELECT writetime(w) FROM t WHERE a = 1 AND b = 1") != Rows{times[0]});

  // The same after a reopen (the SSTables were installed by the manifest) and a compaction.
  open(1);
  CHECK(rows("SELECT a, b, v, w FROM t") ==
        Rows{"1|1|changed|10", "1|3|changed|30", "1|5|again|null", "2|1|other partition|null"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: counters add up and collections gain across runs") {
  ok("CREATE TABLE c (k int PRIMARY KEY, n counter)");
  ok("CREATE TABLE s (k int PRIMARY KEY, l list<int>, m map<text, int>)");
  ok("UPDATE c SET n = n + 5 WHERE k = 1");
  tick();
  ok_in("UPDATE c SET n = n + 1 WHERE k = 1");
  ok_in("UPDATE c SET n = n + 2 WHERE k = 1");
  ok_in("UPDATE c SET n = n + 3 WHERE k = 2");
  ok_in("UPDATE s SET l = l + [1], m = m + {'a': 1} WHERE k = 1");
  ok_in("UPDATE s SET l = l + [2], m = m + {'b': 2} WHERE k = 1");
  ok_in("UPDATE s SET m = m + {'a': 3} WHERE k = 1");
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT k, n FROM c") == Rows{"1|8", "2|3"});
  CHECK(rows("SELECT l, m FROM s") == Rows{"[1, 2]|{'a': 3, 'b': 2}"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: a rollback removes the runs and writes nothing") {
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'y')");
  CHECK(spill_files() == 2);
  transaction_->clear();
  CHECK(spill_files() == 0);
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT count(*) FROM t") == Rows{"0"});

  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
  transaction_->rollback_to(-1);  // ROLLBACK of a SAVEPOINT that began the transaction
  CHECK(spill_files() == 0);
  CHECK(transaction_->empty());
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
  transaction_.reset();  // a host that goes away
  CHECK(spill_files() == 0);
  CHECK(rows("SELECT count(*) FROM t") == Rows{"0"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: a savepoint at a run's boundary rolls back its runs") {
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'kept')");
  transaction_->savepoint(0);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'undone')");
  ok_in("UPDATE t SET v = 'undone' WHERE a = 1 AND b = 1");
  transaction_->savepoint(1);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 3, 'undone')");
  CHECK(spill_files() == 4);
  transaction_->rollback_to(1);
  CHECK(spill_files() == 3);
  transaction_->rollback_to(0);
  CHECK(spill_files() == 1);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 4, 'after')");
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT b, v FROM t") == Rows{"1|kept", "4|after"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: a TRUNCATE drops the runs' rows of its table") {
  ok("CREATE TABLE u (k int PRIMARY KEY, v text)");
  ok("INSERT INTO t (a, b, v) VALUES (9, 9, 'committed')");
  tick();
  std::shared_ptr<const schema::TableDef> t =
      session_->catalog().current().value()->find_table("ks", "t");
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'before truncate')");
  ok_in("INSERT INTO u (k, v) VALUES (1, 'other table')");
  REQUIRE(transaction_->truncate(t, transaction_->next_statement()).is_ok());
  ok_in("INSERT INTO t (a, b, v) VALUES (2, 1, 'after truncate')");
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT a, b, v FROM t") == Rows{"2|1|after truncate"});
  CHECK(rows("SELECT k, v FROM u") == Rows{"1|other table"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: reads inside see the runs without bringing them back") {
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 1, 'committed', 10)");
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 7, 'committed', 70)");
  tick();
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'x')");
  ok_in("UPDATE t SET v = 'changed' WHERE a = 1 AND b = 1");
  ok_in("DELETE FROM t WHERE a = 1 AND b = 2");
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'again')");
  ok_in("DELETE FROM t WHERE a = 1 AND b > 5");  // a range tombstone over a committed row
  transaction_->savepoint(0);                    // at a run's boundary
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 3, 'undone')");
  REQUIRE(transaction_->spilled());
  const size_t runs = spill_files();
  CHECK(read_in("SELECT b, v, w FROM t") == Rows{"1|changed|10", "2|again|null", "3|undone|null"});
  CHECK(read_in("SELECT b, v, w FROM t WHERE a = 1 AND b = 2") == Rows{"2|again|null"});
  CHECK(read_in("SELECT b FROM t WHERE a = 1 AND b >= 2 ORDER BY b DESC") == Rows{"3", "2"});
  CHECK(read_in("SELECT b FROM t WHERE a = 1 AND b = 7") == Rows{});
  CHECK(transaction_->spilled());
  CHECK(spill_files() == runs);  // nothing read back
  transaction_->rollback_to(0);
  CHECK(read_in("SELECT b, v FROM t") == Rows{"1|changed", "2|again"});
  CHECK(rows("SELECT b, v FROM t") == Rows{"1|committed", "7|committed"});  // not yet committed
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT b, v, w FROM t") == Rows{"1|changed|10", "2|again|null"});

  // PREPARE TRANSACTION: the runs become the prepared SSTables.
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 4, 'prepared')");
  REQUIRE(transaction_->spilled());
  auto prepared = transaction_->prepare("tag");
  REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
  REQUIRE(*prepared != nullptr);
  CHECK(spill_files() == 0);
  REQUIRE((*prepared)->commit().is_ok());
  CHECK(rows("SELECT b, v FROM t") == Rows{"1|changed", "2|again", "4|prepared"});
}

TEST_CASE_FIXTURE(SpillFixture,
                  "spill: PREPARE writes the runs' merge as SSTables the commit installs") {
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 1, 'committed', 10)");
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 2, 'committed', 20)");
  tick();
  ok_in("INSERT INTO t (a, b, v, w) VALUES (1, 3, 'new', 30)");
  ok_in("UPDATE t SET v = 'changed' WHERE a = 1 AND b = 1");
  ok_in("DELETE FROM t WHERE a = 1 AND b = 2");
  ok_in("INSERT INTO t (a, b, v) VALUES (2, 1, 'other partition')");
  ok_in("UPDATE t SET w = 31 WHERE a = 1 AND b = 3");
  REQUIRE(transaction_->spilled());
  const size_t before = sstables();
  auto prepared = transaction_->prepare("tag");
  REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
  REQUIRE(*prepared != nullptr);
  // Not brought back into memory: the runs are gone into SSTables that no manifest holds yet.
  CHECK(spill_files() == 0);
  CHECK(transaction_->empty());
  CHECK(sstables() == before + 1);
  CHECK(rows("SELECT b, v, w FROM t WHERE a = 1") == Rows{"1|committed|10", "2|committed|20"});
  const int64_t timestamp = (*prepared)->timestamp();
  REQUIRE((*prepared)->commit().is_ok());
  CHECK(sstables() == before + 1);
  const Rows expected{"1|1|changed|10", "1|3|new|31", "2|1|other partition|null"};
  CHECK(rows("SELECT a, b, v, w FROM t") == expected);
  // The transaction's one timestamp, stamped at PREPARE, which the commit keeps.
  CHECK(rows("SELECT writetime(v) FROM t WHERE a = 1 AND b = 1") ==
        Rows{std::to_string(timestamp)});
  CHECK(rows("SELECT writetime(w) FROM t WHERE a = 1 AND b = 3") ==
        Rows{std::to_string(timestamp)});
  open(1);
  CHECK(rows("SELECT a, b, v, w FROM t") == expected);
}

TEST_CASE_FIXTURE(SpillFixture,
                  "spill: a prepared transaction rolled back leaves no file and no row") {
  ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'committed')");
  ok("CREATE TABLE u (k int PRIMARY KEY, v text)");
  ok("INSERT INTO u (k, v) VALUES (1, 'kept')");
  tick();
  const size_t before = sstables();
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'rolled back')");
  REQUIRE(transaction_->truncate(table("u"), transaction_->next_statement()).is_ok());
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 3, 'rolled back')");
  REQUIRE(transaction_->spilled());
  auto prepared = transaction_->prepare("tag");
  REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
  REQUIRE(*prepared != nullptr);
  CHECK(sstables() == before + 1);
  REQUIRE((*prepared)->abort().is_ok());
  CHECK(sstables() == before);
  CHECK(spill_files() == 0);
  CHECK(rows("SELECT b, v FROM t") == Rows{"1|committed"});
  CHECK(rows("SELECT k, v FROM u") == Rows{"1|kept"});  // its TRUNCATE did not happen either

  // The same again, committed: the TRUNCATE happens with the install.
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'committed later')");
  REQUIRE(transaction_->truncate(table("u"), transaction_->next_statement()).is_ok());
  prepared = transaction_->prepare("tag 2");
  REQUIRE_MESSAGE(prepared.is_ok(), prepared.status().message());
  REQUIRE((*prepared)->commit().is_ok());
  CHECK(rows("SELECT b, v FROM t") == Rows{"1|committed", "2|committed later"});
  CHECK(rows("SELECT k, v FROM u") == Rows{});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: PREPARE checks write conflicts as the commit does") {
  ok("CREATE TABLE u (k int PRIMARY KEY, v text)");
  ok("INSERT INTO u (k, v) VALUES (1, 'read')");
  tick();
  transaction_->set_isolation(txn::Transaction::Isolation::kSnapshot);
  CHECK(read_in("SELECT v FROM u WHERE k = 1") == Rows{"read"});  // pins the snapshot
  ok_in("UPDATE u SET v = 'lost update' WHERE k = 1");
  const std::string one("\0\0\0\1", 4);
  transaction_->add_conflict_key(table("u"), cql::partition_key_bytes(std::vector{one}), false, "");
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'x')");
  REQUIRE(transaction_->spilled());
  ok("UPDATE u SET v = 'concurrent' WHERE k = 1");
  const size_t before = sstables();
  auto prepared = transaction_->prepare("tag");
  CHECK(prepared.status().is_serialization_failure());
  CHECK(prepared.status().message() ==
        "could not serialize access due to a concurrent update of ks.u (key 1); the transaction "
        "was rolled back: retry it");
  CHECK(sstables() == before);
  CHECK(spill_files() == 0);
  CHECK(rows("SELECT v FROM u WHERE k = 1") == Rows{"concurrent"});
  CHECK(rows("SELECT count(*) FROM t") == Rows{"0"});
  ok("INSERT INTO t (a, b, v) VALUES (1, 1, 'unlocked')");  // nothing holds the store
}

TEST_CASE_FIXTURE(SpillFixture, "spill: an index read inside sees the runs' rows") {
  ok("CREATE CUSTOM INDEX ON t (w) USING 'sai'");
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 1, 'committed', 10)");
  ok("INSERT INTO t (a, b, v, w) VALUES (2, 1, 'committed', 5)");
  tick();
  ok_in("INSERT INTO t (a, b, v, w) VALUES (1, 2, 'new', 5)");
  ok_in("UPDATE t SET w = 5, v = 'changed' WHERE a = 1 AND b = 1");
  ok_in("DELETE FROM t WHERE a = 2 AND b = 1");
  ok_in("INSERT INTO t (a, b, v, w) VALUES (3, 1, 'gone', 5)");
  ok_in("DELETE FROM t WHERE a = 3");
  REQUIRE(transaction_->spilled());
  // The index's candidates and the rows read by key both come from the runs.
  CHECK(read_in("SELECT a, b, v FROM t WHERE w = 5") == Rows{"1|1|changed", "1|2|new"});
  CHECK(read_in("SELECT a, b, v FROM t WHERE w = 10") == Rows{});
  CHECK(rows("SELECT a, b, v FROM t WHERE w = 5") == Rows{"2|1|committed"});
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT a, b, v FROM t WHERE w = 5") == Rows{"1|1|changed", "1|2|new"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: a read source keeps what it read through later writes") {
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'first')");
  REQUIRE(transaction_->spilled());
  auto view = transaction_->read_view();
  REQUIRE(view.is_ok());
  ok_in("UPDATE t SET v = 'second' WHERE a = 1 AND b = 1");
  transaction_->clear();  // the runs' files go; the view keeps reading them
  CHECK(spill_files() == 0);
  storage::ReadSpec spec;
  auto cursor = store_->read(**view, table("t")->table_id, spec);
  REQUIRE(cursor->next());
  REQUIRE(cursor->row().columns.size() == 1);
  CHECK(cursor->row().columns[0].cell.value == "first");
  CHECK(!cursor->next());
  CHECK(cursor->status().is_ok());
}

TEST_CASE_FIXTURE(SpillFixture, "spill: ROLLBACK TO a mark inside a spilled log drops its runs") {
  // A threshold between the first row's bytes and the second's: the mark after the first row is
  // inside the log the second row spills, which is written as two runs split at the mark.
  open(200);
  ok("INSERT INTO t (a, b, v, w) VALUES (1, 1, 'committed', 10)");
  tick();
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'first')");
  REQUIRE(!transaction_->spilled());
  transaction_->savepoint(0);
  ok_in("UPDATE t SET v = 'undone' WHERE a = 1 AND b = 2");
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 3, '" + std::string(300, 'y') + "')");
  REQUIRE(transaction_->spilled());
  CHECK(spill_files() == 2);
  transaction_->rollback_to(0);
  CHECK(spill_files() == 1);
  ok_in("DELETE FROM t WHERE a = 1 AND b = 1");
  REQUIRE(transaction_->commit().is_ok());
  CHECK(spill_files() == 0);
  CHECK(rows("SELECT b, v FROM t") == Rows{"2|first"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: nested savepoints inside spilled logs, released and kept") {
  // Several marks inside one spilled log, some at the same place; a TRUNCATE between two marks
  // cuts only the runs before its own.
  open(400);
  ok("CREATE TABLE u (k int PRIMARY KEY, v text)");
  ok("INSERT INTO u (k, v) VALUES (0, 'committed')");
  tick();
  std::shared_ptr<const schema::TableDef> u =
      session_->catalog().current().value()->find_table("ks", "u");
  ok_in("INSERT INTO u (k, v) VALUES (1, 'a')");
  transaction_->savepoint(0);
  ok_in("INSERT INTO u (k, v) VALUES (2, 'b')");
  transaction_->savepoint(1);
  transaction_->savepoint(2);  // the same position as depth 1
  REQUIRE(transaction_->truncate(u, transaction_->next_statement()).is_ok());
  ok_in("INSERT INTO u (k, v) VALUES (3, 'c')");
  transaction_->savepoint(3);
  ok_in("INSERT INTO u (k, v) VALUES (4, 'd')");
  REQUIRE(!transaction_->spilled());
  ok_in("INSERT INTO u (k, v) VALUES (5, '" + std::string(500, 'z') + "')");
  REQUIRE(transaction_->spilled());
  CHECK(spill_files() == 4);  // [1] [2] [truncate, 3] [4, 5]
  transaction_->release(3);
  transaction_->rollback_to(2);  // undoes the TRUNCATE and 3, 4, 5
  CHECK(spill_files() == 2);
  ok_in("INSERT INTO u (k, v) VALUES (6, 'f')");
  transaction_->rollback_to(1);
  CHECK(spill_files() == 2);
  ok_in("INSERT INTO u (k, v) VALUES (7, '" + std::string(500, 'g') + "')");
  CHECK(spill_files() == 3);
  REQUIRE(transaction_->commit().is_ok());
  CHECK(spill_files() == 0);
  Rows kept = rows("SELECT k, v FROM u");
  std::sort(kept.begin(), kept.end());
  CHECK(kept == Rows{"0|committed", "1|a", "2|b", "7|" + std::string(500, 'g')});

  // Without the rollback the TRUNCATE cuts the runs before it and keeps the rows after it.
  ok_in("INSERT INTO u (k, v) VALUES (8, 'h')");
  transaction_->savepoint(0);
  REQUIRE(transaction_->truncate(u, transaction_->next_statement()).is_ok());
  ok_in("INSERT INTO u (k, v) VALUES (9, 'i')");
  transaction_->savepoint(1);
  ok_in("INSERT INTO u (k, v) VALUES (10, '" + std::string(500, 'j') + "')");
  REQUIRE(transaction_->spilled());
  CHECK(spill_files() == 3);
  transaction_->rollback_to(1);
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT k, v FROM u") == Rows{"9|i"});
}

TEST_CASE_FIXTURE(SpillFixture, "spill: a statement that spilled reads the earlier ones' writes") {
  // PostgreSQL reads the writes of the statements before the current one. Once it reads so, a
  // spill puts a run boundary where the last statement's writes begin.
  open(400);
  auto count_before = [&](txn::StatementId statement) {
    auto view = transaction_->read_view(statement);
    REQUIRE_MESSAGE(view.is_ok(), view.status().message());
    auto cursor = store_->read(**view, table("t")->table_id, storage::ReadSpec{});
    std::vector<std::string> values;
    while (cursor->next()) values.emplace_back(cursor->row().columns[0].cell.value);
    REQUIRE(cursor->status().is_ok());
    return values;
  };
  transaction_->set_statement(1);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 1, 'one')");
  CHECK(count_before(2) == std::vector<std::string>{"one"});
  transaction_->set_statement(2);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 2, 'two')");
  transaction_->set_statement(3);
  ok_in("INSERT INTO t (a, b, v) VALUES (1, 3, '" + std::string(500, 'x') + "')");
  REQUIRE(transaction_->spilled());
  CHECK(spill_files() == 2);  // statements 1 and 2, then statement 3
  CHECK(count_before(3) == std::vector<std::string>{"one", "two"});
  CHECK(count_before(4).size() == 3);
  REQUIRE(transaction_->commit().is_ok());
  CHECK(rows("SELECT b FROM t") == Rows{"1", "2", "3"});
}

TEST_CASE("spill: reads of a spilled transaction return what the in-memory path returns") {
  // The same random statements in two stores, one transaction each: one spills past a few
  // hundred bytes (some statements' writes in runs, the later ones in the in-memory tail), the
  // other never. Every read in between returns the same rows, and so do the commits.
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    std::mt19937 random(seed);
    auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
    SpillFixture spilled(200 + 100 * (seed % 5));
    SpillFixture memory(0);
    for (SpillFixture* f : {&spilled, &memory}) {
      f->ok(
          "CREATE TABLE r (a int, b int, v text, w int, s int static, st set<int>, "
          "m map<int, int>, PRIMARY KEY (a, b))");
      f->ok("CREATE TABLE c (k int, j int, n counter, PRIMARY KEY (k, j))");
      for (int a = 0; a < 3; ++a) {
        f->ok(fmt::format("INSERT INTO r (a, b, v, w, s) VALUES ({}, 1, 'committed', 1, 5)", a));
        f->ok(fmt::format("UPDATE c SET n = n + 100 WHERE k = {} AND j = 1", a));
      }
      f->tick();
    }
    std::vector<std::string> done;  // the statements so far, for the failure's message
    for (int step = 0; step < 50; ++step) {
      const int a = pick(3), b = pick(6), x = pick(100);
      std::string statement;
      switch (pick(16)) {
        case 0:
        case 1:
          statement =
              fmt::format("INSERT INTO r (a, b, v, w) VALUES ({}, {}, 'v{}', {})", a, b, x, x);
          break;
        case 2:
          statement = fmt::format("UPDATE r SET v = 'u{}' WHERE a = {} AND b = {}", x, a, b);
          break;
        case 3:
          statement = fmt::format("DELETE FROM r WHERE a = {} AND b = {}", a, b);
          break;
        case 4:
          statement = fmt::format("DELETE FROM r WHERE a = {} AND b >= {} AND b < {}", a, b, b + 2);
          break;
        case 5:
          statement = fmt::format("DELETE FROM r WHERE a = {}", a);
          break;
        case 6:
          statement = fmt::format("UPDATE r SET s = {} WHERE a = {}", x, a);
          break;
        case 7:
          statement = fmt::format("UPDATE r SET st = st + {{{}}} WHERE a = {} AND b = {}", x, a, b);
          break;
        case 8:
          statement = fmt::format("UPDATE r SET st = {{{}}} WHERE a = {} AND b = {}", x, a, b);
          break;
        case 9:
          statement = fmt::format("UPDATE r SET m[{}] = {} WHERE a = {} AND b = {}", b, x, a, b);
          break;
        case 10:
          statement = fmt::format("DELETE v FROM r WHERE a = {} AND b = {}", a, b);
          break;
        case 11:
          statement = fmt::format("UPDATE c SET n = n + {} WHERE k = {} AND j = {}", x, a, b);
          break;
        case 12:
          statement =
              fmt::format("INSERT INTO r (a, b, v) VALUES ({}, {}, 't{}') USING TIMESTAMP {}", a, b,
                          x, 1000 + x);
          break;
        case 13: {
          const int depth = pick(3);
          for (SpillFixture* f : {&spilled, &memory}) {
            if (x < 50) {
              f->transaction().savepoint(depth);
            } else if (x < 80) {
              f->transaction().rollback_to(depth);
            } else {
              f->transaction().release(depth);
            }
          }
          done.push_back(fmt::format("savepoint op {} at depth {}", x, depth));
          break;
        }
        case 14:
          if (x < 20) {
            for (SpillFixture* f : {&spilled, &memory}) {
              REQUIRE(f->transaction()
                          .truncate(f->table("r"), f->transaction().next_statement())
                          .is_ok());
            }
            done.push_back("TRUNCATE r");
          }
          break;
        default:
          statement = fmt::format("UPDATE r SET w = {} WHERE a = {} AND b = {}", x, a, b);
          break;
      }
      if (!statement.empty()) {
        spilled.ok_in(statement);
        memory.ok_in(statement);
        done.push_back(statement);
      }
      INFO("seed " << seed << ", statements:\n" << fmt::format("{}", fmt::join(done, "\n")));
      for (const std::string& read :
           {std::string("SELECT * FROM r"), std::string("SELECT * FROM c"),
            fmt::format("SELECT * FROM r WHERE a = {}", a),
            fmt::format("SELECT * FROM r WHERE a = {} AND b = {}", a, b),
            fmt::format("SELECT a, b, s FROM r WHERE a = {} AND b >= {} ORDER BY b DESC", a, b),
            fmt::format("SELECT b, st, m FROM r WHERE a = {} AND b < {}", a, b + 1),
            fmt::format("SELECT n FROM c WHERE k = {} AND j = {}", a, b)}) {
        INFO(read);
        const Rows expected = memory.read_in(read);
        REQUIRE(spilled.read_in(read) == expected);
      }
    }
    CHECK(spilled.transaction().spilled());
    REQUIRE(spilled.transaction().commit().is_ok());
    REQUIRE(memory.transaction().commit().is_ok());
    CHECK(spilled.spill_files() == 0);
    CHECK(spilled.rows("SELECT * FROM r") == memory.rows("SELECT * FROM r"));
    CHECK(spilled.rows("SELECT * FROM c") == memory.rows("SELECT * FROM c"));
  }
}

}  // namespace cassette
