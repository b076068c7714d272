"""Where a slice's time goes: the bench's slice at LIMIT 1, 50 and 200 against native SQLite,
slice_floor (a virtual table with the rows in memory) and Cassette, all in one process.

    python3 tests/bench/slice_limits.py BUILD_DIR      (a `make bench` build: it has slice_floor)

Builds the bench's 1M-row table on both sides (Cassette's flushed to one SSTable), then times
3,000 slices per side and limit, alternating sides, and keeps the best of 8 rounds: single runs
on a shared virtual machine swing too much to compare. Prints microseconds per slice and the
slope per row between LIMIT 1 and LIMIT 200. Above the floor, native's numbers are what SQLite's
B-tree costs and Cassette's what its read path costs; a virtual table cannot go below the floor.
"""
import os
import random
import shutil
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_bench as bench  # noqa: E402  (the bench's table, rows and statements)

LIMITS = (1, 50, 200)
ROUNDS = 8
SLICES = 3000


def open_side(side, work):
    if side == "floor":
        return bench.open_floor(max(LIMITS))  # from the native side's database
    conn = bench.connect(side, os.path.join(work, side + ".db"))
    conn.execute(bench.CREATE[side])
    conn.execute("BEGIN")
    conn.execute(bench.INGEST)
    conn.execute("COMMIT")
    if side == "cassette":
        conn.execute("SELECT cql_flush()").fetchall()
    return conn


def main():
    work = bench.work  # the bench module's fresh directory (made when it is imported)
    try:
        if not bench.has_floor():
            sys.exit(f"slice_limits: no slice_floor.so in {bench.build_dir} (make bench builds it)")
        conns = {side: open_side(side, work) for side in ("native", "floor", "cassette")}
        rng = random.Random(42)
        keys = [("source-%d" % rng.randrange(bench.SOURCES), rng.randrange(bench.HOURS))
                for _ in range(SLICES)]
        best = {}
        for limit in LIMITS:
            query = bench.SLICE.replace("LIMIT 50", f"LIMIT {limit}")
            expected = [conns["native"].execute(query, key).fetchall() for key in keys[:20]]
            for side, conn in conns.items():
                got = [conn.execute(query, key).fetchall() for key in keys[:20]]
                assert got == expected, f"{side} differs from native at LIMIT {limit}"
            for _ in range(ROUNDS):
                for side, conn in conns.items():
                    start = time.perf_counter()
                    for key in keys:
                        conn.execute(query, key).fetchall()
                    seconds = (time.perf_counter() - start) / len(keys)
                    best[side, limit] = min(best.get((side, limit), seconds), seconds)
        print("us per slice  " + "".join(f"LIMIT {limit:<6}" for limit in LIMITS) + "per row")
        for side in conns:
            row = [best[side, limit] * 1e6 for limit in LIMITS]
            slope = (row[-1] - row[0]) / (LIMITS[-1] - LIMITS[0])
            print(f"{side:12s}  " + "".join(f"{v:<12.2f}" for v in row) + f"{slope:.3f}")
        for conn in conns.values():
            conn.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
