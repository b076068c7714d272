"""The soak's invariant checker, run in a fresh process after each kill (and at the end):

  python3 soak_check.py WORK_DIR BUILD_DIR HOST LIVE_WRITERS MAX_FILES [--final]

HOST is `sqlite` (Python's sqlite3 with the extension, cql()) or `cassette` (the shell). It
reads the logs (L0), then the store: markers (M1), rows (R), markers again (M2), counters, the
side tables; then the logs again (L1). What was acknowledged before L0 must be in the store;
what is in the store must have been attempted before L1; a transaction is all or nothing.
LIVE_WRITERS (comma-separated) may still be writing; every other writer's log is final, so its
counters must be exact. Prints one JSON object: {"checks": N, "violations": [...], ...}.
"""
import json
import os
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from soak_common import (SHARED_COUNTER, Paths, payload, read_logs, reexec_with_extension_loading,
                         side_value)

SIDE_PREFIX = "side_"


class SqliteReader:
    def __init__(self, paths, build_dir):
        self.db = sqlite3.connect(":memory:")
        self.db.enable_load_extension(True)
        self.db.load_extension(os.path.join(build_dir, "cassette"))
        self.db.execute("SELECT cql_open(?)", (paths.store,))

    def query(self, statement):
        return json.loads(self.db.execute("SELECT cql(?)", (statement,)).fetchone()[0])


class ShellReader:
    def __init__(self, paths, build_dir):
        self.argv = [os.path.join(build_dir, "cassette"), paths.store, "--format", "json", "-e"]

    def query(self, statement):
        proc = subprocess.run(self.argv + [statement], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.strip())
        return json.loads(proc.stdout)


def side_tables_to_read(logs):
    """The side tables whose rows the logs say must be there (created, no drop attempted)."""
    created, dropping = set(), set()
    for state in logs.values():
        for kind, table, op in state.side_ops:
            if kind == "s" and op in ("create", "expose"):
                created.add(table)
            elif kind == "S" and op == "drop":
                dropping.add(table)
    return created - dropping


class Checker:
    def __init__(self, paths, reader, live, max_files, final):
        self.paths, self.reader, self.live = paths, reader, live
        self.max_files, self.final = max_files, final
        self.violations = []
        self.checks = 0

    def violate(self, invariant, **details):
        self.violations.append({"invariant": invariant, **details})

    def check(self, ok, invariant, **details):
        self.checks += 1
        if not ok:
            self.violate(invariant, **details)

    def run(self):
        logs0 = read_logs(self.paths)
        markers1 = self.read_markers()
        rows = {}
        for r in self.reader.query("SELECT writer, seq, i, v FROM soak.rows"):
            rows.setdefault((r["writer"], r["seq"]), {})[r["i"]] = r["v"]
        markers2 = self.read_markers()
        counters = {r["name"]: r["n"] for r in self.reader.query(
            "SELECT name, n FROM soak.counters")}
        tables = sorted(t["name"] for t in self.reader.query("DESCRIBE TABLES")
                        if t["keyspace_name"] == "soak")
        side = {}
        for name in sorted(side_tables_to_read(logs0) & set(tables)):
            if name.startswith(SIDE_PREFIX):
                try:
                    side[name] = {r["id"]: r for r in self.reader.query(
                        f"SELECT * FROM soak.{name}")}
                except (RuntimeError, sqlite3.Error) as e:
                    side[name] = str(e)
        files = self.count_files()
        logs1 = read_logs(self.paths)

        self.check_acknowledged(logs0, markers1)
        self.check_whole(markers1, rows)
        self.check_attempted(logs1, markers2, rows)
        self.check_counters(logs0, logs1, counters)
        self.check_side_tables(logs0, logs1, tables, side)
        self.check(files <= self.max_files, "the number of files in the store is bounded",
                   files=files, limit=self.max_files)
        return {"checks": self.checks, "violations": self.violations,
                "markers": len(markers1), "rows": sum(len(r) for r in rows.values()),
                "counters": len(counters), "side_tables": len(side), "files": files}

    def read_markers(self):
        return {(m["writer"], m["seq"]): (m["k"], m["via"]) for m in self.reader.query(
            "SELECT writer, seq, k, via FROM soak.markers")}

    def count_files(self):
        return sum(len(files) for _, _, files in os.walk(self.paths.store))

    def check_acknowledged(self, logs0, markers1):
        for writer, state in logs0.items():
            for seq in sorted(state.acked):
                k, via = state.attempted[seq]
                got = markers1.get((writer, seq))
                self.check(got is not None and got[0] == k,
                           "an acknowledged transaction is present",
                           writer=writer, seq=seq, k=k, via=via, marker_found=got)

    def check_whole(self, markers1, rows):
        """Every marker read first has all its rows, read after it, with their values."""
        for (writer, seq), (k, via) in sorted(markers1.items()):
            got = rows.get((writer, seq), {})
            want = {i: payload(writer, seq, i) for i in range(1, k + 1)}
            missing = sorted(set(want) - set(got))
            wrong = sorted(i for i in want if i in got and got[i] != want[i])
            extra = sorted(set(got) - set(want))
            self.check(not missing, "no transaction is torn: a marker has all its rows",
                       writer=writer, seq=seq, k=k, via=via, missing=missing)
            self.check(not wrong, "rows hold the values written", writer=writer, seq=seq,
                       via=via, wrong={i: got[i][:40] for i in wrong})
            self.check(not extra, "no row rolled back to a savepoint is visible",
                       writer=writer, seq=seq, via=via, extra=extra)

    def check_attempted(self, logs1, markers2, rows):
        """Whatever is in the store was attempted, and nothing rolled back is."""
        for (writer, seq), (k, via) in sorted(markers2.items()):
            state = logs1.get(writer)
            forbidden = state is not None and seq in state.forbidden
            self.check(not forbidden, "a rolled-back or failed transaction is invisible",
                       writer=writer, seq=seq, via=via)
            attempted = state.attempted.get(seq) if state else None
            self.check(forbidden or (attempted is not None and attempted[0] == k),
                       "every marker in the store was written by a transaction",
                       writer=writer, seq=seq, k=k, via=via, logged=attempted)
        for (writer, seq), got in sorted(rows.items()):
            if (writer, seq) in markers2:
                continue
            state = logs1.get(writer)
            forbidden = state is not None and seq in state.forbidden
            self.check(False, "a rolled-back or failed transaction is invisible" if forbidden
                       else "no transaction is torn: rows are never visible without their marker",
                       writer=writer, seq=seq, rows=sorted(got))

    def check_counters(self, logs0, logs1, counters):
        rows = {}
        for writer, state in logs1.items():
            for row, attempts in state.counter_attempts.items():
                rows[row] = (writer, attempts, state.counter_acked.get(row, 0))
        acked0 = {row: sum(state.counter_attempts[row][:state.counter_acked.get(row, 0)])
                  for state in logs0.values() for row in state.counter_attempts}
        total = sum(n for name, n in counters.items() if name != SHARED_COUNTER)
        self.check(counters.get(SHARED_COUNTER, 0) == total,
                   "the shared counter equals the sum of the per-writer counters (one "
                   "statement increments both)", shared=counters.get(SHARED_COUNTER), sum=total)
        for name, stored in sorted(counters.items()):
            if name != SHARED_COUNTER:
                self.check(name in rows, "every counter row was incremented by someone",
                           row=name, stored=stored)
        for row, (writer, attempts, acked) in sorted(rows.items()):
            stored = counters.get(row, 0)
            unacked = attempts[acked:]
            self.check(len(unacked) <= 1, "the soak leaves at most one increment of a counter "
                       "row unacknowledged", row=row, unacked=unacked)
            if self.row_is_final(writer, row, logs0):
                allowed = {sum(attempts[:acked])} | {sum(attempts)}
                self.check(stored in allowed, "counters are exact (acknowledged increments, "
                           "plus at most the one in flight at a kill)", row=row, stored=stored,
                           acked_sum=sum(attempts[:acked]), unacked=unacked)
            else:
                low = acked0.get(row, 0)
                self.check(low <= stored <= sum(attempts), "counters hold every acknowledged "
                           "increment and nothing never attempted", row=row, stored=stored,
                           acked_sum_before=low, attempted_sum=sum(attempts))

    def row_is_final(self, writer, row, logs0):
        """No increment of `row` can still be under way: its writer is gone, or had moved to a
        later counter row before L0."""
        if self.final or writer not in self.live:
            return True
        state = logs0.get(writer)
        epoch = int(row.rsplit("/", 1)[1])
        return state is not None and any(int(r.rsplit("/", 1)[1]) > epoch
                                         for r in state.counter_attempts)

    def check_side_tables(self, logs0, logs1, tables, side):
        created, dropped, rolled_back, rows = set(), set(), set(), {}
        for state in logs0.values():
            for kind, table, op in state.side_ops:
                if kind == "s" and op in ("create", "expose"):
                    created.add(table)
                elif kind == "s" and op == "drop":
                    dropped.add(table)
                elif kind == "X" and op == "create":
                    rolled_back.add(table)
            for key in state.side_acked:
                rows.setdefault(key[0], {})[key[1]] = state.side_rows[key]
        drop_attempted = {table for state in logs1.values()
                          for kind, table, op in state.side_ops if kind == "S" and op == "drop"}
        for table in sorted(created - drop_attempted):
            self.check_side_rows(table, rows.get(table, {}), side.get(table), table in tables)
        for table in sorted(dropped):
            self.check(table not in tables, "a dropped table stays dropped",
                       table=f"soak.{table}")
        for table in sorted(rolled_back):
            self.check(table not in tables,
                       "a rolled-back CREATE VIRTUAL TABLE leaves no CQL table",
                       table=f"soak.{table}")

    def check_side_rows(self, table, acked, got, listed):
        self.check(listed and isinstance(got, dict),
                   "a created side table (not dropped) exists and reads", table=f"soak.{table}",
                   error=got if isinstance(got, str) else None)
        if not isinstance(got, dict):
            return
        for row_id, values in sorted(acked.items()):
            row = got.get(row_id)
            self.check(row is not None and all(row.get(c) == v for c, v in values.items())
                       and values.get("v") == side_value(table, row_id, "v"),
                       "an acknowledged side-table row is present with its values",
                       table=f"soak.{table}", id=row_id, want=values, got=row)


def main():
    reexec_with_extension_loading()
    work_dir, build_dir, host, live, max_files = sys.argv[1:6]
    paths = Paths(work_dir)
    build_dir = os.path.abspath(build_dir)
    reader = SqliteReader(paths, build_dir) if host == "sqlite" else ShellReader(paths, build_dir)
    checker = Checker(paths, reader, set(filter(None, live.split(","))), int(max_files),
                      "--final" in sys.argv[6:])
    try:
        result = checker.run()
    except (RuntimeError, sqlite3.Error) as e:
        result = {"checks": checker.checks + 1, "violations": [
            {"invariant": "the store reads without error", "host": host, "error": str(e)}]}
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
