"""Read-only connections write nothing through the extension (README "Read-only connections"):
a database opened read-only (SQLITE_OPEN_READONLY: `sqlite3 -readonly`, mode=ro) and a
connection with PRAGMA query_only = 1 refuse every write through cql virtual tables, cql(),
cql_rows(), cql_flush(), cql_compact() and cql_import_schema(), with a clear error, while reads
keep working; another connection then finds the store unchanged. Run as
`python3 tests/sqlite/test_read_only.py BUILD_DIR` in an empty directory."""
import os
import sqlite3
import sys

from sqlite_test_util import check, connect, rows


def check_error(conn, sql, want_message, what):
    try:
        conn.execute(sql).fetchall()
    except sqlite3.Error as e:
        check(str(e), want_message, what)
        return
    raise AssertionError(f"{what}: no error, want {want_message!r}")


def store_state():
    """Everything another connection sees: the rows, the CQL tables, the SSTable files."""
    conn = connect("app.db")
    state = (rows(conn, "SELECT k, v FROM t ORDER BY k"),
             rows(conn, "SELECT cql('DESCRIBE TABLES')"),
             sorted(os.listdir("app.db.cassette/data")))
    conn.close()
    return state


def refused(conn, why):
    """Every way to write, refused with `why`; every read still answers."""
    sqlite_readonly = "attempt to write a readonly database"
    for sql in ["INSERT INTO t VALUES (9, 'nine')", "UPDATE t SET v = 'z' WHERE k = 1",
                "DELETE FROM t", "INSERT OR IGNORE INTO t VALUES (8, 'eight')"]:
        check_error(conn, sql, sqlite_readonly, f"{why}: {sql.split()[0]} through the table")
    for cql, name in [("INSERT INTO main.t (k, v) VALUES (9, ''nine'')", "INSERT"),
                      ("UPDATE main.t SET v = ''z'' WHERE k = 1", "UPDATE"),
                      ("DELETE FROM main.t WHERE k = 1", "DELETE"),
                      ("INSERT INTO main.t (k, v) VALUES (9, ''x'') IF NOT EXISTS", "INSERT"),
                      ("TRUNCATE main.t", "TRUNCATE"),
                      ("DROP TABLE main.t", "DROP TABLE"),
                      ("CREATE TABLE main.u (k int PRIMARY KEY)", "CREATE TABLE"),
                      ("ALTER TABLE main.t ADD w int", "ALTER TABLE"),
                      ("BEGIN BATCH DELETE FROM main.t WHERE k = 2; APPLY BATCH", "BATCH")]:
        check_error(conn, f"SELECT cql('{cql}')",
                    f"Cannot execute {name} on a read-only connection ({why})",
                    f"{why}: cql('{name} ...')")
    check_error(conn, "SELECT cql_flush()",
                f"Cannot execute cql_flush() on a read-only connection ({why})",
                f"{why}: cql_flush()")
    check_error(conn, "SELECT cql_compact()",
                f"Cannot execute cql_compact() on a read-only connection ({why})",
                f"{why}: cql_compact()")
    check_error(conn, "SELECT cql_compact('main.t')",
                f"Cannot execute cql_compact() on a read-only connection ({why})",
                f"{why}: cql_compact('main.t')")
    check_error(conn, "SELECT cql_import_schema('main')",
                f"Cannot execute cql_import_schema() on a read-only connection ({why})",
                f"{why}: cql_import_schema()")
    check_error(conn, "SELECT * FROM cql_rows('DELETE FROM main.t WHERE k = 1')",
                "cql_rows() runs only statements that return rows (SELECT, DESCRIBE), not "
                "DELETE; use cql() for it", f"{why}: cql_rows() of a write")
    # Reads answer.
    check(rows(conn, "SELECT k, v FROM t ORDER BY k"), [(1, "one"), (2, "two")],
          f"{why}: the table reads")
    check(rows(conn, "SELECT cql('SELECT v FROM main.t WHERE k = 2')"), [('[{"v": "two"}]',)],
          f"{why}: cql() reads")
    check(rows(conn, "SELECT json FROM cql_rows('SELECT k FROM main.t WHERE k = 1')"),
          [('{"k": 1}',)], f"{why}: cql_rows() reads")
    check(rows(conn, "SELECT cql('USE main')"),
          [('{"result": "set_keyspace", "keyspace": "main"}',)], f"{why}: USE is not a write")


def main():
    db = connect("app.db")
    db.execute("CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text)")
    db.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
    db.execute("SELECT cql('CREATE TABLE main.extra (k int PRIMARY KEY)')")
    db.execute("SELECT cql_flush()")
    db.close()
    before = store_state()

    ro = connect("file:app.db?mode=ro", uri=True)
    refused(ro, "the database was opened read-only")
    ro.close()
    check(store_state(), before, "opened read-only: the store is unchanged")

    q = connect("app.db")
    q.execute("PRAGMA query_only = 1")
    refused(q, "PRAGMA query_only is on")
    q.execute("PRAGMA query_only = 0")
    check(rows(q, "SELECT cql('INSERT INTO main.t (k, v) VALUES (3, ''three'')')"),
          [('{"result": "void"}',)], "with query_only off again, cql() writes")
    q.close()
    after = store_state()
    check(after[0], before[0] + [(3, "three")], "and only that write reached the store")


if __name__ == "__main__":
    main()
