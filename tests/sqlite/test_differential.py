"""The extension against native SQLite on the same random data, same SQL (a differential test).

    python3 tests/sqlite/test_differential.py BUILD_DIR                 # make test: seeds 1-3
    python3 tests/sqlite/test_differential.py BUILD_DIR SEED SECONDS    # make fuzz: seeds SEED,
                                                                        # SEED+1, ... for SECONDS

1. Reads: one CQL table (compound partition key, two clustering columns in mixed order, a static
   column) and a native table with the same rows; every combination of a set of WHERE clauses
   (partition keys, IN, slices, row values, LIKE-free filters SQLite must apply itself),
   total ORDER BYs and LIMIT/OFFSET must return exactly the native rows.
2. Writes: random INSERT/UPDATE/DELETE/INSERT...SELECT statements with BEGIN, COMMIT, ROLLBACK,
   SAVEPOINT, ROLLBACK TO and RELEASE, applied to both tables; their contents must stay equal
   (INSERT is an upsert on the CQL side, INSERT OR REPLACE on the native one).
3. Typed keys: for every CQL type a key can have, a table with a clustering column and one with
   a partition key of that type, and a native table holding the same SQL values (copied from the
   CQL table, so of the same storage classes) in a column of the same declared type; every
   comparison (=, <, <=, >, >=, IN, BETWEEN) with constants of every kind (integers, reals, texts
   in and out of the column's own format, blobs, NULL), with ORDER BY and LIMIT, must select
   exactly the native rows: a pushed-down constraint selects what SQLite's own comparison would;
   so must the years past 9999 of timestamps and dates, whose texts SQL sorts among the others.
Every failure names its seed, so it is reproducible; exits 1 and prints the first differences.
"""
import os
import random
import sqlite3
import sys
import time

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


# Per CQL key type: the values the table holds, as SQL writes them.
TYPED_VALUES = {
    "int": [-2147483648, -7, 0, 1, 5, 12, 2147483647],
    "bigint": [-(2 ** 63), -5, 0, 3, 2 ** 53, 2 ** 53 + 1, 2 ** 63 - 1],
    "smallint": [-32768, -3, 0, 7, 32767],
    "tinyint": [-128, -1, 0, 9, 127],
    "varint": [-(2 ** 63), -12, 0, 12, 2 ** 62],
    "double": [-1e300, -2.5, -0.0, 0.5, 1.0, 3.14, 2.0 ** 53, 2.0 ** 53 + 2, 1e300],
    "float": [-3.5, 0.0, 0.10000000149011612, 1.5, 3.140000104904175, 16777216.0],
    "boolean": [0, 1],
    "text": ["", "12", "12abc", "a", "ab", "b", "Z", "é", " 12"],
    "ascii": ["", "0", "12", "A", "a", "b"],
    "blob": [b"", b"\x00", b"\x00\x01", b"\x7f", b"\x80", b"a"],
    "timestamp": ["0001-01-01 00:00:00.000", "1969-12-31 23:59:59.999",
                  "2024-01-01 00:00:00.000", "2024-01-01 05:00:00.000",
                  "2024-01-01 05:00:00.001", "2024-01-01 23:59:59.999",
                  "2024-01-02 00:00:00.000", "2025-06-30 12:00:00.000", "9999-12-31 23:59:59.999"],
    "date": ["0001-01-01", "1969-12-31", "1970-01-01", "2024-01-01", "2024-01-02", "9999-12-31"],
    "time": ["00:00:00.000000000", "05:00:00.000000000", "05:00:00.000000001",
             "12:30:15.250000000", "23:59:59.999999999"],
    "uuid": ["00000000-0000-0000-0000-000000000000", "123e4567-e89b-12d3-a456-426614174000",
             "ffffffff-ffff-4fff-bfff-ffffffffffff", "5a2f0b1c-0000-4000-8000-000000000001"],
    "timeuuid": ["d2177dd0-eaa2-11de-a572-001b779c76e3", "50554d6e-29bb-11e5-b345-feff819cdc9f",
                 "00000000-0000-1000-8000-000000000000"],
    "inet": ["10.0.0.1", "9.0.0.1", "127.0.0.1", "::1", "2001:db8::1"],
    "decimal": ["-0.5", "0", "1", "3.14", "3.140", "10", "100.25"],
}

# Constants of every kind, compared with every column: SQL's rules (affinity, the order of
# storage classes NULL < numbers < text < blob) decide, whatever the column's CQL type.
CONSTANTS = [
    "NULL", "0", "1", "-1", "12", "2147483648", "9007199254740993", "-9223372036854775808",
    "1704085200000", "1.5", "-0.0", "0.5", "3.14", "1e300", "'0'", "'1'", "'12'", "'12abc'",
    "' 12'", "'1.5'", "''", "'a'", "'b'", "'true'", "x''", "x'00'", "x'7f'", "x'80'",
    "'2024-01-01T05:00:00'", "'2024-01-01 05:00:00'", "'2024-01-01 05:00:00.000'",
    "'2024-01-01'", "'2024-01-01T05:00:00Z'", "'2024-01-01 05:00:00.000Z'", "'1970-01-01'",
    "'05:00:00'", "'05:00:00.000000000'", "'12:30:15.25'", "'10.0.0.1'", "'9.0.0.1'",
    "'::1'", "'123e4567-e89b-12d3-a456-426614174000'", "'123E4567-E89B-12D3-A456-426614174000'",
    "'3.14'", "'3.140'", "'1E+1'", "'10'",
]
DECLARED = {"int": "INTEGER", "bigint": "INTEGER", "smallint": "INTEGER", "tinyint": "INTEGER",
            "varint": "INTEGER", "boolean": "INTEGER", "double": "REAL", "float": "REAL",
            "blob": "BLOB"}


# Years past 9999 and before 0000, whose SQL texts ('10000-01-01 00:00:00.000', a date's
# '+10000-01-01') SQL sorts among the other years' (`ts < '2030-01-01'` keeps year 10000): a
# range must still select exactly what SQLite's own comparison selects. Without ORDER BY: the
# store's order is value order there, not SQL's text order (ext/sqlite/README.md "Reads").
FAR_YEARS = {
    "timestamp": ["0001-01-01 00:00:00.000", "2024-01-01 00:00:00.000", "9999-12-31 23:59:59.999",
                  253402300800000, 631139040000000, 2 ** 63 - 1, -62198755200000],
    "date": ["0001-01-01", "2024-01-01", "9999-12-31", "+10000-01-01", 2 ** 31 + 3000000,
             2 ** 32 - 1, 2 ** 31 - 800000],
}
FAR_CONSTANTS = CONSTANTS + [
    "'10000-01-01'", "'10000-01-01 00:00:00.000'", "'10000-01-01 00:00:00.001'",
    "'+10000-01-01'", "'+10000-01-02'", "'2030-01-01'", "'21970'", "'+'", "'-'", "'9999-12-31'",
    "253402300800000",
]


def typed_keys(seed):
    rng = random.Random(seed)
    c = connect()
    for cql_type, values in TYPED_VALUES.items():
        typed_tables(c, rng, cql_type, cql_type, values, CONSTANTS, True, seed)
    for cql_type, values in FAR_YEARS.items():
        typed_tables(c, rng, f"far_{cql_type}", cql_type, values, FAR_CONSTANTS, False, seed)


def typed_tables(c, rng, label, cql_type, values, constants, with_order, seed):
    """A clustering-key and a partition-key table of `cql_type` holding `values`, and their
    native twins, compared under every operator with every constant."""
    declared = DECLARED.get(cql_type, "TEXT")
    name = f"k_{label}"
    c.execute(f"CREATE VIRTUAL TABLE c_{label} USING cql(p int, c {cql_type}, v int, "
              f"PRIMARY KEY (p, c))")
    c.execute(f"CREATE VIRTUAL TABLE {name} USING cql(k {cql_type}, v int, PRIMARY KEY (k))")
    c.execute(f"CREATE TABLE nc_{label} (p INT, c {declared}, v INT)")
    c.execute(f"CREATE TABLE n{name} (k {declared}, v INT)")
    v = 0
    for p in (1, 2):
        for value in rng.sample(values, len(values)):
            v += 1
            c.execute(f"INSERT INTO c_{label} VALUES (?, ?, ?)", (p, value, v))
    for value in values:
        if value in ("", b""):
            continue  # a partition key may not be empty
        v += 1
        c.execute(f"INSERT INTO {name} VALUES (?, ?)", (value, v))
    # The native rows are the CQL rows as SQL reads them.
    c.execute(f"INSERT INTO nc_{label} SELECT p, c, v FROM c_{label}")
    c.execute(f"INSERT INTO n{name} SELECT k, v FROM {name}")
    for k in constants:
        other = rng.choice(constants)
        for op in ["=", "<", "<=", ">", ">=", "IN", "BETWEEN"]:
            term = (f"IN ({k}, {other})" if op == "IN" else
                    f"BETWEEN {k} AND {other}" if op == "BETWEEN" else f"{op} {k}")
            # A partition's values are distinct to SQL, so ORDER BY c is a total order
            # (one the store's clustering order gives, when the SQL order agrees with it).
            forms = [(f"p = 1 AND c {term}", ""), (f"c {term}", "")]
            if with_order:
                forms += [(f"p = 2 AND c {term}", " ORDER BY c"),
                          (f"p = 2 AND c {term}", " ORDER BY c DESC LIMIT 3"),
                          (f"p = 1 AND c {term}", " ORDER BY p, c LIMIT 2 OFFSET 1")]
            for where, order in forms:
                compare(c, f"SELECT p, c, v FROM {{}} WHERE {where}{order}",
                        f"c_{label}", f"nc_{label}", bool(order), seed)
            compare(c, f"SELECT k, v FROM {{}} WHERE k {term}", name, f"n{name}", False, seed)


def compare(c, sql, cql_table, native_table, ordered, seed):
    try:
        got = c.execute(sql.format(cql_table)).fetchall()
    except sqlite3.Error as e:
        got = f"error: {e}"
    want = c.execute(sql.format(native_table)).fetchall()
    if not ordered and isinstance(got, list):
        # SQL's zero may read as -0.0 from the store and 0.0 from a native table: equal values.
        def key(row):
            return repr(tuple(0.0 if isinstance(x, float) and x == 0 else x for x in row))
        got, want = sorted(got, key=key), sorted(want, key=key)
    if got != want:
        failures.append(f"typed keys seed {seed}: {sql.format(cql_table)}\n  cql    {got[:6]}\n"
                        f"  native {want[:6]}")


def seeds():
    """The seeds to run: 1, 2, 3 by default; from SEED on for SECONDS when given both."""
    if len(sys.argv) < 4:
        yield from (1, 2, 3)
        return
    first, seconds = int(sys.argv[2]), float(sys.argv[3])
    deadline = time.monotonic() + seconds
    seed = first
    while time.monotonic() < deadline and not failures:
        yield seed
        seed += 1


ran = 0
for seed in seeds():
    reads(seed)
    writes(seed)
    if ran == 0 or len(sys.argv) >= 4:  # make test: the typed keys of seed 1 only
        typed_keys(seed)
    ran += 1
for failure in failures[:10]:
    print(failure)
print(f"differential: {ran} seeds, {len(failures)} differences")
sys.exit(1 if failures else 0)
