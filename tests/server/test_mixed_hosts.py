#!/usr/bin/python3
"""One store, three hosts at once: `cassette serve` (through the DataStax Python driver), the
`cassette` shell and SQLite (the extension loaded into sqlite3, in other processes) each see
the others' commits, and counter increments made by all of them at the same time add up.

Usage: tests/server/test_mixed_hosts.py BUILD_DIR
"""
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading

from server_process import Server, run_tests
from test_driver_cluster import cluster
from test_driver_connection import KEYSPACE

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)

# A sqlite3 process that opens the store and runs each CQL statement of its arguments with cql(),
# printing each result (JSON) on a line.
SQLITE_CQL = """
import sqlite3, sys
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
db.execute("SELECT cql_open(?)", (sys.argv[2],))
for statement in sys.argv[3:]:
    print(db.execute("SELECT cql(?)", (statement,)).fetchone()[0])
"""


def shell(build_dir, store, text):
    """The shell's CSV output of `text`, run in a process of its own."""
    result = subprocess.run([os.path.join(build_dir, "cassette"), store, "--format", "csv",
                             "-e", text], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def sqlite(build_dir, store, *statements):
    """cql()'s results of `statements`, run by SQLite in a process of its own."""
    extension = os.path.join(os.path.abspath(build_dir), "cassette")
    result = subprocess.run([sys.executable, "-c", SQLITE_CQL, extension, store, *statements],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_each_host_reads_the_others_commits(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        with Server(build_dir, store) as server:
            c = cluster(server)
            try:
                session = c.connect()
                session.execute(KEYSPACE)
                session.execute("CREATE TABLE ks.kv (k int PRIMARY KEY, v text)")
                session.execute("INSERT INTO ks.kv (k, v) VALUES (1, 'driver')")
                shell(build_dir, store, "INSERT INTO ks.kv (k, v) VALUES (2, 'shell')")
                sqlite(build_dir, store, "INSERT INTO ks.kv (k, v) VALUES (3, 'sqlite')")

                rows = sorted((r.k, r.v) for r in session.execute("SELECT k, v FROM ks.kv"))
                assert rows == [(1, "driver"), (2, "shell"), (3, "sqlite")], rows
                got = shell(build_dir, store, "SELECT k, v FROM ks.kv WHERE k IN (1, 2, 3)")
                assert got == "k,v\n1,driver\n2,shell\n3,sqlite\n", got
                (got,) = sqlite(build_dir, store, "SELECT k, v FROM ks.kv WHERE k IN (1, 2, 3)")
                assert json.loads(got) == [{"k": 1, "v": "driver"}, {"k": 2, "v": "shell"},
                                           {"k": 3, "v": "sqlite"}], got

                # A delete through SQLite is gone for the driver at once.
                sqlite(build_dir, store, "DELETE FROM ks.kv WHERE k = 2")
                rows = sorted(r.k for r in session.execute("SELECT k FROM ks.kv"))
                assert rows == [1, 3], rows
            finally:
                c.shutdown()


def test_counter_increments_from_every_host_at_once_add_up(build_dir):
    driver_threads, per_thread, shell_runs, sqlite_runs = 4, 50, 10, 10
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        with Server(build_dir, store) as server:
            c = cluster(server)
            try:
                session = c.connect()
                session.execute(KEYSPACE)
                session.execute("CREATE TABLE ks.hits (page text PRIMARY KEY, n counter)")
                increment = session.prepare("UPDATE ks.hits SET n = n + 1 WHERE page = 'home'")
                errors = []

                def driver_client():
                    try:
                        for _ in range(per_thread):
                            session.execute(increment)
                    except Exception as e:  # reported below: the case fails
                        errors.append(repr(e))

                def shell_client():
                    try:
                        for _ in range(shell_runs):
                            shell(build_dir, store,
                                  "UPDATE ks.hits SET n = n + 1 WHERE page = 'home'")
                    except Exception as e:
                        errors.append(repr(e))

                def sqlite_client():
                    try:
                        sqlite(build_dir, store,
                               *["UPDATE ks.hits SET n = n + 1 WHERE page = 'home'"] * sqlite_runs)
                    except Exception as e:
                        errors.append(repr(e))

                threads = [threading.Thread(target=driver_client) for _ in range(driver_threads)]
                threads += [threading.Thread(target=shell_client),
                            threading.Thread(target=sqlite_client)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                assert errors == [], errors
                expected = driver_threads * per_thread + shell_runs + sqlite_runs
                (row,) = session.execute("SELECT n FROM ks.hits WHERE page = 'home'")
                assert row.n == expected, (row.n, expected)
                got = shell(build_dir, store, "SELECT n FROM ks.hits WHERE page = 'home'")
                assert got == f"n\n{expected}\n", got
            finally:
                c.shutdown()


if __name__ == "__main__":
    sys.exit(run_tests("server-mixed", globals()))
