"""The soak's checker finds what it must: a store and logs made by hand, once consistent (no
violation) and once with one defect of each kind the checker looks for (exactly those found),
read through both checker hosts. Run as
  python3 tests/soak/test_checker.py BUILD_DIR
in any directory; prints "soak-checker: N passed, M failed" last.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak_common import (SCHEMA_CQL, Paths, payload, reexec_with_extension_loading,  # noqa: E402
                         side_value)

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak_check.py")
SIDE_V = side_value("side_a", 1, "v")
results = {"passed": 0, "failed": 0}


def cql(paths, statements):
    subprocess.run([os.path.join(BUILD, "cassette"), paths.store, "-e", ";\n".join(statements)],
                   check=True)


def marker(writer, seq, k):
    return f"INSERT INTO soak.markers (writer, seq, k, via) VALUES ('{writer}', {seq}, {k}, 'x')"


def row(writer, seq, i, value=None):
    value = payload(writer, seq, i) if value is None else value
    return f"INSERT INTO soak.rows (writer, seq, i, v) VALUES ('{writer}', {seq}, {i}, '{value}')"


def transaction(writer, seq, k):
    return [marker(writer, seq, k)] + [row(writer, seq, i) for i in range(1, k + 1)]


def counter(name, delta):
    return f"UPDATE soak.counters SET n = n + {delta} WHERE name IN ('{name}', 'all')"


def write_log(paths, writer, lines, cut=""):
    """`cut`: a last line without its newline, as a kill leaves it."""
    with open(os.path.join(paths.logs, writer + ".log"), "w") as f:
        f.write("".join(line + "\n" for line in lines) + cut)


def new_store(root, name):
    paths = Paths(os.path.join(root, name))
    paths.make()
    cql(paths, SCHEMA_CQL)
    return paths


def consistent(paths):
    """Everything the checker accepts: acknowledged and unacknowledged transactions (present or
    not), a rolled-back one absent, counters with one increment in flight (landed or not), side
    tables created, dropped and rolled back."""
    cql(paths, transaction("w1", 1, 2) + transaction("w1", 2, 3) + transaction("w1", 3, 1)
        + [counter("w1/0", 3), counter("w1/0", 4), counter("w1/1", 5),
           "CREATE TABLE soak.side_a (id int PRIMARY KEY, v text)",
           "ALTER TABLE soak.side_a ADD c1 int",
           f"INSERT INTO soak.side_a (id, v, c1) VALUES (1, '{SIDE_V}', 7)"])
    write_log(paths, "w1", [
        "T 1 2 x", "t 1", "T 2 3 x", "T 3 1 x", "t 3", "T 4 2 x", "R 5 2 x",
        "C w1/0 3", "c w1/0", "C w1/0 4", "C w1/1 5", "C w1/2 6",
        "S side_a create", "s side_a create", "S side_a add:c1", "s side_a add:c1",
        f'W side_a 1 {{"c1": 7, "v": "{SIDE_V}"}}', "w side_a 1",
        "S side_b create", "s side_b create", "S side_b drop", "s side_b drop",
        "X side_c create"], cut="t 2")  # a line cut by a kill is ignored: 2 stays unacked


def broken(paths):
    """One defect of each kind (the checker's expected findings are listed in main)."""
    cql(paths, transaction("w1", 1, 2)                              # fine
        + [marker("w1", 3, 3), row("w1", 3, 1), row("w1", 3, 2)]      # torn: row 3 missing
        + transaction("w1", 4, 1)                                   # rolled back, yet visible
        + transaction("w1", 5, 1)                                   # never logged
        + [row("w1", 6, 1)]                                         # rows without their marker
        + [marker("w1", 7, 1), row("w1", 7, 1, "not the payload")]  # a wrong value
        + transaction("w1", 8, 1) + [row("w1", 8, 2, "junk")]       # a savepoint's row
        + [counter("w1/0", 3), counter("w1/0", 4), counter("w1/0", 1)]  # 8: one too many
        + ["CREATE TABLE soak.side_c (id int PRIMARY KEY, v text)"])
    write_log(paths, "w1", [
        "T 1 2 x", "t 1", "T 2 1 x", "t 2", "T 3 3 x", "R 4 1 x", "T 6 1 x", "T 7 1 x",
        "t 7", "T 8 1 x", "t 8", "C w1/0 3", "c w1/0", "C w1/0 4", "c w1/0",
        "S side_a create", "s side_a create", f'W side_a 1 {{"v": "{SIDE_V}"}}', "w side_a 1",
        "X side_c create"])


def run_checker(paths, host, max_files):
    proc = subprocess.run([sys.executable, CHECKER, paths.work, BUILD, host, "",
                           str(max_files), "--final"], capture_output=True, text=True)
    return json.loads(proc.stdout)


def expect(what, got, want):
    if got == want:
        results["passed"] += 1
        print(f"ok: {what}")
    else:
        results["failed"] += 1
        print(f"FAILED: {what}\n  want: {want}\n  got:  {got}")


def findings(result):
    keys = []
    for v in result["violations"]:
        where = v.get("seq", v.get("row", v.get("table", v.get("files"))))
        keys.append((v["invariant"], where))
    return sorted(keys, key=str)


BROKEN_FINDINGS = sorted([
    ("an acknowledged transaction is present", 2),
    ("no transaction is torn: a marker has all its rows", 3),
    ("a rolled-back or failed transaction is invisible", 4),
    ("every marker in the store was written by a transaction", 5),
    ("no transaction is torn: rows are never visible without their marker", 6),
    ("rows hold the values written", 7),
    ("no row rolled back to a savepoint is visible", 8),
    ("counters are exact (acknowledged increments, plus at most the one in flight at a kill)",
     "w1/0"),
    ("a created side table (not dropped) exists and reads", "soak.side_a"),
    ("a rolled-back CREATE VIRTUAL TABLE leaves no CQL table", "soak.side_c"),
], key=str)


def main():
    reexec_with_extension_loading()
    with tempfile.TemporaryDirectory() as root:
        good = new_store(root, "consistent")
        consistent(good)
        bad = new_store(root, "broken")
        broken(bad)
        for host in ("sqlite", "cassette"):
            result = run_checker(good, host, 100)
            expect(f"{host}: a consistent store and logs pass ({result['checks']} checks)",
                   findings(result), [])
            files = sum(len(f) for _, _, f in os.walk(bad.store))
            expect(f"{host}: each kind of defect is found, and only those",
                   findings(run_checker(bad, host, files - 1)), sorted(BROKEN_FINDINGS + [
                       ("the number of files in the store is bounded", files)], key=str))
        with open(os.path.join(bad.logs, "w1.log"), "a") as f:
            f.write("C w1/1 2\n")  # the writer moved on: the counter row w1/0 is final
        live = subprocess.run([sys.executable, CHECKER, bad.work, BUILD, "sqlite", "w1", "100"],
                              capture_output=True, text=True)
        got = [v["invariant"] for v in json.loads(live.stdout)["violations"]
               if v.get("row") == "w1/0"]
        expect("a live writer's abandoned counter row is checked exactly", got,
               ["counters are exact (acknowledged increments, plus at most the one in flight "
                "at a kill)"])
    print(f"soak-checker: {results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
