"""A transaction larger than memory that reads its own writes midway, through the SQLite
extension: its peak memory (issue 20, spill layer 4: reads see the runs on disk rather than
bringing them back into memory).

    BENCH_SQLITE_ROWS=2000000 python3 tests/bench/sqlite_spill_read_rss.py BUILD_DIR

Inside one BEGIN/COMMIT: sqlite_bench.py's ingest of the first half of BENCH_SQLITE_ROWS rows,
then reads of them (SELECT count(*), 1000 point reads, a partition's slice), an UPDATE of one
partition's rows, the second half, and the COMMIT. Prints each step's time and the process's
peak RSS (getrusage's ru_maxrss, as `/usr/bin/time -v` reports it), and checks the results.
"""
import os
import random
import resource
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_bench as bench  # noqa: E402  (reads BUILD_DIR from argv, makes bench.work)


def ingest(first, count):
    """Rows first .. first + count - 1 of sqlite_bench.py's ingest."""
    return f"""
INSERT INTO events (source, hour, ts, kind, payload)
WITH RECURSIVE n(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM n WHERE i < {first + count - 1})
SELECT 'source-' || (i % {bench.SOURCES}), (i / {bench.SOURCES}) % {bench.HOURS}, 1700000000000 + i,
       CASE i % 4 WHEN 0 THEN 'click' WHEN 1 THEN 'view' WHEN 2 THEN 'buy' ELSE 'scroll' END,
       'user=' || (i * 7919 % 100003) || ';page=/products/' || (i % 997) || ';ref=campaign-' || (i % 13)
FROM n"""


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    half = bench.rows // 2
    steps = []

    def step(name, fn):
        start = time.perf_counter()
        result = fn()
        steps.append(f"{name} {time.perf_counter() - start:.2f} s (peak {peak_mb():.0f} MB)")
        return result

    try:
        bench.work = tempfile.mkdtemp(prefix="cassette-spill-read-",
                                      dir=os.environ.get("BENCH_DIR"))
        conn = bench.connect("cassette", os.path.join(bench.work, "cassette.db"))
        conn.execute(bench.CREATE["cassette"])
        conn.execute("BEGIN")
        step("ingest first half", lambda: conn.execute(ingest(0, half)))
        count = step("count", lambda: conn.execute("SELECT count(*) FROM events").fetchone()[0])
        if count != half:
            sys.exit(f"the transaction reads {count} rows of its own, expected {half}")
        rng = random.Random(7)

        def point_reads():
            for _ in range(1000):
                i = rng.randrange(half)
                row = conn.execute(
                    "SELECT ts FROM events WHERE source = ? AND hour = ? AND ts = ?",
                    (f"source-{i % bench.SOURCES}", (i // bench.SOURCES) % bench.HOURS,
                     1700000000000 + i)).fetchone()
                if row is None:
                    sys.exit(f"the transaction does not read its row {i}")

        step("1000 point reads", point_reads)
        step("slice", lambda: conn.execute(
            "SELECT * FROM events WHERE source = 'source-3' AND hour = 2 ORDER BY ts DESC "
            "LIMIT 50").fetchall())
        step("update a partition", lambda: conn.execute(
            "UPDATE events SET kind = 'updated' WHERE source = 'source-5' AND hour = 1"))
        step("ingest second half", lambda: conn.execute(ingest(half, bench.rows - half)))
        step("commit", lambda: conn.execute("COMMIT"))
        count = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        updated = conn.execute("SELECT count(*) FROM events WHERE source = 'source-5' AND hour = 1 "
                               "AND kind = 'updated'").fetchone()[0]
        conn.close()
        if count != bench.rows:
            sys.exit(f"the transaction left {count} rows, expected {bench.rows}")
        expected = len([i for i in range(half) if i % bench.SOURCES == 5
                        and (i // bench.SOURCES) % bench.HOURS == 1])
        if updated != expected:
            sys.exit(f"the UPDATE changed {updated} rows, expected {expected}")
        for s in steps:
            print(f"# {s}")
        print(f"# spill read {bench.rows} rows: peak RSS {peak_mb():.0f} MB")
    finally:
        shutil.rmtree(bench.work, ignore_errors=True)


if __name__ == "__main__":
    main()
