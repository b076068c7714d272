"""A statement that reads some columns decodes only their cells (xBestIndex's colUsed becomes the
plan's `values(...)`): it must return exactly what reading every column returns for those
columns, whatever else the statement does.

    python3 tests/sqlite/test_column_subsets.py BUILD_DIR

For each table and each WHERE / ORDER BY / GROUP BY shape, every column alone, some pairs and no
column at all (count(*)) are compared with the same columns taken from `SELECT *` (plus the hidden
writetime_/ttl_ columns, which name the cells they read), on rows that make a read decide
liveness from cells it does not return: rows written by UPDATE (no row marker) whose only live
cell is in one column, tombstones and expired cells in unread columns, versions of a row in the
memtable and in SSTables, static rows, collections, counters, a masked column, and a table of 70
columns (colUsed's bit 63 stands for every column from the 63rd on). The same reads run again
with the row cache on (it holds whole rows), and UPDATE / DELETE through the virtual table, which
read the rows they change, must leave the other columns as they were.
"""
import itertools
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sqlite_test_util import check, connect, rows  # noqa: E402

work = tempfile.mkdtemp(prefix="cassette-column-subsets-")
conn = connect(os.path.join(work, "test.db"))


def cql(statement):
    conn.execute("SELECT cql(?)", (statement,)).fetchall()


def columns_of(table):
    return [r[1] for r in conn.execute(f"PRAGMA table_xinfo({table})")]


def plan_of(sql):
    return " ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql))


def compare(table, where="", order="", subsets=None, what=""):
    """Each subset of columns read alone equals its columns of `SELECT *, <hidden>` (same WHERE,
    same ORDER BY, which must make the order total)."""
    names = columns_of(table)
    visible = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    hidden = [n for n in names if n.startswith(("writetime_", "ttl_"))]
    every = visible + hidden
    full = rows(conn, f"SELECT {', '.join(every)} FROM {table} {where} {order}")
    if subsets is None:
        subsets = [[c] for c in every] + [list(p) for p in itertools.combinations(visible, 2)][:12]
    for subset in subsets:
        index = [every.index(c) for c in subset]
        want = [tuple(r[i] for i in index) for r in full]
        got = rows(conn, f"SELECT {', '.join(subset)} FROM {table} {where} {order}")
        if got != want:
            raise AssertionError(f"{table} {what} {subset} {where} {order}:\n  want {want!r}\n  got  {got!r}")
    count = rows(conn, f"SELECT count(*) FROM {table} {where}")[0][0]
    if count != len(full):
        raise AssertionError(f"{table} {what} count(*) {where}: want {len(full)}, got {count}")
    print(f"ok: {table} {what} {where} {order}: {len(subsets)} column subsets, {len(full)} rows")


# A table with static, collection, masked and plain columns; rows whose liveness lies in cells.
cql("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
cql("CREATE TABLE ks.t (k int, c int, s text STATIC, a text, b int, l list<int>, m map<text, int>, "
    "secret text MASKED WITH DEFAULT, PRIMARY KEY (k, c))")
conn.execute("CREATE VIRTUAL TABLE t USING cql(table = 'ks.t')")
cql("INSERT INTO ks.t (k, c, a, b, l, m, secret) VALUES (1, 1, 'one', 10, [1, 2], {'x': 1}, 'p1')")
cql("INSERT INTO ks.t (k, c, a, b) VALUES (1, 2, 'two', 20)")
cql("UPDATE ks.t SET b = 30 WHERE k = 1 AND c = 3")  # no row marker: live only through b
cql("UPDATE ks.t SET a = 'four' WHERE k = 1 AND c = 4")  # live only through a
cql("UPDATE ks.t SET l = [4] WHERE k = 1 AND c = 5")  # live only through a collection
cql("UPDATE ks.t USING TTL 1 SET a = 'gone' WHERE k = 1 AND c = 6")  # expires: no row
cql("UPDATE ks.t SET s = 'static two' WHERE k = 2")  # a static-only partition
cql("INSERT INTO ks.t (k, c, a, b) VALUES (3, 1, 'three', 31) USING TTL 100000")
cql("UPDATE ks.t SET b = 71 WHERE k = 7 AND c = 1")
conn.execute("SELECT cql_flush()").fetchall()
# Newer versions in the memtable over the flushed ones: reconciled from two sources.
cql("DELETE b FROM ks.t WHERE k = 1 AND c = 3")  # its only live cell: the row goes
cql("UPDATE ks.t SET a = 'seven' WHERE k = 7 AND c = 1")
cql("DELETE a FROM ks.t WHERE k = 1 AND c = 2")  # a tombstone in a; b keeps the row
cql("UPDATE ks.t SET s = 'static one', b = 12 WHERE k = 1 AND c = 2")
cql("INSERT INTO ks.t (k, c, b) VALUES (4, 1, 41)")
cql("UPDATE ks.t SET m = m + {'y': 2} WHERE k = 1 AND c = 1")
time.sleep(1.5)  # the TTL 1 cell expires

order = "ORDER BY k, c"
for where in ("", "WHERE k = 1", "WHERE k = 1 AND c > 1", "WHERE b > 15", "WHERE a = 'two'",
              "WHERE a IS NULL", "WHERE s = 'static one'", "WHERE k IN (1, 7) AND b >= 12"):
    compare("t", where, order)
compare("t", "WHERE k = 1", "ORDER BY c DESC")
# Grouped in the store (a GROUP BY the clustering order does not give): values of unread columns
# must not leak into groups.
check(rows(conn, "SELECT b, count(*) FROM t GROUP BY b ORDER BY b"),
      rows(conn, "SELECT b, count(*) FROM (SELECT * FROM t) GROUP BY b ORDER BY b"), "GROUP BY b")
check(rows(conn, "SELECT a, max(c) FROM t GROUP BY a ORDER BY a"),
      [(None, 5), ("four", 4), ("one", 1), ("seven", 1), ("three", 1)], "GROUP BY a")
plan = plan_of("SELECT a FROM t WHERE k = 1")
check("values(k,a)" in plan, True, f"the plan names the columns read ({plan})")
check("values(" in plan_of("SELECT * FROM t"), False, "SELECT * reads every column")

# UPDATE and DELETE through the virtual table read the rows they change (every column).
conn.execute("UPDATE t SET b = b + 100 WHERE a = 'one'")
conn.execute("UPDATE t SET a = 'four!' WHERE c = 4")
check(rows(conn, "SELECT k, c, a, b, l, m, secret FROM t WHERE k = 1 AND c IN (1, 4) ORDER BY c"),
      [(1, 1, "one", 110, "[1, 2]", '{"x": 1, "y": 2}', "p1"), (1, 4, "four!", None, None, None, None)],
      "UPDATE through the table keeps the columns it does not assign")
wt_before = rows(conn, "SELECT writetime_l FROM t WHERE k = 1 AND c = 1")
conn.execute("UPDATE t SET b = 111 WHERE k = 1 AND c = 1")
check(rows(conn, "SELECT writetime_l FROM t WHERE k = 1 AND c = 1"), wt_before,
      "an UPDATE does not rewrite a column it does not assign (writetime kept)")
conn.execute("DELETE FROM t WHERE b = 41")
check(rows(conn, "SELECT k FROM t WHERE k = 4"), [], "DELETE through the table by an unread column")
compare("t", "", order, what="after UPDATE/DELETE")

# Counters: xRowid remembers every counter the statement read.
cql("CREATE TABLE ks.counts (k int PRIMARY KEY, hits counter, misses counter)")
conn.execute("CREATE VIRTUAL TABLE counts USING cql(table = 'ks.counts')")
cql("UPDATE ks.counts SET hits = hits + 5, misses = misses + 1 WHERE k = 1")
conn.execute("UPDATE counts SET hits = hits + 1 WHERE k = 1")
check(rows(conn, "SELECT hits FROM counts"), [(6,)], "a counter read alone")
check(rows(conn, "SELECT misses FROM counts"), [(1,)], "the other counter")
compare("counts", "", "ORDER BY k")

# 70 columns: colUsed's bit 63 stands for every column from the 63rd on.
wide = ", ".join(f"v{i} int" for i in range(70))
cql(f"CREATE TABLE ks.wide (k int PRIMARY KEY, {wide})")
conn.execute("CREATE VIRTUAL TABLE wide USING cql(table = 'ks.wide')")
for k in range(4):
    names = ", ".join(f"v{i}" for i in range(70) if (i + k) % 3 != 0)
    values = ", ".join(str(k * 1000 + i) for i in range(70) if (i + k) % 3 != 0)
    cql(f"INSERT INTO ks.wide (k, {names}) VALUES ({k}, {values})")
cql("UPDATE ks.wide SET v69 = 5 WHERE k = 10")  # live only through a column past the 63rd
cql("UPDATE ks.wide SET v1 = 6 WHERE k = 11")
wide_subsets = [["v0"], ["v62"], ["v63"], ["v64"], ["v69"], ["k", "v68"], ["v1", "v69"], ["k"]]
compare("wide", "", "ORDER BY k", wide_subsets)
compare("wide", "WHERE v66 > 1000", "ORDER BY k", wide_subsets)
compare("wide", "WHERE v2 IS NOT NULL", "ORDER BY k", wide_subsets)
check(rows(conn, "SELECT k, v69 FROM wide WHERE v65 = 2065"), [(2, 2069)], "a filter past bit 63")

# The same reads served from the row cache (it holds whole rows, filled by any read).
cql("ALTER TABLE ks.t WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'}")
rows(conn, "SELECT a FROM t WHERE k = 1")  # fills the head of partition 1 from a one-column read
for where in ("WHERE k = 1", "WHERE k = 7", "WHERE k = 2", "WHERE k = 1 AND c >= 2"):
    compare("t", where, order, what="row cache")

conn.close()
shutil.rmtree(work, ignore_errors=True)
