"""The extension from Python's standard sqlite3 module: loading, parameters, types, transactions,
two connections. Run as `python3 tests/sqlite/test_python.py BUILD_DIR` in an empty directory;
exits non-zero (with the failing check) on any difference."""
import json
import os
import sqlite3
import sys

from sqlite_test_util import check, check_error
from sqlite_test_util import connect as connect_autocommit


def connect(path):
    """Python's default: transactions opened implicitly before writes."""
    return connect_autocommit(path, isolation_level="")


def main():
    db = connect("py.db")
    db.execute("CREATE VIRTUAL TABLE events USING cql(source text, hour int, ts bigint, "
               "kind text, payload blob, PRIMARY KEY ((source, hour), ts), "
               "CLUSTERING ORDER BY (ts DESC))")
    check(os.path.isdir("py.db.cassette"), True, "the store is py.db.cassette beside the database")

    # Parameters, executemany, and Python's implicit transaction (committed by commit()).
    rows = [("s1", 1, ts, "k%d" % (ts % 2), bytes([ts])) for ts in range(10)]
    db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    got = db.execute("SELECT ts, kind, payload FROM events WHERE source = ? AND hour = ? "
                     "ORDER BY ts DESC LIMIT ?", ("s1", 1, 3)).fetchall()
    check(got, [(9, "k1", b"\x09"), (8, "k0", b"\x08"), (7, "k1", b"\x07")],
          "a parameterized slice, newest first")
    got = db.execute("SELECT ts FROM events WHERE source = ? AND hour = ? AND ts BETWEEN ? AND ?"
                     " ORDER BY ts", ("s1", 1, 3, 5)).fetchall()
    check(got, [(3,), (4,), (5,)], "a clustering range in ascending order")
    got = db.execute("SELECT ts FROM events WHERE source = 's1' AND hour IN (0, 1, 2) "
                     "AND ts IN (?, ?) ORDER BY ts", (2, 8)).fetchall()
    check(got, [(2,), (8,)], "IN lists")

    # Python values of every family come back as the same Python values.
    db.execute("CREATE VIRTUAL TABLE vals USING cql(k int PRIMARY KEY, b boolean, d double, "
               "t text, x blob, big varint, m map<text, int>, ts timestamp)")
    db.execute("INSERT INTO vals (k, b, d, t, x, big, m, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
               (1, True, 2.25, "żółw", b"\x00\x01", "12345678901234567890",
                json.dumps({"b": 2, "a": 1}), "2024-05-06 07:08:09.010"))
    db.commit()
    got = db.execute("SELECT k, b, d, t, x, big, m, ts FROM vals").fetchall()
    check(got, [(1, 1, 2.25, "żółw", b"\x00\x01", "12345678901234567890", '{"a": 1, "b": 2}',
                 "2024-05-06 07:08:09.010")], "types through Python")

    # A second connection (in the same process) sees what the first committed, and not before.
    other = connect("py.db")
    db.execute("INSERT INTO events VALUES ('s2', 1, 1, 'uncommitted', NULL)")
    check(other.execute("SELECT count(*) FROM events WHERE source = 's2' AND hour = 1").fetchone(),
          (0,), "an uncommitted row is not visible to another connection")
    db.commit()
    check(other.execute("SELECT kind FROM events WHERE source = 's2' AND hour = 1").fetchall(),
          [("uncommitted",)], "the committed row is visible to the other connection")
    other.execute("INSERT INTO events VALUES ('s2', 1, 2, 'from other', NULL)")
    other.commit()
    check(db.execute("SELECT ts, kind FROM events WHERE source = 's2' AND hour = 1 ORDER BY ts")
          .fetchall(), [(1, "uncommitted"), (2, "from other")], "and the other way round")

    # rollback() writes nothing.
    db.execute("INSERT INTO events VALUES ('s3', 1, 1, 'rolled back', NULL)")
    db.execute("DELETE FROM events WHERE source = 's1' AND hour = 1")
    db.rollback()
    check(db.execute("SELECT count(*) FROM events").fetchone(), (12,), "rollback() writes nothing")

    # cql() from Python returns JSON text.
    got = json.loads(db.execute("SELECT cql(?)", ("SELECT ts, kind FROM main.events WHERE "
                                                   "source = 's2' AND hour = 1",)).fetchone()[0])
    check(got, [{"ts": 2, "kind": "from other"}, {"ts": 1, "kind": "uncommitted"}],
          "cql() results as JSON (clustering order DESC)")
    got = db.execute("SELECT row, json FROM cql_rows('SELECT source, hour, count(*) AS n "
                     "FROM main.events GROUP BY source, hour')").fetchall()
    check(sorted(got), [(1, '{"source": "s1", "hour": 1, "n": 10}'),
                        (2, '{"source": "s2", "hour": 1, "n": 2}')], "cql_rows() rows")
    db.execute("CREATE VIRTUAL TABLE temp.per_partition USING cql_rows('SELECT source, hour, "
               "count(*) AS n FROM main.events GROUP BY source, hour')")
    cur = db.execute("SELECT * FROM per_partition ORDER BY source")
    check([d[0] for d in cur.description], ["source", "hour", "n"],
          "a cql_rows virtual table has the statement's column names")
    check(cur.fetchall(), [("s1", 1, 10), ("s2", 1, 2)], "and its rows")

    # Bad input raises sqlite3 errors with the extension's message and writes nothing.
    check_error(lambda: db.execute("INSERT INTO events VALUES (NULL, 1, 1, 'x', NULL)"),
                "Invalid null value in condition for column source", "a NULL partition key fails")
    db.rollback()
    check(db.execute("SELECT count(*) FROM events").fetchone(), (12,), "and wrote nothing")

    db.close()
    other.close()
    # Reopening brings the tables back.
    db = connect("py.db")
    check(db.execute("SELECT count(*) FROM events").fetchone(), (12,), "reopened")
    db.close()
    print("python: all checks passed")


if __name__ == "__main__":
    main()
