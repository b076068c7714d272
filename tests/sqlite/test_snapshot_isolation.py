"""Snapshot isolation of SQL transactions on cql tables (ext/sqlite/README.md "Transactions"):
two database files sharing one store (`store = '...'`) are not serialized by SQLite's lock, so
the extension checks write conflicts itself:
  - from its first read of the store (a SELECT, or an UPDATE's or DELETE's read), a transaction
    reads one snapshot until COMMIT or ROLLBACK, taking no write lock of the database file;
    statements in autocommit mode each read the latest commit; the end of a read-only
    transaction releases the snapshot (and the SSTables only it kept);
  - a COMMIT whose UPDATE or DELETE changed a row another connection committed a change to after
    that snapshot fails with SQLITE_BUSY (extended SQLITE_BUSY_SNAPSHOT), is rolled back and
    writes nothing; the application retries;
  - the lost-update race of issue 22: two processes each doing N transactions of `SELECT v`
    and `UPDATE t SET v = <what it read> + 1` (and N of `UPDATE t SET v = v + 1`) through their
    own database file, retrying on SQLITE_BUSY, leave exactly 2N.
Run as `python3 tests/sqlite/test_snapshot_isolation.py BUILD_DIR` in an empty directory."""
import os
import sqlite3
import subprocess
import sys
import time

from sqlite_test_util import EXT, check, connect, rows

CONFLICT = ("could not serialize access due to a concurrent update of main.t (key 1); the "
            "transaction was rolled back: retry it")


def open_db(path, definition="table = 'main.t'"):
    """A connection to database `path`, whose table t is CQL table main.t of the shared store."""
    conn = connect(path)
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS t USING cql({definition}, "
                 "store = 'shared.cassette')")
    return conn


def increments(path, n, how):
    """N read-modify-write increments of row 1, each retried until it commits; the retries.
    `how`: "select-first" reads v and writes what it read plus one (issue 22's form); "in-sql"
    increments in the UPDATE and reads after."""
    conn = open_db(path)
    retries = 0
    done = 0
    while done < n:
        try:
            conn.execute("BEGIN")
            if how == "select-first":
                (v,) = conn.execute("SELECT v FROM t WHERE k = 1").fetchone()
                time.sleep(0.001)  # the application's work: the other process commits meanwhile
                conn.execute("UPDATE t SET v = ? WHERE k = 1", (v + 1,))
            else:
                conn.execute("UPDATE t SET v = v + 1 WHERE k = 1")
                conn.execute("SELECT v FROM t WHERE k = 1").fetchone()
            conn.execute("COMMIT")
            done += 1
        except sqlite3.OperationalError as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if e.sqlite_errorcode & 0xff != sqlite3.SQLITE_BUSY:
                raise
            retries += 1
    return retries


if len(sys.argv) > 2 and sys.argv[2] == "--increments":
    print(increments(sys.argv[3], int(sys.argv[4]), sys.argv[5]))
    sys.exit(0)

a = open_db("a.db", "k int PRIMARY KEY, v int")
b = open_db("b.db")
a.execute("INSERT INTO t VALUES (1, 10)")

# A updates the row in its transaction; B commits an UPDATE of it; A's COMMIT then fails.
a.execute("BEGIN")
a.execute("UPDATE t SET v = v + 1 WHERE k = 1")
b.execute("UPDATE t SET v = 20 WHERE k = 1")
check(rows(b, "SELECT v FROM t WHERE k = 1"), [(20,)], "B's UPDATE commits")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(11,)], "A reads its snapshot and its write")
try:
    a.execute("COMMIT")
    raise AssertionError("A's COMMIT succeeded over B's update")
except sqlite3.OperationalError as e:
    check(str(e), CONFLICT, "A's COMMIT fails with the conflict")
    check(e.sqlite_errorcode, 517, "its code is SQLITE_BUSY_SNAPSHOT")
check(a.in_transaction, False, "A's transaction was rolled back")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(20,)], "the row keeps B's value")
check(rows(b, "SELECT v FROM t WHERE k = 1"), [(20,)], "B reads it too")

# A DELETE racing an UPDATE conflicts the same way; a blind INSERT (an upsert) does not.
a.execute("BEGIN")
a.execute("DELETE FROM t WHERE k = 1")
b.execute("UPDATE t SET v = 21 WHERE k = 1")
try:
    a.execute("COMMIT")
    raise AssertionError("A's DELETE committed over B's update")
except sqlite3.OperationalError as e:
    check(str(e), CONFLICT, "a DELETE of a row changed since the snapshot fails")
check(rows(b, "SELECT v FROM t WHERE k = 1"), [(21,)], "the row is still there")
a.execute("BEGIN")
a.execute("INSERT INTO t VALUES (2, 0)")
b.execute("UPDATE t SET v = 22 WHERE k = 1")
a.execute("INSERT INTO t VALUES (1, 30)")
a.execute("COMMIT")
check(rows(b, "SELECT v FROM t WHERE k = 1"), [(30,)], "a blind INSERT commits: last write wins")

# The snapshot is pinned by the transaction's first read, a SELECT, and kept until its end.
a.execute("UPDATE t SET v = 40 WHERE k = 1")
a.execute("BEGIN")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(40,)], "A's first read")
other = sqlite3.connect("a.db", timeout=0, isolation_level=None)
other.execute("BEGIN IMMEDIATE")  # would be "database is locked" had A's read taken the lock
other.execute("ROLLBACK")
print("ok: A's read took no write lock of a.db")
b.execute("UPDATE t SET v = 41 WHERE k = 1")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(40,)], "A's second read sees its snapshot")
check(rows(a, "SELECT v FROM t WHERE k = 2"), [(0,)], "so does a read of another row")
a.execute("COMMIT")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(41,)], "after COMMIT A reads B's write")
b.execute("UPDATE t SET v = 42 WHERE k = 1")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(42,)], "autocommit reads read the latest")
a.execute("BEGIN")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(42,)], "a new transaction pins anew")
b.execute("UPDATE t SET v = 43 WHERE k = 1")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(42,)], "and reads its snapshot")
a.execute("ROLLBACK")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(43,)], "ROLLBACK ends the snapshot too")

# A read, then a write: the commit checks the row against the snapshot of the first read.
a.execute("BEGIN")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(43,)], "A reads v")
b.execute("UPDATE t SET v = 44 WHERE k = 1")
a.execute("UPDATE t SET v = 43 + 1 WHERE k = 1")
try:
    a.execute("COMMIT")
    raise AssertionError("A's write of what it read committed over B's update")
except sqlite3.OperationalError as e:
    check((str(e), e.sqlite_errorcode), (CONFLICT, 517),
          "a write after a read of a row changed since the read fails")
check(rows(b, "SELECT v FROM t WHERE k = 1"), [(44,)], "the row keeps B's value")

# An UPDATE racing a DELETE: the loser fails and the row does not come back half empty.
a.execute("BEGIN")
a.execute("UPDATE t SET v = 45 WHERE k = 1")
b.execute("DELETE FROM t WHERE k = 1")
try:
    a.execute("COMMIT")
    raise AssertionError("A's UPDATE committed over B's DELETE")
except sqlite3.OperationalError as e:
    check((str(e), e.sqlite_errorcode), (CONFLICT, 517), "an UPDATE of a deleted row fails")
check(rows(b, "SELECT k, v FROM t ORDER BY k"), [(2, 0)], "the deleted row stays deleted")
b.execute("INSERT INTO t VALUES (1, 44)")

# The end of a read-only transaction releases its snapshot: SSTables that only it still read
# (inputs of a compaction that ran meanwhile) are removed then, not at some later read.
admin = connect("admin.db")
admin.execute("SELECT cql_open('shared.cassette')")
admin.execute("SELECT cql_flush()").fetchall()
data = os.path.join("shared.cassette", "data")


def sstables():
    return sorted(n for n in os.listdir(data) if n.endswith(".sst"))


a.execute("BEGIN")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(44,)], "a read-only transaction reads")
pinned = sstables()
b.execute("INSERT INTO t VALUES (3, 3)")
admin.execute("SELECT cql_flush()").fetchall()
admin.execute("SELECT cql_compact()").fetchall()
compacted = sstables()
check(set(pinned) <= set(compacted), True, "its snapshot keeps the compacted SSTables alive")
a.execute("COMMIT")
after = sstables()
check(len(after) < len(compacted) and not set(pinned) & set(after), True,
      "its COMMIT releases them")
check(rows(a, "SELECT k, v FROM t ORDER BY k"), [(1, 44), (2, 0), (3, 3)], "every row reads")

# CQL through cql() in a transaction: setting or deleting a list element by index reads the
# list, so a concurrent change of the list fails the COMMIT (the element set by index would
# otherwise come back after another process deleted it).
cq = connect("cq.db")
cq.execute("SELECT cql_open('shared.cassette')")
admin.execute("SELECT cql('CREATE TABLE main.l (k int PRIMARY KEY, l list<text>)')")
admin.execute("SELECT cql('INSERT INTO main.l (k, l) VALUES (1, [''a'', ''b'', ''c''])')")
cq.execute("BEGIN")
cq.execute("SELECT cql('UPDATE main.l SET l[1] = ''B'' WHERE k = 1')")
admin.execute("SELECT cql('DELETE l[1] FROM main.l WHERE k = 1')")
try:
    cq.execute("COMMIT")
    raise AssertionError("A's l[1] = 'B' committed over B's DELETE l[1]")
except sqlite3.OperationalError as e:
    check((str(e), e.sqlite_errorcode), (CONFLICT.replace("main.t", "main.l"), 517),
          "a list element set by index conflicts with its deletion")
check(rows(cq, "SELECT cql('SELECT l FROM main.l WHERE k = 1')"), [('[{"l": ["a", "c"]}]',)],
      "the deleted element stays deleted")
cq.execute("BEGIN")
cq.execute("SELECT cql('DELETE l[0] FROM main.l WHERE k = 1')")
cq.execute("COMMIT")
check(rows(cq, "SELECT cql('SELECT l FROM main.l WHERE k = 1')"), [('[{"l": ["c"]}]',)],
      "without a change in between it commits")

# Issue 22's repro: two processes, 200 increments each through their own database file.
N = 200
for how in ("select-first", "in-sql"):
    a.execute("UPDATE t SET v = 0 WHERE k = 1")
    procs = [subprocess.Popen([sys.executable, __file__, sys.argv[1], "--increments", db, str(N),
                               how], stdout=subprocess.PIPE, text=True)
             for db in ("a.db", "b.db")]
    outputs = [p.communicate()[0] for p in procs]
    check([p.returncode for p in procs], [0, 0], f"both processes finish ({how})")
    check(rows(a, "SELECT v FROM t WHERE k = 1"), [(2 * N,)], f"no increment is lost ({how})")
    print(f"retries ({how}): {sum(int(o) for o in outputs)}")
