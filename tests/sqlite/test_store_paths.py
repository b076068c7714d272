"""Where a database finds its stores (README "Stores"): a relative `store = '...'` is relative
to the database file's directory, whatever the working directory, so a database opened from
elsewhere, or copied with its stores (VACUUM INTO, .backup), finds the stores beside it; a
database copied without them says the store is missing rather than reading an empty one, and
connecting never creates a store where a schema points. Run as
`python3 tests/sqlite/test_store_paths.py BUILD_DIR` in an empty directory."""
import os
import shutil
import sqlite3
import sys

from sqlite_test_util import check, check_error, connect, rows

HOME = os.getcwd()


def in_directory(path):
    os.makedirs(path, exist_ok=True)
    os.chdir(path)


def main():
    app = os.path.join(HOME, "app")
    in_directory(app)
    db = connect("app.db")
    db.execute("CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text, "
               "store = 'app-store.cassette')")
    db.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
    db.execute("CREATE VIRTUAL TABLE d USING cql(k int PRIMARY KEY, v text)")
    db.execute("INSERT INTO d VALUES (1, 'default store')")
    db.close()
    check(sorted(os.listdir(app)), ["app-store.cassette", "app.db", "app.db.cassette"],
          "the stores are created beside the database")

    # Opened from another working directory, by a relative and by an absolute path.
    elsewhere = os.path.join(HOME, "elsewhere")
    in_directory(elsewhere)
    for path in ["../app/app.db", os.path.join(app, "app.db")]:
        db = connect(path)
        check(rows(db, "SELECT k, v FROM t ORDER BY k"), [(1, "one"), (2, "two")],
              f"opened as {path} from another directory, the store= table finds its rows")
        check(rows(db, "SELECT v FROM d"), [("default store",)], "and so does the default store")
        db.close()
    db = connect("../app/app.db")
    db.execute("INSERT INTO t VALUES (3, 'three')")
    db.close()
    check(os.listdir(elsewhere), [], "no store was created in the working directory")

    # A copy with its stores beside it reads (and writes) the copy.
    copies = os.path.join(HOME, "copies")
    os.makedirs(copies)
    db = connect(os.path.join(app, "app.db"))
    db.execute("VACUUM INTO ?", (os.path.join(copies, "copy.db"),))
    db.close()
    shutil.copytree(os.path.join(app, "app-store.cassette"),
                    os.path.join(copies, "app-store.cassette"))
    copy = connect(os.path.join(copies, "copy.db"))
    check(rows(copy, "SELECT k FROM t ORDER BY k"), [(1,), (2,), (3,)],
          "a VACUUM INTO copy finds the copied store beside it")
    copy.execute("DELETE FROM t WHERE k = 1")
    copy.close()
    db = connect(os.path.join(app, "app.db"))
    check(rows(db, "SELECT k FROM t ORDER BY k"), [(1,), (2,), (3,)],
          "writes to the copy leave the original store alone")

    # .backup to a directory without the stores: an error naming the missing store, no new one.
    bare = os.path.join(HOME, "bare")
    os.makedirs(bare)
    target = sqlite3.connect(os.path.join(bare, "bare.db"))
    db.backup(target)
    target.close()
    db.close()
    bare_db = connect(os.path.join(bare, "bare.db"))
    check_error(lambda: rows(bare_db, "SELECT * FROM t"),
                f"Store {bare}/app-store.cassette does not exist: DROP TABLE removes this "
                "virtual table",
                "a copy without its store= store says so instead of reading an empty one")
    check_error(lambda: rows(bare_db, "SELECT * FROM d"),
                f"Store {bare}/bare.db.cassette does not exist: DROP TABLE removes this "
                "virtual table",
                "and so does a copy without its default store")
    check(sorted(os.listdir(bare)), ["bare.db"], "connecting created no store")
    bare_db.execute("DROP TABLE t")
    check(rows(bare_db, "SELECT count(*) FROM sqlite_schema WHERE name = 't'"), [(0,)],
          "DROP TABLE removes a virtual table whose store is missing")
    bare_db.close()

    # A schema that points a table at some other directory does not create a store there.
    in_directory(app)
    db = sqlite3.connect("app.db")
    db.execute("PRAGMA writable_schema = ON")
    db.execute("INSERT INTO sqlite_schema VALUES ('table', 'ghost', 'ghost', 0, "
               "'CREATE VIRTUAL TABLE ghost USING cql(table = ''main.t'', "
               "store = ''ghost.cassette'')')")
    db.commit()
    db.close()
    db = connect("app.db")
    check_error(lambda: rows(db, "SELECT * FROM ghost"),
                f"Store {app}/ghost.cassette does not exist: DROP TABLE removes this virtual "
                "table",
                "a table of the schema whose store is missing is an error")
    check(os.path.exists(os.path.join(app, "ghost.cassette")), False,
          "and connecting it did not create the store")
    db.execute("DROP TABLE ghost")
    db.close()

    # A database without a file resolves relative store paths against the working directory;
    # cql_open() too, as ATTACH does.
    in_directory(elsewhere)
    mem = connect(":memory:")
    mem.execute("CREATE VIRTUAL TABLE m USING cql(k int PRIMARY KEY, store = 'mem-store.cassette')")
    check(os.path.isdir(os.path.join(elsewhere, "mem-store.cassette")), True,
          "a :memory: database's relative store= is in the working directory")
    check(rows(mem, "SELECT cql_open('../app/app-store.cassette')"),
          [(os.path.join(app, "app-store.cassette"),)],
          "cql_open() resolves a relative path against the working directory")
    check(rows(mem, "SELECT json FROM cql_rows('SELECT k FROM main.t WHERE k = 2')"),
          [('{"k": 2}',)], "and uses that store")
    mem.close()


if __name__ == "__main__":
    main()
