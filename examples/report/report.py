"""A reporting script: joins CQL tables (read through the Cassette extension) with native SQLite
tables, and writes the result as CSV and as a markdown table. Python standard library only.

    python3 examples/report/report.py [BUILD_DIR [WORKDIR]]

Creates WORKDIR/shop.db (and its store WORKDIR/shop.db.cassette/) with deterministic data,
writes WORKDIR/report.csv and WORKDIR/report.md, and prints the markdown report.
"""
import csv
import os
import shutil
import sqlite3
import sys

build_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
work = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(build_dir, "report"))
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

db = sqlite3.connect(os.path.join(work, "shop.db"))
db.enable_load_extension(True)
db.load_extension(os.path.join(build_dir, "cassette"))
db.enable_load_extension(False)

# The operational data lives in CQL tables, modeled for the application's queries: a customer's
# orders, newest first, in one partition.
db.executescript("""
CREATE VIRTUAL TABLE orders USING cql(
  customer_id int, placed timestamp, order_no int, amount decimal, status text,
  PRIMARY KEY (customer_id, placed), CLUSTERING ORDER BY (placed DESC));

-- Reference data the report needs lives in ordinary SQLite tables.
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, region TEXT);
CREATE INDEX customers_by_region ON customers (region);
CREATE TABLE regions (region TEXT PRIMARY KEY, manager TEXT, quarterly_target REAL);
""")

regions = [("North", "Noether", 10000.0), ("South", "Shannon", 8000.0), ("East", "Euler", 9500.0),
           ("West", "Wiles", 9000.0)]
db.executemany("INSERT INTO regions VALUES (?, ?, ?)", regions)
db.executemany("INSERT INTO customers VALUES (?, ?, ?)",
               [(i, "customer %02d" % i, regions[i % 4][0]) for i in range(1, 41)])
# 1,200 orders over the first quarter of 2024; every seventh one cancelled. Amounts are exact
# decimals ('12.34'), kept exactly by the CQL decimal type.
db.execute("""
INSERT INTO orders (customer_id, placed, order_no, amount, status)
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
SELECT 1 + (i * 17) % 40,
       strftime('%Y-%m-%d %H:%M:%f', '2024-01-01', '+' || (i * 6473) || ' seconds'),
       i,
       printf('%d.%02d', 5 + (i * 37) % 60, (i * 53) % 100),
       CASE WHEN i % 7 = 0 THEN 'cancelled' ELSE 'shipped' END
FROM n""")
db.commit()

# The report: for each region (native), its customers (native), and their orders (CQL). SQLite
# chooses the join order from the extension's cost estimates: for all customers at once one scan
# of the orders table (with the date range applied inside the store) is cheaper than a partition
# lookup per customer; for a few customers it reads their partitions (see the plans printed).
# Timestamps compare as text: constants are written in the form they read back in.
REPORT_SQL = """
SELECT r.region, r.manager,
       count(DISTINCT c.id) AS customers,
       count(o.order_no) AS orders,
       printf('%.2f', sum(o.amount)) AS revenue,
       printf('%.2f', sum(o.amount) / count(o.order_no)) AS avg_order,
       printf('%d%%', round(100 * sum(o.amount) / r.quarterly_target)) AS of_target,
       max(o.placed) AS last_order
FROM regions AS r
JOIN customers AS c ON c.region = r.region
JOIN orders AS o ON o.customer_id = c.id
WHERE o.status = 'shipped'
  AND o.placed >= '2024-01-01 00:00:00.000' AND o.placed < '2024-04-01 00:00:00.000'
GROUP BY r.region
ORDER BY sum(o.amount) DESC
"""
cursor = db.execute(REPORT_SQL)
header = [d[0] for d in cursor.description]
rows = cursor.fetchall()

with open(os.path.join(work, "report.csv"), "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(header)
    writer.writerows(rows)

lines = ["# Shipped orders by region, Q1 2024", "",
         "| " + " | ".join(header) + " |",
         "|" + "|".join("---" for _ in header) + "|"]
lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
top = db.execute("""
SELECT c.name, c.region, count(*) AS orders, printf('%.2f', sum(o.amount)) AS revenue
FROM customers AS c JOIN orders AS o ON o.customer_id = c.id
WHERE o.status = 'shipped'
GROUP BY c.id ORDER BY sum(o.amount) DESC LIMIT 3""").fetchall()
lines += ["", "Top customers: " + "; ".join("%s (%s, %d orders, %s)" % t for t in top), ""]
with open(os.path.join(work, "report.md"), "w") as f:
    f.write("\n".join(lines))

print("\n".join(lines))
print("report.csv:")
with open(os.path.join(work, "report.csv")) as f:
    print(f.read(), end="")
print()
print("How SQLite runs the report:")
for row in db.execute("EXPLAIN QUERY PLAN " + REPORT_SQL):
    print("  " + row[3])
ONE_REGION = """
SELECT c.name, count(*) AS orders FROM customers AS c JOIN orders AS o ON o.customer_id = c.id
WHERE c.region = ? GROUP BY c.id ORDER BY c.id"""
print("and a report for one region's customers (a partition read per customer):")
for row in db.execute("EXPLAIN QUERY PLAN " + ONE_REGION, ("West",)):
    print("  " + row[3])
print("  -> " + ", ".join("%s: %d" % r for r in db.execute(ONE_REGION, ("West",))))
