"""The SQLite extension against native SQLite, same SQL, same run (`make bench`).

    python3 tests/bench/sqlite_bench.py BUILD_DIR

Both sides get the same table shape and the same statements:
  - Cassette: CREATE VIRTUAL TABLE events USING cql(source text, hour int, ts bigint, kind text,
    payload text, PRIMARY KEY ((source, hour), ts), CLUSTERING ORDER BY (ts DESC))
  - native:   CREATE TABLE events (source TEXT, hour INTEGER, ts INTEGER, kind TEXT, payload TEXT,
    PRIMARY KEY (source, hour, ts DESC)) WITHOUT ROWID
each in its own fresh database file (SQLite's defaults: rollback journal, synchronous=FULL).

Workloads:
  ingest   BENCH_SQLITE_ROWS rows (default 1,000,000) in 1,000 partitions (100 sources x 10
           hours), written by one INSERT ... SELECT from a recursive CTE inside BEGIN/COMMIT
  slices   BENCH_SQLITE_SLICES (default 100,000) queries
           SELECT * FROM events WHERE source = ? AND hour = ? ORDER BY ts DESC LIMIT 50
           on random partitions (same seed for both), every row fetched; Cassette runs them
           again with the row cache on for the table (caching = {'keys': 'ALL',
           'rows_per_partition': '50'}: a first pass fills it, the second is timed), reported as
           `RESULT slices-row-cache ...`
  scan     SELECT kind, count(*), sum(ts), max(length(payload)) FROM events GROUP BY kind
           (a full scan, every row)
  disk     bytes on disk after the ingest, once each side is closed and settled: the native
           database file, against the Cassette store directory (flushed with cql_flush() when
           the extension has it, so the directory holds SSTables rather than commit log)

The slices' floor: the same slices against slice_floor (tests/bench/slice_floor, built with the
benchmarks), a virtual table that holds the newest rows of every partition in memory and does
nothing per query but SQLite's virtual-table calls. Printed as "# floor" lines: native / floor
is the most any virtual table could score on the slices, and floor vs Cassette is what the
storage read costs per slice; `RESULT slices floor R` and `RESULT slices-row-cache floor R` give
floor time / Cassette's time without and with the row cache (issue 20's targets: 0.85 and 0.95).

Prints the raw figures as "# ..." lines and `RESULT <workload> sqlite-native <ratio>`, ratio > 1
meaning Cassette is better (native time / ours; for disk, native bytes / ours).
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
rows = int(os.environ.get("BENCH_SQLITE_ROWS", "1000000"))
slices = int(os.environ.get("BENCH_SQLITE_SLICES", "100000"))
work = None  # main()'s temporary directory
SOURCES, HOURS = 100, 10

CREATE = {
    "cassette": "CREATE VIRTUAL TABLE events USING cql(source text, hour int, ts bigint, kind text, "
                "payload text, PRIMARY KEY ((source, hour), ts), CLUSTERING ORDER BY (ts DESC))",
    "native": "CREATE TABLE events (source TEXT, hour INTEGER, ts INTEGER, kind TEXT, payload TEXT, "
              "PRIMARY KEY (source, hour, ts DESC)) WITHOUT ROWID",
}


def ingest_sql(count):
    """The ingest of `count` rows. Row i goes to partition (source i % 100, hour (i / 100) % 10):
    every partition grows evenly, arriving interleaved as a live feed would. About 60 bytes of
    payload per row. (tests/bench/scale_bench.py runs it at several sizes.)"""
    return f"""
INSERT INTO events (source, hour, ts, kind, payload)
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {count - 1})
SELECT 'source-' || (i % {SOURCES}), (i / {SOURCES}) % {HOURS}, 1700000000000 + i,
       CASE i % 4 WHEN 0 THEN 'click' WHEN 1 THEN 'view' WHEN 2 THEN 'buy' ELSE 'scroll' END,
       'user=' || (i * 7919 % 100003) || ';page=/products/' || (i % 997) || ';ref=campaign-' || (i % 13)
FROM n"""


INGEST = ingest_sql(rows)
# The head each slice reads (LIMIT 50), in the SQL quoting of cql('...').
ROW_CACHE = "{''keys'': ''ALL'', ''rows_per_partition'': ''50''}"
SLICE = "SELECT * FROM events WHERE source = ? AND hour = ? ORDER BY ts DESC LIMIT 50"
SCAN = "SELECT kind, count(*), sum(ts), max(length(payload)) FROM events GROUP BY kind ORDER BY kind"


def connect(side, path):
    conn = sqlite3.connect(path, isolation_level=None)
    if side == "cassette":
        conn.enable_load_extension(True)
        conn.load_extension(ext)
    return conn


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def run_slices(conn):
    """Times the slice queries (random partitions, the same for every side): (seconds, rows)."""
    rng = random.Random(42)
    keys = [("source-%d" % rng.randrange(SOURCES), rng.randrange(HOURS)) for _ in range(slices)]
    fetched = 0
    start = time.perf_counter()
    for key in keys:
        fetched += len(conn.execute(SLICE, key).fetchall())
    return time.perf_counter() - start, fetched


def has_floor():
    """Whether the build has slice_floor (built only with the benchmarks)."""
    return os.path.exists(os.path.join(build_dir, "slice_floor.so"))


def open_floor(per_partition):
    """A connection to work/floor.db whose `events` is slice_floor, holding the newest
    `per_partition` rows of every partition of work/native.db (REQUIRES: has_floor())."""
    conn = sqlite3.connect(os.path.join(work, "floor.db"), isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(os.path.join(build_dir, "slice_floor"))
    native = os.path.join(work, "native.db").replace("'", "''")
    conn.execute(f"CREATE VIRTUAL TABLE events USING slice_floor('{native}', {per_partition})")
    return conn


def run_floor():
    """The slices against slice_floor: (seconds, rows), or None when the build has none."""
    if not has_floor():
        return None
    conn = open_floor(50)
    result = run_slices(conn)
    conn.close()
    return result


def run(side):
    path = os.path.join(work, side + ".db")
    conn = connect(side, path)
    conn.execute(CREATE[side])
    out = {}

    start = time.perf_counter()
    conn.execute("BEGIN")
    conn.execute(INGEST)
    conn.execute("COMMIT")
    out["ingest"] = time.perf_counter() - start
    count = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    assert count == rows, f"{side}: {count} rows after the ingest, want {rows}"

    out["slices"], out["slice_rows"] = run_slices(conn)
    if side == "cassette":
        # The same slices with the row cache on for the table (Cassandra's caching option, off
        # by default): a first pass fills it, the second is timed.
        conn.execute(f"SELECT cql('ALTER TABLE main.events WITH caching = {ROW_CACHE}')").fetchall()
        run_slices(conn)
        out["slices_row_cache"], cached_rows = run_slices(conn)
        assert cached_rows == out["slice_rows"], f"row cache: {cached_rows} rows, want {out['slice_rows']}"
        conn.execute("SELECT cql('ALTER TABLE main.events WITH caching = "
                     "{''keys'': ''ALL'', ''rows_per_partition'': ''NONE''}')").fetchall()

    start = time.perf_counter()
    out["scan_result"] = conn.execute(SCAN).fetchall()
    out["scan"] = time.perf_counter() - start
    conn.close()

    if side == "cassette":
        # Settle the store: flush the memtable to SSTables when the extension offers it
        # (cql_flush()); otherwise what the last flush left is still in the commit log.
        conn = connect(side, path)
        try:
            conn.execute("SELECT cql_flush()").fetchall()
            out["settled"] = "flushed"
        except sqlite3.OperationalError:
            out["settled"] = "not flushed (no cql_flush())"
        conn.close()
        out["disk"] = dir_bytes(path + ".cassette")
    else:
        out["disk"] = dir_bytes(path)
    return out


def main():
    global work
    work = tempfile.mkdtemp(prefix="cassette-sqlite-bench-", dir=os.environ.get("BENCH_DIR"))
    print(f"# sqlite bench: {rows} rows, {slices} slices, SQLite {sqlite3.sqlite_version}, in {work}")
    results = {}
    floor = None
    for side in ("native", "cassette"):
        results[side] = run(side)
        if side == "native":
            # Before Cassette's grouped scan, which runs threads: from a process's second thread
            # on, glibc makes every mutex operation atomic, and the floor would pay for that.
            floor = run_floor()
        r = results[side]
        print(f"# {side:8s} ingest {r['ingest']:.2f} s ({rows / r['ingest']:,.0f} rows/s), "
              f"slices {r['slices']:.2f} s ({slices / r['slices']:,.0f}/s, {r['slice_rows']} rows), "
              f"scan {r['scan']:.2f} s, disk {r['disk']:,} bytes {r.get('settled', '')}")
    native, ours = results["native"], results["cassette"]
    if native["scan_result"] != ours["scan_result"] or native["slice_rows"] != ours["slice_rows"]:
        print("# results differ between native SQLite and Cassette:")
        print("#   native  ", native["scan_result"], native["slice_rows"])
        print("#   cassette", ours["scan_result"], ours["slice_rows"])
        sys.exit(1)
    if floor is None:
        print("# floor    not measured: no slice_floor.so in the build (make bench builds it)")
    else:
        seconds, fetched = floor
        if fetched != native["slice_rows"]:
            print(f"# floor    fetched {fetched} rows, native {native['slice_rows']}")
            sys.exit(1)
        print(f"# floor    slices {seconds:.2f} s: an in-memory virtual table (slice_floor), "
              f"native/floor {native['slices'] / seconds:.2f} (the most a virtual table scores), "
              f"Cassette's read path {(ours['slices'] - seconds) / slices * 1e6:.1f} us a slice")
        # Issue 20's measure: the floor's time / Cassette's (1 would be the floor itself).
        print(f"# floor    Cassette/floor {seconds / ours['slices']:.2f} (default settings), "
              f"{seconds / ours['slices_row_cache']:.2f} with the row cache "
              f"(rows_per_partition 50: {ours['slices_row_cache']:.2f} s)")
        print(f"RESULT slices floor {seconds / ours['slices']:.2f}")
        print(f"RESULT slices-row-cache floor {seconds / ours['slices_row_cache']:.2f}")
    for workload in ("ingest", "slices", "scan"):
        print(f"RESULT {workload} sqlite-native {native[workload] / ours[workload]:.2f}")
    print(f"RESULT slices-row-cache sqlite-native {native['slices'] / ours['slices_row_cache']:.2f}")
    print(f"RESULT disk sqlite-native {native['disk'] / ours['disk']:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
