"""An indexed lookup: the SQLite extension's storage-attached index against native SQLite's
B-tree index on the same column, same SQL, same run (`make bench`).

    python3 tests/bench/sai_bench.py BUILD_DIR

Both sides: a table users(id int primary key, email text, age int) of BENCH_SAI_ROWS rows
(default 1,000,000) written by one INSERT ... SELECT in one transaction, an index on email
(native: CREATE INDEX; Cassette: CREATE INDEX through cql(), then cql_flush() so that the rows
and their index components are in SSTables), then BENCH_SAI_LOOKUPS (default 20,000) queries
    SELECT id, age FROM users WHERE email = ?
on random existing emails (same seed for both), every row fetched. Cassette's side checks with
cql_index_reads() that every lookup was answered by the index.

Prints "# ..." figures and `RESULT sai-lookup sqlite-native <ratio>`: native time / ours, > 1
meaning Cassette is faster; `RESULT sai-lookup-cpu ...` the same by CPU seconds of the process.
"""
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time

build_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
ext = os.path.join(build_dir, "cassette")
rows = int(os.environ.get("BENCH_SAI_ROWS", "1000000"))
lookups = int(os.environ.get("BENCH_SAI_LOOKUPS", "20000"))
work = tempfile.mkdtemp(prefix="cassette-sai-bench-", dir=os.environ.get("BENCH_DIR"))

INGEST = f"""
INSERT INTO users (id, email, age)
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {rows - 1})
SELECT i, 'user' || (i * 7919 % {rows}) || '-' || i || '@example.com', i % 90 FROM n"""
LOOKUP = "SELECT id, age FROM users WHERE email = ?"


def email(i):
    return f"user{i * 7919 % rows}-{i}@example.com"


def run(side):
    path = os.path.join(work, side + ".db")
    conn = sqlite3.connect(path, isolation_level=None)
    if side == "cassette":
        conn.enable_load_extension(True)
        conn.load_extension(ext)
        conn.execute("CREATE VIRTUAL TABLE users USING cql(id int PRIMARY KEY, email text, age int)")
    else:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, age INTEGER)")
    out = {}
    start = time.perf_counter()
    conn.execute("BEGIN")
    conn.execute(INGEST)
    conn.execute("COMMIT")
    if side == "cassette":
        conn.execute("SELECT cql('CREATE INDEX users_email ON main.users (email)')").fetchall()
        conn.execute("SELECT cql_flush()").fetchall()
        conn.close()  # reopened: the virtual table sees the index from the start
        conn = sqlite3.connect(path, isolation_level=None)
        conn.enable_load_extension(True)
        conn.load_extension(ext)
    else:
        conn.execute("CREATE INDEX users_email ON users (email)")
    out["load"] = time.perf_counter() - start
    out["plan"] = " ".join(str(r[-1]) for r in conn.execute("EXPLAIN QUERY PLAN " + LOOKUP, ("x",)))

    rng = random.Random(7)
    keys = [email(rng.randrange(rows)) for _ in range(lookups)]
    reads_before = conn.execute("SELECT cql_index_reads()").fetchone()[0] if side == "cassette" else 0
    fetched = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for key in keys:
        fetched.extend(conn.execute(LOOKUP, (key,)).fetchall())
    out["lookups"] = time.perf_counter() - start
    out["cpu"] = time.process_time() - cpu_start
    out["rows"] = sorted(fetched)
    if side == "cassette":
        out["index_reads"] = conn.execute("SELECT cql_index_reads()").fetchone()[0] - reads_before
    conn.close()
    return out


def main():
    print(f"# sai bench: {rows} rows, {lookups} lookups, SQLite {sqlite3.sqlite_version}, in {work}")
    native = run("native")
    ours = run("cassette")
    for side, r in (("native", native), ("cassette", ours)):
        print(f"# {side:8s} load+index {r['load']:.2f} s, lookups {r['lookups']:.3f} s "
              f"({lookups / r['lookups']:,.0f}/s, {len(r['rows'])} rows), CPU {r['cpu']:.3f} s, "
              f"plan: {r['plan']}")
    if native["rows"] != ours["rows"] or len(ours["rows"]) != lookups:
        print("# results differ between native SQLite and Cassette")
        sys.exit(1)
    if ours["index_reads"] != lookups:
        print(f"# Cassette answered {ours['index_reads']} of {lookups} lookups from the index")
        sys.exit(1)
    print(f"RESULT sai-lookup sqlite-native {native['lookups'] / ours['lookups']:.2f}")
    # CPU seconds of the lookups: on a loaded machine the wall ratio moves with the load.
    print(f"RESULT sai-lookup-cpu sqlite-native {native['cpu'] / ours['cpu']:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
