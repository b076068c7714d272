"""GROUP BY over a table big enough for the store to read it as several token ranges at once.

    python3 tests/sqlite/test_grouped_parallel.py BUILD_DIR

A CQL table and a native copy with 150,000 rows (more than one 50,000-row share per core, so a
grouped full scan is split across threads where there are two or more cores): every grouped
result, in its order, must equal the native table's, committed and inside a transaction whose
own writes the grouping must see. Exits 1 and prints the differences.
"""
import os
import sqlite3
import sys

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")
ROWS = 150_000

conn = sqlite3.connect(":memory:", isolation_level=None)
conn.enable_load_extension(True)
conn.load_extension(EXT)
conn.execute("CREATE VIRTUAL TABLE t USING cql(src text, day int, ts bigint, kind text, n int, "
             "PRIMARY KEY ((src, day), ts))")
conn.execute("CREATE TABLE native (src TEXT, day INT, ts INT, kind TEXT, n INT, PRIMARY KEY (src, day, ts))")
FILL = f"""
INSERT INTO {{}} (src, day, ts, kind, n)
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < {ROWS - 1})
SELECT 's' || (x % 37), x % 11, x,
       CASE x % 5 WHEN 0 THEN 'view' WHEN 1 THEN 'buy' WHEN 2 THEN NULL WHEN 3 THEN '' ELSE 'Buy' END,
       CASE WHEN x % 13 = 0 THEN NULL ELSE (x % 9 - 4) * 1000 END
FROM i"""
for table in ("t", "native"):
    conn.execute("BEGIN")
    conn.execute(FILL.format(table))
    conn.execute("COMMIT")

QUERIES = [
    "SELECT kind, count(*), sum(ts), min(n), max(src) FROM {} GROUP BY kind",
    "SELECT kind, count(*) FROM {} GROUP BY kind ORDER BY kind DESC",
    "SELECT n, kind, count(*), sum(day) FROM {} GROUP BY n, kind",
    "SELECT n, count(*) FROM {} GROUP BY n ORDER BY n DESC",
    "SELECT src, count(*), max(ts) FROM {} GROUP BY src ORDER BY src",
    "SELECT DISTINCT n FROM {} ORDER BY n",
    "SELECT day, kind, count(*) FROM {} WHERE n > 0 GROUP BY day, kind HAVING count(*) > 10",
]
failures = []


def compare(label):
    for q in QUERIES:
        got = conn.execute(q.format("t")).fetchall()
        want = conn.execute(q.format("native")).fetchall()
        if got != want:
            failures.append(f"{label}: {q.format('t')}\n  cql    {got[:5]}\n  native {want[:5]}")


plan = conn.execute("EXPLAIN QUERY PLAN " + QUERIES[0].format("t")).fetchall()[0][3]
if "group 3 keep" not in plan or "| scan" not in plan:
    failures.append(f"the grouped plan is not used: {plan}")
compare("committed")
conn.execute("BEGIN")
for table in ("t", "native"):
    conn.execute(f"INSERT INTO {table} (src, day, ts, kind, n) VALUES ('new', 1, 1, 'new kind', 7)")
    conn.execute(f"UPDATE {table} SET kind = 'changed' WHERE src = 's3' AND day = 3")
    conn.execute(f"DELETE FROM {table} WHERE src = 's5'")
compare("in a transaction")
conn.execute("ROLLBACK")
compare("after rollback")

for f in failures:
    print(f)
print(f"grouped parallel: {len(failures)} differences")
sys.exit(1 if failures else 0)
