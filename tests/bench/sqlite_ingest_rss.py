"""One SQL transaction's ingest through the SQLite extension, alone: for the peak memory of a
transaction of any size (issue 20, "bounded memory for any transaction").

    BENCH_SQLITE_ROWS=5000000 /usr/bin/time -v python3 tests/bench/sqlite_ingest_rss.py BUILD_DIR

The process does nothing but load the extension and run sqlite_bench.py's ingest (its table and
its INSERT ... SELECT of BENCH_SQLITE_ROWS rows inside BEGIN/COMMIT), so `/usr/bin/time -v`'s
"Maximum resident set size" is the transaction's peak. Prints "# ingest <rows> rows: <s> s".
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_bench as bench  # noqa: E402  (reads BUILD_DIR from argv)


def main():
    # sqlite_bench makes its work directory in its own main(), which this script does not run.
    bench.work = tempfile.mkdtemp(prefix="cassette-ingest-rss-", dir=os.environ.get("BENCH_DIR"))
    try:
        conn = bench.connect("cassette", os.path.join(bench.work, "cassette.db"))
        conn.execute(bench.CREATE["cassette"])
        start = time.perf_counter()
        conn.execute("BEGIN")
        conn.execute(bench.INGEST)
        conn.execute("COMMIT")
        elapsed = time.perf_counter() - start
        count = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        conn.close()
        if count != bench.rows:
            sys.exit(f"the ingest left {count} rows, expected {bench.rows}")
        print(f"# ingest {bench.rows} rows in one transaction: {elapsed:.2f} s")
    finally:
        shutil.rmtree(bench.work, ignore_errors=True)


if __name__ == "__main__":
    main()
