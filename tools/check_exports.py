#!/usr/bin/env python3
"""Checks that the loadable extensions export their entry points and nothing else.

A host loads build/cassette.so (SQLite) and build/cassette_fdw.so (PostgreSQL) into its own
process: any other symbol they export could bind to, or be bound by, a symbol of the host or of
another extension of the same name (the engine's C++ classes, fmt, ...). Each module's dynamic
symbol table (`nm -D --defined-only`) must be exactly
  - cassette.so: sqlite3_cassette_init, the entry point SQLite derives from the file name;
  - cassette_fdw.so: Pg_magic_func (PG_MODULE_MAGIC), _PG_init, and for each C function that
    sql/cassette_fdw--*.sql (the install script and the
    upgrade scripts) creates AS 'MODULE_PATHNAME', the function and its pg_finfo_ record
    (PG_FUNCTION_INFO_V1).
The version scripts ext/sqlite/exports.map and ext/postgres/exports.map keep the rest local.

Usage: tools/check_exports.py BUILD. Prints each difference and, last,
"exports: N passed, M failed" (one case per module).
"""
import glob
import os
import re
import subprocess
import sys

# CREATE FUNCTION name(...) ... AS 'MODULE_PATHNAME'[, 'symbol']
SQL_FUNCTION = re.compile(
    r"CREATE\s+FUNCTION\s+(\w+)\s*\([^;]*?AS\s+'MODULE_PATHNAME'(?:\s*,\s*'(\w+)')?", re.S | re.I)


def fdw_entry_points(repo):
    sql = ""
    for script in sorted(glob.glob(os.path.join(repo, "sql", "cassette_fdw--*.sql"))):
        with open(script, encoding="utf-8") as f:
            sql += f.read()
    expected = {"Pg_magic_func", "_PG_init"}
    for name, symbol in SQL_FUNCTION.findall(sql):
        expected |= {symbol or name, "pg_finfo_" + (symbol or name)}
    return expected


def exported(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], check=True, capture_output=True,
                         text=True).stdout
    # "<address> <type> <name>[@version]"
    return {line.split()[2].split("@")[0] for line in out.splitlines() if len(line.split()) == 3}


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    modules = [("cassette.so", {"sqlite3_cassette_init"}),
               ("cassette_fdw.so", fdw_entry_points(repo))]
    passed = failed = 0
    for name, expected in modules:
        path = os.path.join(build, name)
        if not os.path.exists(path):
            print(f"{path}: not built")
            failed += 1
            continue
        actual = exported(path)
        extra, missing = sorted(actual - expected), sorted(expected - actual)
        for symbol in extra[:20]:
            print(f"{path}: exports {symbol}, which is not an entry point")
        if len(extra) > 20:
            print(f"{path}: ... and {len(extra) - 20} more")
        for symbol in missing:
            print(f"{path}: does not export the entry point {symbol}")
        if extra or missing:
            failed += 1
        else:
            passed += 1
    print(f"exports: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
