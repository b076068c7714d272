"""The extension against native SQLite on the same random data, same SQL (a differential test).

    python3 tests/sqlite/test_differential.py BUILD_DIR

1. Reads: one CQL table (compound partition key, two clustering columns in mixed order, a static
   column) and a native table with the same rows; every combination of a set of WHERE clauses
   (partition keys, IN, slices, row values, LIKE-free filters SQLite must apply itself),
   total ORDER BYs and LIMIT/OFFSET must return exactly the native rows.
2. Writes: random INSERT/UPDATE/DELETE/INSERT...SELECT statements with BEGIN, COMMIT, ROLLBACK,
   SAVEPOINT, ROLLBACK TO and RELEASE, applied to both tables; their contents must stay equal
   (INSERT is an upsert on the CQL side, INSERT OR REPLACE on the native one).
Fixed seeds, so a failure is reproducible; exits 1 and prints the first differences.
"""
import os
import random
import sqlite3
import sys

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")
failures = []


def connect():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXT)
    return conn


def reads(seed):
    rng = random.Random(seed)
    c = connect()
    c.execute("CREATE VIRTUAL TABLE t USING cql(a text, b int, c bigint, d text, v int, s int static, "
              "PRIMARY KEY ((a, b), c, d), CLUSTERING ORDER BY (c DESC, d ASC))")
    c.execute("CREATE TABLE n (a TEXT, b INT, c INT, d TEXT, v INT, s INT, PRIMARY KEY (a, b, c, d))")
    rows, statics = {}, {}
    for _ in range(2000):
        key = (rng.choice("wxyz"), rng.randrange(5), rng.randrange(-50, 50), rng.choice(["p", "q", "r", ""]))
        rows[key] = rng.choice([None, rng.randrange(1000)])
        if rng.random() < 0.1:
            statics[key[:2]] = rng.randrange(100)
    c.execute("BEGIN")
    for (a, b, cc, d), v in rows.items():
        c.execute("INSERT INTO t (a, b, c, d, v) VALUES (?, ?, ?, ?, ?)", (a, b, cc, d, v))
    for (a, b), s in statics.items():
        c.execute("UPDATE t SET s = ? WHERE a = ? AND b = ?", (s, a, b))
    c.execute("COMMIT")
    for (a, b, cc, d), v in rows.items():
        c.execute("INSERT INTO n VALUES (?, ?, ?, ?, ?, ?)", (a, b, cc, d, v, statics.get((a, b))))
    wheres = [
        "a = 'x'", "a = 'x' AND b = 1", "a IN ('x', 'z') AND b IN (1, 2)", "a = 'y' AND b = 3 AND c > 0",
        "a = 'y' AND b = 3 AND c >= -10 AND c < 10", "a = 'w' AND b = 0 AND c = 5",
        "a = 'w' AND b = 0 AND c = 5 AND d > 'p'", "c > 40", "v IS NULL", "v > 500", "d = ''", "s = 3",
        "a = 'z' AND b = 2 AND c IN (1, 2, 3, -4)", "a = 'x' AND b = 4 AND (c, d) > (3, 'q')",
        "a = 'x' AND b = 4 AND (c, d) <= (10, 'p')", "b = 2", "a > 'x'",
        "a = 'x' AND b = 1 AND c BETWEEN -5 AND 5", "a = 'y' AND b = 2 AND v % 3 = 0",
    ]
    orders = ["", " ORDER BY c DESC, d, a, b", " ORDER BY c, d DESC, a, b", " ORDER BY a, b, c, d",
              " ORDER BY v, a, b, c, d", " ORDER BY a DESC, b DESC, c DESC, d DESC"]
    limits = ["", " LIMIT 7", " LIMIT 5 OFFSET 3"]
    for where in wheres:
        for order in orders:
            for limit in limits:
                if not order and limit:
                    continue  # which rows a LIMIT without ORDER BY keeps is unspecified
                sql = f"SELECT a, b, c, d, v, s FROM {{}} WHERE {where}{order}{limit}"
                got = c.execute(sql.format("t")).fetchall()
                want = c.execute(sql.format("n")).fetchall()
                if not order:
                    got, want = sorted(got, key=repr), sorted(want, key=repr)
                if got != want:
                    failures.append(f"reads seed {seed}: {sql.format('t')}\n  cql    {got[:6]}\n  native {want[:6]}")
    # GROUP BY / DISTINCT ... ORDER BY: the store groups these itself (grouped_rows.h); groups
    # must come in SQLite's order, so the rows are compared in order, ORDER BY or not.
    groupings = ["d", "v", "s", "b", "d, v", "v, d", "a, d", "c", "d DESC", "v DESC, d"]
    for where in ["", " WHERE c > 0", " WHERE a = 'x' AND b = 1", " WHERE v IS NOT NULL"]:
        for by in groupings:
            key = by.replace(" DESC", "")
            for sql in [f"SELECT {key}, count(*), sum(c), min(d), max(v) FROM {{}}{where} GROUP BY {key}",
                        f"SELECT {key}, count(*), sum(c) FROM {{}}{where} GROUP BY {key} ORDER BY {by}",
                        f"SELECT DISTINCT {key} FROM {{}}{where} ORDER BY {by}"]:
                got = c.execute(sql.format("t")).fetchall()
                want = c.execute(sql.format("n")).fetchall()
                if got != want:
                    failures.append(f"reads seed {seed}: {sql.format('t')}\n  cql    {got[:6]}\n  native {want[:6]}")


def writes(seed):
    rng = random.Random(seed)
    c = connect()
    c.execute("CREATE VIRTUAL TABLE t USING cql(p int, k int, v int, w text, PRIMARY KEY (p, k))")
    c.execute("CREATE TABLE n (p INT, k INT, v INT, w TEXT, PRIMARY KEY (p, k))")

    def both(sql, args=()):
        for table in ("t", "n"):
            statement = sql.replace("{T}", table)
            if table == "n":
                statement = statement.replace("INSERT INTO", "INSERT OR REPLACE INTO")
            c.execute(statement, args)

    savepoints = 0
    for step in range(2000):
        r = rng.random()
        p, k = rng.randrange(4), rng.randrange(8)
        if r < 0.35:
            both("INSERT INTO {T} (p, k, v, w) VALUES (?, ?, ?, ?)",
                 (p, k, rng.randrange(100), rng.choice(["a", "b", None])))
        elif r < 0.5:
            both("UPDATE {T} SET v = v + 1 WHERE p = ? AND k >= ?", (p, k))
        elif r < 0.58:
            both("UPDATE {T} SET w = 'u' || v WHERE v > ?", (rng.randrange(100),))
        elif r < 0.66:
            both("DELETE FROM {T} WHERE p = ? AND k = ?", (p, k))
        elif r < 0.7:
            both("DELETE FROM {T} WHERE v < ?", (rng.randrange(30),))
        elif r < 0.74:
            both("INSERT INTO {T} SELECT p, k + 1, v * 2, w FROM {T} WHERE p = ? AND k < 7", (p,))
        elif r < 0.8 and not c.in_transaction:
            c.execute("BEGIN")
        elif r < 0.84 and c.in_transaction:
            c.execute(rng.choice(["COMMIT", "ROLLBACK"]))
        elif r < 0.9:
            savepoints += 1
            c.execute(f"SAVEPOINT s{savepoints}")
        elif r < 0.95 and savepoints > 0:
            c.execute(f"ROLLBACK TO s{savepoints}")
        elif savepoints > 0:
            c.execute(f"RELEASE s{savepoints}")
            savepoints -= 1
        if not c.in_transaction:
            savepoints = 0
        if step % 25 == 0 or not c.in_transaction:
            got = c.execute("SELECT p, k, v, w FROM t ORDER BY p, k").fetchall()
            want = c.execute("SELECT p, k, v, w FROM n ORDER BY p, k").fetchall()
            if got != want:
                only_cql = sorted(set(got) - set(want))[:5]
                only_native = sorted(set(want) - set(got))[:5]
                failures.append(f"writes seed {seed} step {step}: only in cql {only_cql}, only native {only_native}")
                return


for seed in (1, 2, 3):
    reads(seed)
    writes(seed)
for failure in failures[:10]:
    print(failure)
print(f"differential: {len(failures)} differences")
sys.exit(1 if failures else 0)
