"""Columns added or dropped by ALTER TABLE through cql() or by another process reach the SQLite
connections that have the cql virtual table connected, without reopening (README "CREATE
VIRTUAL TABLE ... USING cql(...)"):
  - cql('ALTER ...'): the next statement of this connection, and the next statement that starts
    in every other connection on the database file (one that fails to prepare against the old
    columns, an INSERT ... VALUES with the new number of values, does not start), PRAGMA
    table_info included; Python's cached statements are prepared again;
  - another process (the `cassette` shell): a statement prepared after the ALTER that reads the
    table sees the new columns; a statement prepared before it (Python's cache) runs once more
    with the old ones, and the next statement sees them; a statement that names the new column
    before any statement read the table fails with "no such column" (nothing told SQLite yet);
  - a read-only connection cannot make SQLite reload: it sees them once a writable connection's
    statement has read the table;
  - a transaction that has only read keeps the columns it began with (it does not become a write
    transaction), and a reader does not wait for another connection's write lock.
Run as `python3 tests/sqlite/test_alter_visible.py BUILD_DIR` in an empty directory."""
import os
import subprocess

from sqlite_test_util import EXT, check, check_error, connect, rows


def shell(statement):
    """Runs `statement` in the `cassette` shell, another process."""
    got = subprocess.run([os.path.join(os.path.dirname(EXT), "cassette"), "app.db.cassette",
                          "-e", statement], capture_output=True, text=True)
    check((got.returncode, got.stderr), (0, ""), f"the cassette shell runs {statement}")


def select(conn, sql="SELECT * FROM t ORDER BY k"):
    """(column names, rows) of `sql`."""
    cursor = conn.execute(sql)
    found = cursor.fetchall()
    return [d[0] for d in cursor.description], found


def table_info(conn, table="t"):
    return [name for (name,) in rows(conn, f"SELECT name FROM pragma_table_info('{table}')")]


a = connect("app.db")
b = connect("app.db")
a.execute("CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text)")
a.execute("INSERT INTO t VALUES (1, 'one')")
check(select(b), (["k", "v"], [(1, "one")]), "a second connection reads t before the ALTER")

# ALTER ... ADD through cql()
a.execute("SELECT cql('ALTER TABLE main.t ADD c int')")
a.execute("INSERT INTO t VALUES (2, 'two', 20)")
check(rows(a, "SELECT cql('SELECT c FROM main.t WHERE k = 2')"), [('[{"c": 20}]',)],
      "cql() ALTER ADD: the same connection's next statement, an INSERT, writes the new column")
check(select(a), (["k", "v", "c"], [(1, "one", None), (2, "two", 20)]),
      "its SELECT * has the new column")
check(table_info(a), ["k", "v", "c"], "and its PRAGMA table_info")
check_error(lambda: b.execute("INSERT INTO t VALUES (3, 'three', 30)"),
            "table t has 2 columns but 3 values were supplied",
            "another connection: a statement that fails to prepare against the old columns")
check(table_info(b), ["k", "v", "c"], "the second connection's PRAGMA table_info has it")
b.execute("INSERT INTO t VALUES (3, 'three', 30)")
check(select(b), (["k", "v", "c"], [(1, "one", None), (2, "two", 20), (3, "three", 30)]),
      "and then the INSERT, and its cached SELECT * statement, prepared again without an error")
a.execute("DELETE FROM t WHERE k = 3")

# ALTER ... DROP through cql()
a.execute("SELECT cql('ALTER TABLE main.t DROP v')")
check(select(a), (["k", "c"], [(1, None), (2, 20)]), "cql() ALTER DROP: the column is gone")
check(table_info(b), ["k", "c"], "from the second connection's PRAGMA table_info too")
check_error(lambda: b.execute("SELECT v FROM t"), "no such column: v",
            "naming the dropped column is SQLite's error")

# Inside an SQL transaction cql() joins it, and a schema change cannot: refused, nothing changed.
a.execute("BEGIN")
check_error(lambda: a.execute("SELECT cql('ALTER TABLE main.t ADD d text')"),
            "ALTER TABLE cannot run inside a SQL transaction; COMMIT first",
            "an ALTER inside a transaction is refused")
check(select(a), (["k", "c"], [(1, None), (2, 20)]), "and the table keeps its columns")
a.execute("ROLLBACK")
a.execute("SELECT cql('ALTER TABLE main.t ADD d text')")
check(select(a), (["k", "c", "d"], [(1, None, None), (2, 20, None)]),
      "after the transaction the ALTER runs, and the next statement sees it")

# ALTER by another process
check(select(b), (["k", "c", "d"], [(1, None, None), (2, 20, None)]), "b's cached SELECT *")
shell("ALTER TABLE main.t ADD e int")
check(select(b), (["k", "c", "d"], [(1, None, None), (2, 20, None)]),
      "the shell's ALTER ADD: a statement prepared before it runs with the old columns")
check(select(b), (["k", "c", "d", "e"], [(1, None, None, None), (2, 20, None, None)]),
      "and the next statement has the new one")
check(table_info(a), ["k", "c", "d", "e"], "so has the other connection's PRAGMA table_info")
shell("ALTER TABLE main.t ADD f int")
check(select(a, "SELECT *, 0 FROM t ORDER BY k"),
      (["k", "c", "d", "e", "f", "0"], [(1, None, None, None, None, 0), (2, 20, None, None, None, 0)]),
      "a statement prepared after the shell's ALTER sees the new column at once")
shell("ALTER TABLE main.t ADD g int")
check_error(lambda: a.execute("SELECT g FROM t"), "no such column: g",
            "a statement naming the new column before anything read the table fails")
check(rows(a, "SELECT count(*) FROM t"), [(2,)], "a statement that reads the table")
check(rows(a, "SELECT k, g FROM t ORDER BY k"), [(1, None), (2, None)], "and then it is known")

# A read-only connection cannot make SQLite reload its schema.
r = connect("file:app.db?mode=ro", uri=True)
columns = ["k", "c", "d", "e", "f", "g"]
check(select(r)[0], columns, "a read-only connection reads t")
shell("ALTER TABLE main.t ADD h int")
check(select(r, "SELECT * FROM t")[0], columns, "the shell's ALTER: the read-only connection")
check(select(r, "SELECT * FROM t")[0], columns, "keeps its columns")
check(select(a)[0], columns + ["h"], "until a writable connection's statement reads the table")
check(select(r, "SELECT * FROM t")[0], columns + ["h"], "then it sees the new column")

# A virtual table in an attached database
a.execute("ATTACH 'other.db' AS aux")
a.execute("CREATE VIRTUAL TABLE aux.u USING cql(table = 'main.t', store = 'app.db.cassette')")
check(table_info(a, "u"), columns + ["h"], "an attached database's table of main.t")
a.execute("SELECT cql('ALTER TABLE main.t DROP c')")
check(table_info(a, "u"), ["k", "d", "e", "f", "g", "h"], "follows cql() ALTER DROP too")

# A transaction that only reads stays one: the first statement after it redeclares.
b.execute("BEGIN")
check(select(b)[0], ["k", "d", "e", "f", "g", "h"], "b reads t in a transaction")
shell("ALTER TABLE main.t ADD i int")
check(select(b)[0], ["k", "d", "e", "f", "g", "h"], "the shell's ALTER: the transaction reads on")
check(select(b, "SELECT *, 0 FROM t")[0], ["k", "d", "e", "f", "g", "h", "0"],
      "with the columns it had, also in a statement prepared since")
check(rows(b, "SELECT count(*) FROM t"), [(2,)], "and it takes no write lock")
a.execute("BEGIN IMMEDIATE")
a.execute("ROLLBACK")
b.execute("COMMIT")
check(select(b, "SELECT *, 1 FROM t")[0], ["k", "d", "e", "f", "g", "h", "i", "1"],
      "the first statement after the transaction sees the new column")

# Another connection's write lock: reads go on without waiting for it, and redeclare after it.
a.execute("BEGIN IMMEDIATE")
shell("ALTER TABLE main.t ADD j int")
b.execute("PRAGMA busy_timeout = 600000")
check(select(b)[0], ["k", "d", "e", "f", "g", "h", "i"], "while a writes: the old columns")
check(rows(b, "PRAGMA busy_timeout"), [(600000,)], "the reader's busy timeout is kept")
a.execute("COMMIT")
check(select(b)[0], ["k", "d", "e", "f", "g", "h", "i"], "after the write: once more")
check(select(b)[0], ["k", "d", "e", "f", "g", "h", "i", "j"], "then the new column")
