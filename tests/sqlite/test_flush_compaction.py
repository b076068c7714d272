"""Compaction keeps up in a SQLite host, where the store has no thread of its own.

    python3 tests/sqlite/test_flush_compaction.py BUILD_DIR

A host that calls cql_flush() after each of 1,100 small writes makes 1,100 SSTables unless
compaction follows the flushes; each held a descriptor, and with more SSTables than the
process's descriptor limit neither sqlite3 nor the shell could open the store ("Too many open
files"). Checks that the store ends with a bounded number of SSTables, every row readable, and
that a new sqlite3 process and the `cassette` shell open it, each with a limit of 256
descriptors. Exits 1 and says what it found otherwise.
"""
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
EXT = os.path.join(BUILD, "cassette")
FLUSHES = 1100
MAX_SSTABLES = 40  # size-tiered with 4 files a tier: a few per tier, log4(1100) tiers


def with_descriptor_limit(limit):
    def lower():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    return lower


failures = []
with tempfile.TemporaryDirectory() as work:
    db = os.path.join(work, "app.db")
    conn = sqlite3.connect(db, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    conn.execute("CREATE VIRTUAL TABLE events USING cql(id int PRIMARY KEY, payload text)")
    for i in range(FLUSHES):
        conn.execute("INSERT INTO events (id, payload) VALUES (?, ?)", (i, f"event {i}"))
        conn.execute("SELECT cql_flush()").fetchall()
    data = os.path.join(work, "app.db.cassette", "data")
    sstables = sorted(n for n in os.listdir(data) if n.endswith(".sst"))
    if len(sstables) > MAX_SSTABLES:
        failures.append(f"{len(sstables)} SSTables after {FLUSHES} flushes "
                        f"(at most {MAX_SSTABLES} expected)")
    rows = conn.execute("SELECT count(*), sum(id), min(payload) FROM events").fetchone()
    expected = (FLUSHES, sum(range(FLUSHES)), "event 0")
    if rows != expected:
        failures.append(f"in the writing process: {rows}, expected {expected}")
    conn.close()

    sql = f".load {EXT}\nSELECT count(*), sum(id) FROM events;\n"
    got = subprocess.run(["sqlite3", db], input=sql, capture_output=True, text=True,
                         preexec_fn=with_descriptor_limit(256))
    want = f"{FLUSHES}|{sum(range(FLUSHES))}\n"
    if got.returncode != 0 or got.stdout != want or got.stderr:
        failures.append(f"sqlite3 in a new process: exit {got.returncode}, "
                        f"stdout {got.stdout!r}, stderr {got.stderr!r} (expected {want!r})")

    got = subprocess.run([os.path.join(BUILD, "cassette"), os.path.join(work, "app.db.cassette"),
                          "--format", "csv", "-e", "SELECT payload FROM main.events WHERE id = 1099"],
                         capture_output=True, text=True, preexec_fn=with_descriptor_limit(256))
    want = "payload\nevent 1099\n"
    if got.returncode != 0 or got.stdout != want or got.stderr:
        failures.append(f"the cassette shell: exit {got.returncode}, stdout {got.stdout!r}, "
                        f"stderr {got.stderr!r} (expected {want!r})")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"{FLUSHES} flushes: {len(sstables)} SSTables, store opens in sqlite3 and the shell")
