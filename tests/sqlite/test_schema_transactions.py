"""Schema changes in transactions from Python's sqlite3, as migration tools make them (Python
3.12's autocommit=False, Django, Alembic: DDL and data changes inside BEGIN ... COMMIT, nested
steps as savepoints, ROLLBACK when a step fails). A failed migration leaves the store exactly as
it was, and running it again succeeds; a committed one is whole; another connection sees
nothing before COMMIT. Run as `python3 tests/sqlite/test_schema_transactions.py BUILD_DIR` in an
empty directory. (This machine's Python is 3.11: transactions are explicit, with
isolation_level=None, as autocommit=False makes them.)"""
import os
import sqlite3
import sys

from sqlite_test_util import EXT, check, rows


def connect(path="app.db"):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    conn.enable_load_extension(False)
    return conn


def cql_tables(conn):
    return sorted(row["name"] for row in
                  __import__("json").loads(rows(conn, "SELECT cql('DESCRIBE TABLES')")[0][0]))


def migrate(conn, fail_at=None):
    """Version 2 of the schema: orders moves to orders_v2 with a new column; drops the log."""
    conn.execute("BEGIN")
    try:
        conn.execute("CREATE VIRTUAL TABLE orders_v2 USING cql(id int PRIMARY KEY, item text, "
                     "qty int)")
        conn.execute("INSERT INTO orders_v2 (id, item, qty) SELECT id, item, 1 FROM orders")
        if fail_at == "copy":
            raise RuntimeError("the migration fails after copying")
        conn.execute("SAVEPOINT drop_old")
        conn.execute("DROP TABLE orders")
        conn.execute("DROP TABLE log")
        if fail_at == "savepoint":
            conn.execute("ROLLBACK TO drop_old")  # a nested step gives up; the outer goes on
        conn.execute("RELEASE drop_old")
        if fail_at == "end":
            raise RuntimeError("the migration fails at the end")
        conn.execute("COMMIT")
    except RuntimeError:
        conn.rollback()


def main():
    db = connect()
    db.execute("CREATE VIRTUAL TABLE orders USING cql(id int PRIMARY KEY, item text)")
    db.execute("CREATE VIRTUAL TABLE log USING cql(at int PRIMARY KEY, note text)")
    db.execute("INSERT INTO orders VALUES (1, 'tea'), (2, 'cake')")
    db.execute("INSERT INTO log VALUES (1, 'created')")
    before = (rows(db, "SELECT * FROM orders ORDER BY id"), rows(db, "SELECT * FROM log"),
              cql_tables(db))
    check(before[2], ["log", "orders"], "two CQL tables to start with")

    for fail_at in ["copy", "end"]:
        migrate(db, fail_at)
        check((rows(db, "SELECT * FROM orders ORDER BY id"), rows(db, "SELECT * FROM log"),
               cql_tables(db)), before, f"a migration that fails ({fail_at}) changes nothing")
        other = connect()
        check(cql_tables(other), ["log", "orders"], "another connection agrees")
        other.close()

    # A nested step rolled back to its savepoint: the outer migration commits without it.
    migrate(db, "savepoint")
    check(cql_tables(db), ["log", "orders", "orders_v2"],
          "the DROPs rolled back to their savepoint did not happen; the CREATE did")
    check(rows(db, "SELECT * FROM orders_v2 ORDER BY id"), [(1, "tea", 1), (2, "cake", 1)],
          "with the copied rows")
    db.execute("DROP TABLE orders_v2")

    # Another connection sees nothing of a migration until it commits.
    db.execute("BEGIN")
    db.execute("CREATE VIRTUAL TABLE orders_v2 USING cql(id int PRIMARY KEY, item text, qty int)")
    db.execute("INSERT INTO orders_v2 VALUES (3, 'pie', 2)")
    db.execute("DROP TABLE log")
    other = connect()
    check(cql_tables(other), ["log", "orders"], "before COMMIT, another connection sees the old schema")
    check(rows(db, "SELECT * FROM orders_v2"), [(3, "pie", 2)],
          "while the transaction reads its own new table")
    db.execute("COMMIT")
    check(cql_tables(other), ["orders", "orders_v2"], "after COMMIT it sees the new one")
    check(rows(other, "SELECT cql('SELECT * FROM main.orders_v2')"),
          [('[{"id": 3, "item": "pie", "qty": 2}]',)], "with its rows")
    other.close()

    # A connection closed with the transaction open: nothing of it reaches the store.
    db.execute("BEGIN")
    db.execute("DROP TABLE orders")
    db.execute("CREATE VIRTUAL TABLE never USING cql(k int PRIMARY KEY)")
    db.close()
    db = connect()
    check(cql_tables(db), ["orders", "orders_v2"], "closing inside the transaction rolled it back")
    check(rows(db, "SELECT * FROM orders ORDER BY id"), [(1, "tea"), (2, "cake")],
          "orders kept its rows")
    db.execute("CREATE VIRTUAL TABLE never USING cql(k int PRIMARY KEY)")
    check(cql_tables(db), ["never", "orders", "orders_v2"], "and the same CREATE works now")

    # The full migration, committed, run once more: already done, so its CREATE fails.
    db.execute("DROP TABLE orders_v2")
    db.execute("CREATE VIRTUAL TABLE log USING cql(at int PRIMARY KEY, note text)")
    migrate(db)
    check(cql_tables(db), ["never", "orders_v2"], "the committed migration is whole")
    try:
        migrate(db)
        raise AssertionError("a second run should fail")
    except sqlite3.OperationalError as e:
        check(str(e), "table orders_v2 already exists", "running it again fails, as SQLite says")
    db.rollback()
    check(cql_tables(db), ["never", "orders_v2"], "and changes nothing")


if __name__ == "__main__":
    main()
