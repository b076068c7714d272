"""What the Python tests of the SQLite extension share: the extension's path (from BUILD_DIR,
the script's first argument), a connection that has loaded it, and checks that print
"ok: WHAT" or raise AssertionError with what was wanted and what came."""
import os
import sqlite3
import sys

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")


def connect(path, uri=False, isolation_level=None):
    """A connection to `path` with the extension loaded; autocommit unless `isolation_level`
    (Python's sqlite3: "" opens transactions implicitly before writes)."""
    conn = sqlite3.connect(path, uri=uri, isolation_level=isolation_level)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    conn.enable_load_extension(False)
    return conn


def check(got, want, what):
    if got != want:
        raise AssertionError(f"{what}:\n  want {want!r}\n  got  {got!r}")
    print(f"ok: {what}")


def check_error(fn, want_message, what):
    """fn() must raise sqlite3.Error with exactly `want_message`."""
    try:
        fn()
    except sqlite3.Error as e:
        check(str(e), want_message, what)
        return
    raise AssertionError(f"{what}: no error, want {want_message!r}")


def rows(conn, sql):
    return conn.execute(sql).fetchall()
