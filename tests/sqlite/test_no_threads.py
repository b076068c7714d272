"""The extension starts no thread of its own for its store.

    python3 tests/sqlite/test_no_threads.py BUILD_DIR

A commit big enough for the store to overlap its log write with the memtable insert (over 1 MiB)
and cql_flush() (after which a store with background threads starts one for compaction) must
leave the Python process with its one thread: flushes and compactions run inline. Exits 1 and
says what it found otherwise.
"""
import os
import sqlite3
import sys
import tempfile

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")


def threads():
    return len(os.listdir("/proc/self/task"))


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
    if threads() != 1:
        failures.append(f"after a 30,000-row commit: {threads()} threads, want 1")
    conn.execute("SELECT cql_flush()").fetchall()
    if threads() != 1:
        failures.append(f"after cql_flush(): {threads()} threads, want 1")
    rows = conn.execute("SELECT count(*), sum(ts) FROM events WHERE source = 'source-7'").fetchone()
    if rows != (600, sum(range(7, 30000, 50))):
        failures.append(f"source-7 after the flush: {rows}")
    conn.close()

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("no threads: ok")
