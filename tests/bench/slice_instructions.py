"""Instructions per query of the read path, by cachegrind: a measure the machine's load does not
move (tests/bench/README.md, "Why the slices stay below 1x: the floor").

    python3 tests/bench/slice_instructions.py BUILD_DIR [WORKLOAD...]

Builds a store of BENCH_INSTR_ROWS rows (default 200,000) with sqlite_bench.py's table and ingest,
flushed, and a native database of the same rows for slice_floor; then, per workload, runs
`valgrind --tool=cachegrind --cache-sim=no` on a Python process that first reads every partition
once (warm caches), then runs N queries, for N = 500 and N = 1,500: the difference / 1,000 is
the cost of one query without the process's start and the warm-up. PYTHONHASHSEED=0.

Workloads (default: floor slices cache):
  floor   the slice on slice_floor (BUILD_DIR/slice_floor.so; make bench builds it)
  slices  SELECT * FROM events WHERE source = ? AND hour = ? ORDER BY ts DESC LIMIT 50
  cache   the same with the row cache on for the table (rows_per_partition 50)
  native  the same slice on native SQLite
  scan1   SELECT sum(ts) FROM events (a one-column scan), per row
  scan1n  the same on native SQLite, per row
Prints `INSTR <workload> <instructions per query (per row for scans)>` and, with the floor,
`INSTR-RATIO <workload> <floor / workload>` (issue 20's "fraction of the floor").
"""
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

build_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
workloads = sys.argv[2:] or ["floor", "slices", "cache"]
rows = int(os.environ.get("BENCH_INSTR_ROWS", "200000"))
work = None  # main()'s directory (BENCH_INSTR_DIR keeps it for another run)
SOURCES, HOURS = 100, 10
SLICE = "SELECT * FROM events WHERE source = ? AND hour = ? ORDER BY ts DESC LIMIT 50"
SCAN1 = "SELECT sum(ts) FROM events"
ROW_CACHE = "{''keys'': ''ALL'', ''rows_per_partition'': ''50''}"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sqlite_bench import CREATE, ingest_sql  # noqa: E402  (the same table and rows)


def prepare():
    native = os.path.join(work, "native.db")
    if os.path.exists(native):
        return
    for side in ("cassette", "native"):
        conn = sqlite3.connect(os.path.join(work, side + ".db"), isolation_level=None)
        if side == "cassette":
            conn.enable_load_extension(True)
            conn.load_extension(os.path.join(build_dir, "cassette"))
        conn.execute(CREATE[side])
        conn.execute("BEGIN")
        conn.execute(ingest_sql(rows))
        conn.execute("COMMIT")
        if side == "cassette":
            conn.execute("SELECT cql_flush()").fetchall()
        conn.close()


# The measured process: argv = build_dir work workload count.
CHILD = r"""
import os, random, sqlite3, sys
sys.path.insert(0, sys.argv[5])
from slice_instructions import SLICE, SCAN1, SOURCES, HOURS, ROW_CACHE
build_dir, work, workload, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
side = {"floor": "floor", "native": "native", "scan1n": "native"}.get(workload, "cassette")
conn = sqlite3.connect(os.path.join(work, side + ".db"), isolation_level=None)
if side != "native":
    conn.enable_load_extension(True)
if side == "cassette":
    conn.load_extension(os.path.join(build_dir, "cassette"))
if side == "floor":
    conn.load_extension(os.path.join(build_dir, "slice_floor"))
    native = os.path.join(work, "native.db").replace("'", "''")
    conn.execute(f"CREATE VIRTUAL TABLE temp.events USING slice_floor('{native}', 50)")
if workload == "cache":
    conn.execute(f"SELECT cql('ALTER TABLE main.events WITH caching = {ROW_CACHE}')").fetchall()
if workload.startswith("scan1"):
    conn.execute(SCAN1).fetchall()  # warm
    for _ in range(count):
        conn.execute(SCAN1).fetchall()
    sys.exit(0)
for s in range(SOURCES):
    for h in range(HOURS):
        conn.execute(SLICE, ("source-%d" % s, h)).fetchall()
rng = random.Random(42)
for _ in range(count):
    conn.execute(SLICE, ("source-%d" % rng.randrange(SOURCES), rng.randrange(HOURS))).fetchall()
if workload == "cache":
    conn.execute("SELECT cql('ALTER TABLE main.events WITH caching = "
                 "{''keys'': ''ALL'', ''rows_per_partition'': ''NONE''}')").fetchall()
"""


def instructions(workload, count):
    out = os.path.join(work, f"cg.{workload}.{count}")
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
                    sys.executable, "-c", CHILD, build_dir, work, workload, str(count),
                    os.path.dirname(os.path.abspath(__file__))],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        for line in f:
            m = re.match(r"summary:\s+(\d+)", line)
            if m:
                return int(m.group(1))
    raise RuntimeError(f"no summary in {out}")


def main():
    global work
    work = os.environ.get("BENCH_INSTR_DIR") or tempfile.mkdtemp(prefix="cassette-instr-")
    os.makedirs(work, exist_ok=True)
    prepare()
    print(f"# {rows} rows in {work}")
    results = {}
    for w in workloads:
        if w.startswith("scan1"):
            low, high = 2, 6
            per = (instructions(w, high) - instructions(w, low)) / (high - low) / rows
        else:
            per = (instructions(w, 1500) - instructions(w, 500)) / 1000
        results[w] = per
        print(f"INSTR {w} {per:,.0f}", flush=True)
    if "floor" in results:
        for w, per in results.items():
            if w not in ("floor", "native") and not w.startswith("scan"):
                print(f"INSTR-RATIO {w} {results['floor'] / per:.3f}")


if __name__ == "__main__":
    main()
