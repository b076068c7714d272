"""The extension starts no thread of its own for its store.

    python3 tests/sqlite/test_no_threads.py BUILD_DIR

A commit big enough for the store to overlap its log write with the memtable insert (over 1 MiB;
a store with background threads does that on a thread of its own) and cql_flush() (after which
such a store starts its compaction thread) must leave the Python process single-threaded as glibc
sees it: __libc_single_threaded, which glibc clears for good when a process starts its second
thread (and with it the single-thread fast paths of every mutex), must still be set. Exits 1 and
says what it found otherwise.
"""
import ctypes
import os
import sqlite3
import sys
import tempfile

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")
SINGLE_THREADED = ctypes.c_char.in_dll(ctypes.CDLL("libc.so.6"), "__libc_single_threaded")


def state():
    return (f"__libc_single_threaded={SINGLE_THREADED.value[0]}, "
            f"{len(os.listdir('/proc/self/task'))} thread(s)")


if SINGLE_THREADED.value != b"\x01":
    print(f"the test process is multi-threaded before the extension is loaded ({state()})")
    sys.exit(1)

failures = []
with tempfile.TemporaryDirectory() as work:
    conn = sqlite3.connect(os.path.join(work, "app.db"), isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    conn.execute("CREATE VIRTUAL TABLE events USING cql(source text, ts bigint, payload text, "
                 "PRIMARY KEY (source, ts))")
    conn.execute("BEGIN")
    conn.execute("""
        INSERT INTO events (source, ts, payload)
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 29999)
        SELECT 'source-' || (i % 50), i, printf('%.60d', i) FROM n""")
    conn.execute("COMMIT")
    if SINGLE_THREADED.value != b"\x01":
        failures.append(f"after a 30,000-row commit: {state()}")
    conn.execute("SELECT cql_flush()").fetchall()
    if SINGLE_THREADED.value != b"\x01":
        failures.append(f"after cql_flush(): {state()}")
    rows = conn.execute("SELECT count(*), sum(ts) FROM events WHERE source = 'source-7'").fetchone()
    if rows != (600, sum(range(7, 30000, 50))):
        failures.append(f"source-7 after the flush: {rows}")
    conn.close()

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("no threads: ok")
