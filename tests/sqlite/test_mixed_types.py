"""Constraints whose value is of another SQL type than the column, against native SQLite.

    python3 tests/sqlite/test_mixed_types.py BUILD_DIR

For clustering columns of several CQL types (the constraints the store applies itself), every
operator with values of every SQL storage class — numeric text ('2.0', ' 3 ', '1e1') that the
column's numeric affinity turns into a number, text and blobs that sort above all numbers,
numbers beyond a narrow integer type's range, doubles between two floats, NULL — must select exactly the rows a native table
with the same declared column type selects, with a static-only partition present (its
clustering column is NULL to SQL). Exits 1 listing the differences.
"""
import itertools
import os
import sqlite3
import sys

EXT = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build"), "cassette")

TYPES = {
    "int": ("INTEGER", [1, -5, 100, 0]),
    "tinyint": ("INTEGER", [1, -128, 127]),
    "bigint": ("INTEGER", [9223372036854775807, -9223372036854775808, 3]),
    "double": ("REAL", [1.5, -2.0, 100.25, 0.0]),
    "float": ("REAL", [3.14, 1.5, -2.0, 0.0]),
    "boolean": ("INTEGER", [0, 1]),
    "blob": ("BLOB", [b"a", b"\x00", b"zz", b""]),
    "text": ("TEXT", ["a", "B", "10", ""]),
}
VALUES = [None, 0, 1, -1, 2.5, -2.5, 0.5, "1", "2.0", " 3 ", "1e1", "abc", "", "a", b"a", b"",
          1e300, -1e300, 9223372036854775807, -9223372036854775808, 3.14, 3.140000104904175, 1e40]
OPS = ["=", "<", "<=", ">", ">=", "IN"]


def main():
    c = sqlite3.connect(":memory:", isolation_level=None)
    c.enable_load_extension(True)
    c.load_extension(EXT)
    failures = []
    checked = 0
    for name, (declared, data) in TYPES.items():
        c.execute(f"CREATE VIRTUAL TABLE t_{name} USING cql(p int, c {name}, v int, s int static, "
                  "PRIMARY KEY (p, c))")
        c.execute(f"CREATE TABLE n_{name} (p INTEGER, c {declared}, v INTEGER, s INTEGER)")
        for i, d in enumerate(data):
            c.execute(f"INSERT INTO t_{name} (p, c, v) VALUES (1, ?, ?)", (d, i))
        # The native table holds what SQL reads (a float widened to a double).
        c.execute(f"INSERT INTO n_{name} (p, c, v) SELECT p, c, v FROM t_{name}")
        c.execute(f"SELECT cql('UPDATE main.t_{name} SET s = 1 WHERE p = 2')")
        c.execute(f"INSERT INTO n_{name} (p, c, v, s) VALUES (2, NULL, NULL, 1)")
        for value, op in itertools.product(VALUES, OPS):
            for partition in ["p = 1 AND ", "p IN (1, 2) AND ", "p = 1 AND c > 0 AND ", ""]:
                condition = "c IN (?, 99)" if op == "IN" else f"c {op} ?"
                sql = f"SELECT p, c, v FROM {{}} WHERE {partition}{condition}"
                got = sorted(c.execute(sql.format("t_" + name), (value,)).fetchall(), key=repr)
                want = sorted(c.execute(sql.format("n_" + name), (value,)).fetchall(), key=repr)
                checked += 1
                if got != want:
                    failures.append(f"{sql.format('t_' + name)} with {value!r}:\n"
                                    f"  cql    {got}\n  native {want}")
    for f in failures[:30]:
        print(f)
    print(f"{checked - len(failures)} of {checked} queries agree")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
