"""A store's identity from SQLite (ext/sqlite/README.md, "Stores"): cql_open() and the default
store beside the database make stores with a CASSETTE file; cql_open() refuses a non-empty
directory that is not a store; and a store (with its database) that the user cannot write opens
read-only: reads work, writes fail and change nothing. The read-only part runs the sqlite3
shell as the user nobody, so it needs root (it is skipped, saying so, otherwise). Run as
`python3 tests/sqlite/test_store_identity.py BUILD_DIR` in an empty directory."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from sqlite_test_util import EXT, check, check_error, connect

HOME = os.getcwd()


def marker(store):
    with open(os.path.join(store, "CASSETTE")) as f:
        return f.read()


def tree(path):
    """Every file under path with its size and modification time."""
    out = []
    for root, dirs, files in os.walk(path):
        for name in sorted(dirs + files):
            st = os.stat(os.path.join(root, name))
            out.append((os.path.relpath(os.path.join(root, name), path), st.st_size, st.st_mtime_ns))
    return sorted(out)


def test_cql_open():
    mem = connect(":memory:")
    full = os.path.join(HOME, "full")
    os.makedirs(full)
    with open(os.path.join(full, "notes.txt"), "w") as f:
        f.write("mine")
    check_error(lambda: mem.execute("SELECT cql_open(?)", (full,)).fetchall(),
                f"{full} is not a Cassette store (no CASSETTE file) and is not empty",
                "cql_open() refuses a non-empty directory that is not a store")
    check(sorted(os.listdir(full)), ["notes.txt"], "and leaves it untouched")
    fresh = os.path.join(HOME, "fresh.cassette")
    mem.execute("SELECT cql_open(?)", (fresh,)).fetchall()
    check(marker(fresh), "Cassette store\nformat 1\n", "cql_open() makes a store with its marker")


def test_default_store():
    db = connect(os.path.join(HOME, "app.db"))
    db.execute("CREATE VIRTUAL TABLE t USING cql(k int PRIMARY KEY, v text)")
    db.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
    db.close()
    check(marker(os.path.join(HOME, "app.db.cassette")), "Cassette store\nformat 1\n",
          "the default store beside the database has its marker")


def sqlite3_as_nobody(db, sql):
    return subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
         "sqlite3", "-bail", db, "-cmd", f".load {EXT}", sql],
        capture_output=True, text=True)


def test_read_only():
    if os.geteuid() != 0:
        print("SKIPPED: read-only store (needs root to run sqlite3 as the user nobody)")
        return
    top = tempfile.mkdtemp(prefix="cassette-ro-")
    try:
        os.chmod(top, 0o755)
        copy = os.path.join(top, "app")
        os.makedirs(copy)
        shutil.copy(os.path.join(HOME, "app.db"), copy)
        shutil.copytree(os.path.join(HOME, "app.db.cassette"), os.path.join(copy, "app.db.cassette"))
        subprocess.run(["chmod", "-R", "a+rX,go-w", copy], check=True)
        before = tree(copy)
        db = os.path.join(copy, "app.db")
        got = sqlite3_as_nobody(db, "SELECT k, v FROM t ORDER BY k;")
        check((got.returncode, got.stdout, got.stderr), (0, "1|one\n2|two\n", ""),
              "a read-only store reads (sqlite3 as nobody)")
        got = sqlite3_as_nobody(db, "INSERT INTO t VALUES (3, 'three');")
        check((got.returncode, got.stdout, got.stderr),
              (8, "", "Error: stepping, attempt to write a readonly database (8)\n"),
              "a write through the read-only database fails")
        store = os.path.join(copy, "app.db.cassette")
        got = sqlite3_as_nobody(":memory:", f"SELECT cql_open('{store}') IS NOT NULL; "
                                "SELECT cql('INSERT INTO main.t (k, v) VALUES (3, ''three'')');")
        check((got.returncode, got.stdout, got.stderr),
              (1, "1\n", f"Error: stepping, store {store} is read-only (its directory is not "
                         "writable): nothing was written\n"),
              "a write to the read-only store itself fails")
        check(tree(copy), before, "and changes nothing")
    finally:
        shutil.rmtree(top)


def main():
    test_cql_open()
    test_default_store()
    test_read_only()


if __name__ == "__main__":
    main()
