"""Reads inside a transaction that keeps rewriting its own rows: every read must show what the
commit will write. Rewritten rows enter the read overlay again at a higher timestamp instead of
rebuilding it (pending_writes.cc); rows carrying a statement's own timestamp (cql_timestamp)
make it rebuild. Run as `python3 tests/sqlite/test_overlay_rewrites.py BUILD_DIR` in an empty
directory; exits non-zero with the failing check on any difference."""
import os
import sqlite3
import sys

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")


def connect(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    return conn


def check(got, want, what):
    if got != want:
        raise AssertionError(f"{what}:\n  want {want!r}\n  got  {got!r}")


def rows(db, where="1"):
    return db.execute(f"SELECT k, c, v, w, s FROM t WHERE {where} ORDER BY k, c").fetchall()


def main():
    db = connect("rewrites.db")
    db.execute("CREATE VIRTUAL TABLE t USING cql(k int, c int, v text, w int, s set<int>, "
               "PRIMARY KEY (k, c))")
    db.execute("INSERT INTO t VALUES (0, 0, 'committed', 7, '[1,2]')")
    expected = {(0, 0): ("committed", 7, "[1,2]")}
    db.execute("BEGIN")
    for i in range(600):
        k, c = i % 13, i % 97  # rows come back again and again
        before = expected.get((k, c))
        if i % 5 == 0:
            db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", (k, c, f"i{i}", i, f"[{i}]"))
            expected[(k, c)] = (f"i{i}", i, f"[{i}]")
        elif i % 5 == 1 and before is not None:
            db.execute("UPDATE t SET v = ?, s = ? WHERE k = ? AND c = ?", (f"u{i}", "[]", k, c))
            expected[(k, c)] = (f"u{i}", before[1], None)
        elif i % 5 == 2:
            db.execute("DELETE FROM t WHERE k = ? AND c = ?", (k, c))
            expected.pop((k, c), None)
        elif i % 5 == 3:
            db.execute("INSERT INTO t (k, c, v) VALUES (?, ?, ?)", (k, c, f"n{i}"))
            expected[(k, c)] = (f"n{i}", None, None)
        else:
            db.execute("UPDATE t SET w = ? WHERE k = ? AND c = ?", (-i, k, c))
            if before is not None:
                expected[(k, c)] = (before[0], -i, before[2])
        got = db.execute("SELECT v, w, s FROM t WHERE k = ? AND c = ?", (k, c)).fetchall()
        check(got, [expected[(k, c)]] if (k, c) in expected else [], f"read after step {i}")
        if i % 50 == 0:
            want = sorted((k, c) + v for (k, c), v in expected.items())
            check(rows(db), want, f"scan after step {i}")
    pending = rows(db)
    db.execute("COMMIT")
    check(rows(db), pending, "the commit wrote what the transaction read")
    print("ok: 600 rewrites read back inside the transaction and after COMMIT")

    # Statements giving their own timestamps: a later statement with a lower timestamp.
    db.execute("BEGIN")
    db.execute("INSERT INTO t (k, c, v, w, cql_timestamp) VALUES (50, 1, 'high', 1, 5000)")
    first = rows(db, "k = 50")
    db.execute("UPDATE t SET v = 'low', cql_timestamp = 1000 WHERE k = 50 AND c = 1")
    pending = rows(db, "k = 50")
    db.execute("COMMIT")
    check(rows(db, "k = 50"), pending,
          "explicit timestamps: the transaction read what the commit wrote")
    check(pending != first, True, "explicit timestamps: the UPDATE is seen before COMMIT")
    print("ok: rewrites with the statements' own timestamps read back as committed")


if __name__ == "__main__":
    main()
