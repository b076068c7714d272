"""Snapshot isolation of SQL transactions on cql tables (ext/sqlite/README.md "Transactions"):
two database files sharing one store (`store = '...'`) are not serialized by SQLite's lock, so
the extension checks write conflicts itself:
  - from its first write to the store (an UPDATE's or DELETE's read included), a transaction
    reads one snapshot until COMMIT or ROLLBACK; a SELECT before it reads the latest commit;
  - a COMMIT whose UPDATE or DELETE changed a row another connection committed a change to after
    that snapshot fails with SQLITE_BUSY (extended SQLITE_BUSY_SNAPSHOT), is rolled back and
    writes nothing; the application retries;
  - the lost-update race of issue 22 with the increment in SQL: two processes each doing N
    transactions of `UPDATE t SET v = v + 1` and a SELECT through their own database file,
    retrying on SQLITE_BUSY, leave exactly 2N.
Run as `python3 tests/sqlite/test_snapshot_isolation.py BUILD_DIR` in an empty directory."""
import sqlite3
import subprocess
import sys

from sqlite_test_util import EXT, check, connect, rows

CONFLICT = ("could not serialize access due to a concurrent update of main.t (key 1); the "
            "transaction was rolled back: retry it")


def open_db(path, definition="table = 'main.t'"):
    """A connection to database `path`, whose table t is CQL table main.t of the shared store."""
    conn = connect(path)
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS t USING cql({definition}, "
                 "store = 'shared.cassette')")
    return conn


def increments(path, n):
    """N read-modify-write increments of row 1, each retried until it commits; the retries."""
    conn = open_db(path)
    retries = 0
    done = 0
    while done < n:
        try:
            conn.execute("BEGIN")
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
    print(increments(sys.argv[3], int(sys.argv[4])))
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

# Issue 22's repro: two processes, 200 increments each through their own database file.
a.execute("UPDATE t SET v = 0 WHERE k = 1")
N = 200
procs = [subprocess.Popen([sys.executable, __file__, sys.argv[1], "--increments", db, str(N)],
                          stdout=subprocess.PIPE, text=True) for db in ("a.db", "b.db")]
outputs = [p.communicate()[0] for p in procs]
check([p.returncode for p in procs], [0, 0], "both processes finish")
check(rows(a, "SELECT v FROM t WHERE k = 1"), [(2 * N,)], "no increment is lost")
print(f"retries: {sum(int(o) for o in outputs)}")
