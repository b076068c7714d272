"""A prepared statement run again must read what a newly prepared one would (and so must any
cache of a plan or cursor kept from one execution to the next: SQLite opens a virtual-table
cursor per execution, cql_table_read.cc):
  - a write of this connection between two runs of a prepared statement, and one of another
    process (the `cassette` shell), are seen by the next run;
  - a schema change between two runs (ALTER through cql() and from another process);
  - a join that filters the inner table again per outer row (xFilter on the same cursor);
  - with the row cache on, the same, and text holding a NUL byte comes back whole.
Python's sqlite3 caches prepared statements: conn.execute(SQL, args) with the same SQL runs the
same statement again. Run as `python3 tests/sqlite/test_statement_reuse.py BUILD_DIR` in an empty
directory."""
import os
import subprocess

from sqlite_test_util import EXT, check, connect, rows

SLICE = "SELECT k, c, v FROM t WHERE k = ? ORDER BY c DESC LIMIT 3"


def shell(statement):
    """Runs `statement` in the `cassette` shell, another process."""
    got = subprocess.run([os.path.join(os.path.dirname(EXT), "cassette"), "app.db.cassette",
                          "-e", statement], capture_output=True, text=True)
    check((got.returncode, got.stderr), (0, ""), f"the cassette shell runs {statement}")


def run_all(conn, caching):
    what = f"(rows_per_partition {caching})"
    conn.execute(f"SELECT cql('ALTER TABLE main.t WITH caching = "
                 f"{{''keys'': ''ALL'', ''rows_per_partition'': ''{caching}''}}')")
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t (k, c, v) VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'x')")
    check(rows(conn, SLICE.replace("?", "1")), [(1, 2, "b"), (1, 1, "a")], f"first run {what}")
    check(conn.execute(SLICE, (1,)).fetchall(), [(1, 2, "b"), (1, 1, "a")],
          f"the prepared statement {what}")
    check(conn.execute(SLICE, (2,)).fetchall(), [(2, 1, "x")], f"again, other values {what}")

    conn.execute("INSERT INTO t (k, c, v) VALUES (1, 3, 'c')")
    check(conn.execute(SLICE, (1,)).fetchall(), [(1, 3, "c"), (1, 2, "b"), (1, 1, "a")],
          f"a write of this connection between two runs {what}")
    conn.execute("UPDATE t SET v = 'B' WHERE k = 1 AND c = 2")
    check(conn.execute(SLICE, (1,)).fetchall(), [(1, 3, "c"), (1, 2, "B"), (1, 1, "a")],
          f"an update between two runs {what}")

    shell("INSERT INTO main.t (k, c, v) VALUES (1, 4, 'other process')")
    check(conn.execute(SLICE, (1,)).fetchall(), [(1, 4, "other process"), (1, 3, "c"), (1, 2, "B")],
          f"a write of another process between two runs {what}")
    shell("DELETE FROM main.t WHERE k = 1 AND c = 4")
    check(conn.execute(SLICE, (1,)).fetchall(), [(1, 3, "c"), (1, 2, "B"), (1, 1, "a")],
          f"a delete of another process between two runs {what}")

    # Text with a NUL byte (x'610062' as text): whole, from storage and from the row cache.
    conn.execute("INSERT INTO t (k, c, v) VALUES (3, 1, CAST(x'610062' AS TEXT))")
    for _ in range(2):
        got = conn.execute("SELECT length(v), hex(v) FROM t WHERE k = ?", (3,)).fetchall()
        check(got, [(1, "610062")], f"text holding a NUL {what}")

    # A join: the inner table filtered again per outer row, on the same cursor.
    got = conn.execute("SELECT o.k, t.c, t.v FROM (SELECT 2 AS k UNION ALL SELECT 1 UNION ALL "
                       "SELECT 5 UNION ALL SELECT 2) AS o JOIN t ON t.k = o.k "
                       "ORDER BY 1, 2").fetchall()
    check(got, [(1, 1, "a"), (1, 2, "B"), (1, 3, "c"), (2, 1, "x"), (2, 1, "x")],
          f"a join reading t once per outer row {what}")


conn = connect("app.db")
conn.execute("CREATE VIRTUAL TABLE t USING cql(k int, c int, v text, PRIMARY KEY (k, c))")
for caching in ("NONE", "10"):
    run_all(conn, caching)

# A schema change between two runs: through cql(), then from another process. SQLite connects
# the table again for the statements prepared after it; the one prepared before runs once more
# with the old columns.
check(conn.execute(SLICE, (2,)).fetchall(), [(2, 1, "x")], "before the ALTER")
conn.execute("SELECT cql('ALTER TABLE main.t ADD w int')")
conn.execute("UPDATE t SET w = 7 WHERE k = 2 AND c = 1")
check(conn.execute("SELECT k, c, v, w FROM t WHERE k = ?", (2,)).fetchall(), [(2, 1, "x", 7)],
      "after ALTER ... ADD through cql()")
check(conn.execute(SLICE, (2,)).fetchall(), [(2, 1, "x")], "the statement prepared before it")
shell("ALTER TABLE main.t DROP w")
conn.execute("SELECT 1 FROM t WHERE k = 2").fetchall()  # reads t: SQLite learns of the change
check(conn.execute(SLICE, (2,)).fetchall(), [(2, 1, "x")], "after the other process's DROP")
check([d[0] for d in conn.execute("SELECT * FROM t WHERE k = 2").description], ["k", "c", "v"],
      "SELECT * has the columns of the other process's ALTER")
print("statement reuse: ok")
