"""The SQLite extension against native SQLite as the data grows (`make bench-scale`).

    python3 tests/bench/scale_bench.py BUILD_DIR

The workload of tests/bench/sqlite_bench.py (same table, same ingest, same slice and scan SQL),
at each size of BENCH_SCALE_ROWS (default "1000000 5000000 20000000"), each side in processes of
its own so that each side's peak RSS is its own:
  ingest       the rows in one transaction (INSERT ... SELECT inside BEGIN/COMMIT)
  hot slices   BENCH_SCALE_SLICES (default 20000) slices of random partitions right after the
               ingest, in the same process (its caches and the OS page cache warm); the floor
               (tests/bench/slice_floor, when built) runs the same slices
  scan         the full-scan GROUP BY, same process
  disk         bytes on disk once closed (the store flushed with cql_flush())
  peak RSS     the ingesting process's maximum resident set (getrusage), each side
  cold slices  a new process per side after every file of both sides is synced and dropped from
               the page cache (posix_fadvise(POSIX_FADV_DONTNEED)): every partition's newest 50
               rows once (1,000 slices, random order), so that every slice reads from the disk;
               the bytes each slice fetched from the block device (/proc/self/io read_bytes)
               are printed beside the time (a VM's host may still cache them: the time then
               is that of the host's cache)
Every result is checked against the other side's (row counts, the scan's groups).

Prints "# ..." figures, a table, and `RESULT <workload>-<rows> sqlite-native <ratio>` lines:
native's time / Cassette's (above 1: Cassette faster), native's bytes / Cassette's for disk,
native's peak RSS / Cassette's for rss; `RESULT slices-hot-<rows> floor <ratio>` is the floor's
time / Cassette's (the issue's "fraction of the floor"). `RESULT <workload>-<rows>-cpu ...` are
the same ratios of CPU seconds (every thread of the process, the store's background work
included), which a loaded machine disturbs much less than wall time.
"""
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_bench as sb  # noqa: E402  (the workload: table, ingest, slices, scan)

build_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
sizes = [int(n) for n in os.environ.get("BENCH_SCALE_ROWS", "1000000 5000000 20000000").split()]
hot_slices = int(os.environ.get("BENCH_SCALE_SLICES", "20000"))


def side_path(work, side):
    return os.path.join(work, side + ".db")


def side_files(work, side):
    """Every file of a side: the native database (and a journal), or the store directory's."""
    path = side_path(work, side)
    if side == "native":
        return [p for p in (path, path + "-journal", path + "-wal") if os.path.exists(p)]
    files = [path] if os.path.exists(path) else []
    for root, _, names in os.walk(path + ".cassette"):
        files.extend(os.path.join(root, name) for name in names)
    return files


def drop_page_cache(work):
    """Syncs every file of both sides and drops its pages from the OS page cache."""
    os.sync()
    for side in ("native", "cassette"):
        for path in side_files(work, side):
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def cpu_seconds():
    """This process's CPU time so far, every thread's (the store's background work included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed_slices(conn, keys):
    """(seconds, rows fetched, CPU seconds)."""
    fetched = 0
    start, cpu = time.perf_counter(), cpu_seconds()
    for key in keys:
        fetched += len(conn.execute(sb.SLICE, key).fetchall())
    return time.perf_counter() - start, fetched, cpu_seconds() - cpu


def hot_keys():
    rng = random.Random(42)
    return [("source-%d" % rng.randrange(sb.SOURCES), rng.randrange(sb.HOURS))
            for _ in range(hot_slices)]


def cold_keys():
    keys = [("source-%d" % s, h) for s in range(sb.SOURCES) for h in range(sb.HOURS)]
    random.Random(7).shuffle(keys)
    return keys


def child_load(work, side, rows):
    """In a process of its own: ingest, hot slices, scan, then settle; prints its figures."""
    path = side_path(work, side)
    conn = sb.connect(side, path)
    conn.execute(sb.CREATE[side])
    out = {}
    start, cpu = time.perf_counter(), cpu_seconds()
    conn.execute("BEGIN")
    conn.execute(sb.ingest_sql(rows))
    conn.execute("COMMIT")
    out["ingest"] = time.perf_counter() - start
    out["ingest_cpu"] = cpu_seconds() - cpu
    count = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    if count != rows:
        raise SystemExit(f"{side}: {count} rows after the ingest, want {rows}")
    out["slices_hot"], out["hot_rows"], out["slices_hot_cpu"] = timed_slices(conn, hot_keys())
    start, cpu = time.perf_counter(), cpu_seconds()
    out["scan_result"] = conn.execute(sb.SCAN).fetchall()
    out["scan"] = time.perf_counter() - start
    out["scan_cpu"] = cpu_seconds() - cpu
    if side == "cassette":
        conn.execute("SELECT cql_flush()").fetchall()
    conn.close()
    out["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))


def read_bytes():
    """This process's bytes fetched from the block device so far (/proc/self/io read_bytes: page
    cache hits do not count), or None where the kernel does not say."""
    try:
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("read_bytes:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def child_cold(work, side):
    conn = sb.connect(side, side_path(work, side))
    before = read_bytes()
    seconds, fetched, cpu = timed_slices(conn, cold_keys())
    after = read_bytes()
    conn.close()
    print(json.dumps({"slices_cold": seconds, "cold_rows": fetched, "slices_cold_cpu": cpu,
                      "cold_read_bytes": None if before is None else after - before,
                      "rss_cold": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def child_floor(work):
    sb.work = work
    conn = sb.open_floor(50)
    seconds, fetched, cpu = timed_slices(conn, hot_keys())
    conn.close()
    print(json.dumps({"floor": seconds, "floor_rows": fetched, "floor_cpu": cpu}))


def in_child(*args):
    done = subprocess.run([sys.executable, os.path.abspath(__file__), build_dir, "--child",
                           *map(str, args)], check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_size(rows):
    work = tempfile.mkdtemp(prefix="cassette-scale-bench-", dir=os.environ.get("BENCH_DIR"))
    try:
        r = {side: in_child("load", work, side, rows) for side in ("native", "cassette")}
        for side in r:
            r[side]["disk"] = sum(os.path.getsize(p) for p in side_files(work, side))
        floor = in_child("floor", work) if sb.has_floor() else None
        for side in ("native", "cassette"):
            drop_page_cache(work)
            r[side].update(in_child("cold", work, side))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    native, ours = r["native"], r["cassette"]
    for what in ("scan_result", "hot_rows", "cold_rows"):
        if native[what] != ours[what]:
            raise SystemExit(f"{rows} rows: {what} differs: native {native[what]}, "
                             f"cassette {ours[what]}")
    if floor is not None and floor["floor_rows"] != native["hot_rows"]:
        raise SystemExit(f"{rows} rows: the floor fetched {floor['floor_rows']} rows, "
                         f"native {native['hot_rows']}")
    cold_slices = len(cold_keys())
    for side, f in (("native", native), ("cassette", ours)):
        disk_read = ("" if f["cold_read_bytes"] is None else
                     f" ({f['cold_read_bytes'] / cold_slices / 1024:.1f} KiB from the disk each)")
        print(f"# {rows} {side:8s} ingest {f['ingest']:.2f} s ({rows / f['ingest']:,.0f} rows/s), "
              f"hot slices {f['slices_hot']:.2f} s, cold slices {f['slices_cold']:.2f} s"
              f"{disk_read}, "
              f"scan {f['scan']:.2f} s, disk {f['disk'] / 1e6:.1f} MB, "
              f"peak RSS {f['rss'] / 1e6:.0f} MB (cold reader {f['rss_cold'] / 1e6:.0f} MB); "
              f"CPU s: ingest {f['ingest_cpu']:.2f}, hot slices {f['slices_hot_cpu']:.2f}, "
              f"cold slices {f['slices_cold_cpu']:.2f}, scan {f['scan_cpu']:.2f}")
    if floor is not None:
        print(f"# {rows} floor    hot slices {floor['floor']:.2f} s (CPU {floor['floor_cpu']:.2f} s)")
    ratios = {
        "ingest": native["ingest"] / ours["ingest"],
        "slices-hot": native["slices_hot"] / ours["slices_hot"],
        "slices-cold": native["slices_cold"] / ours["slices_cold"],
        "scan": native["scan"] / ours["scan"],
        "disk": native["disk"] / ours["disk"],
        "rss": native["rss"] / ours["rss"],
    }
    # By CPU seconds: on a loaded machine each side's wall time depends on the load of its own
    # minutes, its CPU time much less.
    for workload, key in (("ingest", "ingest_cpu"), ("slices-hot", "slices_hot_cpu"),
                          ("slices-cold", "slices_cold_cpu"), ("scan", "scan_cpu")):
        ratios[workload + "-cpu"] = native[key] / max(ours[key], 1e-9)
    for workload, ratio in ratios.items():
        if workload.endswith("-cpu"):
            print(f"RESULT {workload[:-4]}-{rows}-cpu sqlite-native {ratio:.2f}")
        else:
            print(f"RESULT {workload}-{rows} sqlite-native {ratio:.2f}")
    if floor is not None:
        ratios["floor"] = floor["floor"] / ours["slices_hot"]
        ratios["floor-cpu"] = floor["floor_cpu"] / max(ours["slices_hot_cpu"], 1e-9)
        print(f"RESULT slices-hot-{rows} floor {ratios['floor']:.2f}")
        print(f"RESULT slices-hot-{rows}-cpu floor {ratios['floor-cpu']:.2f}")
    sys.stdout.flush()
    return r, ratios, floor


def main():
    if len(sys.argv) > 2 and sys.argv[2] == "--child":
        what, work = sys.argv[3], sys.argv[4]
        if what == "load":
            child_load(work, sys.argv[5], int(sys.argv[6]))
        elif what == "cold":
            child_cold(work, sys.argv[5])
        else:
            child_floor(work)
        return
    print(f"# scale bench: {sizes} rows, {hot_slices} hot slices, 1000 cold slices, "
          f"build {build_dir}")
    table = []
    for rows in sizes:
        r, ratios, floor = run_size(rows)
        table.append((rows, r, ratios, floor))
    print("#\n# | rows | side | ingest s | hot slices s | cold slices s | scan s | disk MB | "
          "peak RSS MB |")
    print("# |---|---|---|---|---|---|---|---|")
    for rows, r, ratios, floor in table:
        for side in ("native", "cassette"):
            f = r[side]
            print(f"# | {rows:,} | {side} | {f['ingest']:.2f} | {f['slices_hot']:.2f} | "
                  f"{f['slices_cold']:.2f} | {f['scan']:.2f} | {f['disk'] / 1e6:.0f} | "
                  f"{f['rss'] / 1e6:.0f} |")
        print(f"# | {rows:,} | native/cassette | {ratios['ingest']:.2f}x | "
              f"{ratios['slices-hot']:.2f}x (floor {ratios.get('floor', float('nan')):.2f}) | "
              f"{ratios['slices-cold']:.2f}x | {ratios['scan']:.2f}x | {ratios['disk']:.1f}x | "
              f"{ratios['rss']:.2f} |")
        print(f"# | {rows:,} | by CPU seconds | {ratios['ingest-cpu']:.2f}x | "
              f"{ratios['slices-hot-cpu']:.2f}x (floor {ratios.get('floor-cpu', float('nan')):.2f}) | "
              f"{ratios['slices-cold-cpu']:.2f}x | {ratios['scan-cpu']:.2f}x | | |")


if __name__ == "__main__":
    main()
