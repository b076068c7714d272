"""One soak worker: writes transactions and counter increments through one host, logging each
before and after its commit, and reads continuously, checking that no transaction it sees is
torn. Started (and SIGKILLed, and restarted) by soak.py:

  python3 soak_worker.py KIND WRITER WORK_DIR SEED BUILD_DIR

KIND: vtab (SQL transactions on virtual tables in this Python process), cql (cql() and
cql_rows() in this process), sqlite3 (drives a sqlite3 shell), pg (drives psql), cassette
(runs short-lived `cassette` shells), ddl (side tables: CREATE/ALTER/DROP, in and out of SQL
transactions). SIGTERM stops it after the operation under way.
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from soak_common import (MAX_K, Paths, Violations, WriterLog, cql_quote, known_writers, payload,
                         read_logs, reexec_with_extension_loading, side_value, worker_rng)
from soak_hosts import (CqlFunctionHost, HostError, PostgresHost, SqliteHost, SqliteShellHost,
                        Transaction, batch_cql, classify, counter_cql, markers_cql,
                        rows_cql)

PACE = float(os.environ.get("SOAK_PACE", "0.06"))  # the most a worker sleeps between operations


class Stopping:
    requested = False


def request_stop(_signo, _frame):
    Stopping.requested = True


class WorkerBase:
    def __init__(self, paths, writer, seed):
        self.paths, self.writer = paths, writer
        self.rng = worker_rng(seed, writer)
        self.log = WriterLog(paths, writer)
        self.violations = Violations(paths, writer)
        self.stats = {"tx_acked": 0, "reads": 0, "rows_read": 0, "counters_acked": 0,
                      "flushes": 0, "compactions": 0, "expected_errors": 0, "ddl": 0}
        self.stats_written = 0.0
        self.seq = 0
        self.counter_epoch = 0
        self.counter_uses = 0

    def save_stats(self, force=False):
        now = time.monotonic()
        if force or now - self.stats_written > 2:
            path = os.path.join(self.paths.stats, self.writer)
            with open(path + ".tmp", "w") as f:
                json.dump(self.stats, f)
            os.replace(path + ".tmp", path)
            self.stats_written = now

    def failed(self, what, error):
        """An operation failed: a kill or contention explains expected errors; any other is a
        finding."""
        if error.expected:
            self.stats["expected_errors"] += 1
        else:
            self.violations.report("an operation failed", operation=what, error=str(error),
                                   writer=self.writer)

    pace = PACE

    def run(self):
        while not Stopping.requested:
            self.step()
            self.save_stats()
            time.sleep(self.rng.uniform(0, self.pace))
        self.save_stats(force=True)

    def next_transaction(self, via, kinds=("plain", "savepoint", "rollback", "failing"),
                         weights=(70, 10, 10, 10)):
        self.seq += 1
        kind = self.rng.choices(kinds, weights)[0]
        return Transaction(self.writer, self.seq, self.rng.randint(1, MAX_K), via, kind,
                           marker_first=self.rng.random() < 0.5)

    def log_attempt(self, tx):
        self.log.append("R" if tx.must_not_commit() else "T", tx.seq, tx.k, tx.via)

    def counter_row(self):
        return f"{self.writer}/{self.counter_epoch}"

    def counter_failed(self):
        # The failed increment may or may not have landed: later ones go to a new row, so that
        # each row has at most one unacknowledged increment and the checker can be exact.
        self.counter_epoch += 1
        self.counter_uses = 0

    def check_rows(self, writer, seq, k, rows, where):
        """rows: {i: v} read for ids 1..k+1 of a visible marker."""
        self.stats["reads"] += 1
        self.stats["rows_read"] += len(rows)
        want = {i: payload(writer, seq, i) for i in range(1, k + 1)}
        if rows == want:
            return
        missing = sorted(set(want) - set(rows))
        wrong = sorted(i for i in want if i in rows and rows[i] != want[i])
        extra = sorted(set(rows) - set(want))
        invariant = ("a marker is visible without all its rows (torn transaction)" if missing
                     else "a row holds a wrong value" if wrong
                     else "a row rolled back to a savepoint is visible")
        self.violations.report(invariant, reader=self.writer, where=where, writer=writer,
                               seq=seq, k=k, missing=missing, wrong=wrong, extra=extra,
                               seen={i: rows[i][:40] for i in sorted(rows)})


class HostWorker(WorkerBase):
    """Transactions, counters, reads, flushes and compactions through one host."""

    def __init__(self, paths, writer, seed, host):
        super().__init__(paths, writer, seed)
        self.host = host

    def step(self):
        op = self.rng.choices(["write", "counter", "read", "joined", "flush", "compact"],
                              [45, 12, 30, 6, 4, 3])[0]
        try:
            getattr(self, "op_" + op)()
        except HostError as e:
            self.failed(op, e)
            if op == "counter":
                self.counter_failed()

    def op_write(self):
        tx = self.next_transaction(self.host.via)
        self.log_attempt(tx)
        self.host.write(tx)
        if not tx.must_not_commit():
            self.log.append("t", tx.seq)
            self.stats["tx_acked"] += 1

    def op_counter(self):
        row, delta = self.counter_row(), self.rng.randint(1, 9)
        self.log.append("C", row, delta)
        self.host.increment(row, delta, first=self.counter_uses == 0)
        self.log.append("c", row)
        self.counter_uses += 1
        self.stats["counters_acked"] += 1

    def pick_writer(self):
        writers = sorted(known_writers(self.paths))
        return self.rng.choice(writers) if writers else self.writer

    def op_read(self):
        writer = self.pick_writer()
        for seq, k in self.host.read_markers(writer, self.rng.choice([1, 2, 3, 8])):
            rows = self.host.read_rows(writer, seq, list(range(1, k + 2)))
            self.check_rows(writer, seq, k, rows, f"{self.host.via} marker then rows")

    def op_joined(self):
        writer = self.pick_writer()
        joined = self.host.read_joined(writer)
        if joined is None:
            return self.op_read()
        for seq, k, _count, concatenated in joined:
            rows = {}
            for item in concatenated.split(",") if concatenated else []:
                i, v = item.split(":", 1)
                rows[int(i)] = v
            self.check_rows(writer, seq, k, rows, f"{self.host.via} join of markers and rows")

    def op_flush(self):
        self.host.flush()
        self.stats["flushes"] += 1

    def op_compact(self):
        if self.host.can_compact:
            self.host.compact()
            self.stats["compactions"] += 1


class CassetteShellWorker(WorkerBase):
    """Runs `cassette STORE --format json -e ...` processes, each a few CQL BATCHes (each
    followed by a read of its marker) and at most one counter increment, last. A process's
    writes are acknowledged when it exits 0 having printed what it read."""
    via = "cassette"

    def __init__(self, paths, writer, seed, build_dir):
        super().__init__(paths, writer, seed)
        self.shell = os.path.join(build_dir, "cassette")

    def step(self):
        if self.rng.random() < 0.7:
            self.write_batches()
        else:
            self.read_check()

    def run_shell(self, statements):
        proc = subprocess.Popen([self.shell, self.paths.store, "--format", "json", "-e",
                                 ";\n".join(statements)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        path = self.paths.pid_file(self.writer)
        with open(path + ".tmp", "w") as f:
            f.write(str(proc.pid))
        os.replace(path + ".tmp", path)
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        if proc.returncode == -signal.SIGKILL:
            raise HostError("host process died (SIGKILL)", expected=True)
        if proc.returncode != 0:
            raise HostError(f"cassette exited {proc.returncode}: {err.decode()[-500:]}",
                            expected=classify(err.decode()).expected)
        return [json.loads(line) for line in out.decode().splitlines() if line.strip()]

    def write_batches(self):
        txs = [self.next_transaction(self.via, ("plain",), (1,))
               for _ in range(self.rng.randint(1, 4))]
        statements = []
        for tx in txs:
            statements += [batch_cql(tx), f"SELECT seq, k FROM soak.markers WHERE writer = "
                           f"{cql_quote(tx.writer)} AND seq = {tx.seq}"]
            self.log_attempt(tx)
        counter = None
        if self.rng.random() < 0.4:
            counter = (self.counter_row(), self.rng.randint(1, 9))
            statements.append(counter_cql(*counter))
            self.log.append("C", *counter)
        try:
            out = self.run_shell(statements)
        except HostError as e:
            self.failed("cassette batches", e)
            if counter:
                self.counter_failed()
            return
        want = [[{"seq": tx.seq, "k": tx.k}] for tx in txs]
        if out != want:
            self.violations.report("a shell does not read its own acknowledged batch",
                                   writer=self.writer, want=want, got=out)
        for tx in txs:
            self.log.append("t", tx.seq)
            self.stats["tx_acked"] += 1
        if counter:
            self.log.append("c", counter[0])
            self.stats["counters_acked"] += 1

    def read_check(self):
        writers = sorted(known_writers(self.paths))
        writer = self.rng.choice(writers) if writers else self.writer
        try:
            (markers,) = self.run_shell([markers_cql(writer, self.rng.choice([1, 3]))])
            if not markers:
                return
            # A second process reads the rows: what one process saw, the next must see too.
            out = self.run_shell([rows_cql(writer, m["seq"], list(range(1, m["k"] + 2)))
                                  for m in markers])
        except HostError as e:
            self.failed("cassette read", e)
            return
        for m, rows in zip(markers, out):
            self.check_rows(writer, m["seq"], m["k"], {r["i"]: r["v"] for r in rows},
                            "cassette marker, then rows in another process")


def incarnation_order(writer):
    """A writer name `slot-n` as (slot, n)."""
    slot, _, n = writer.rpartition("-")
    return (slot, int(n)) if n.isdigit() else (writer, 0)


class DdlWorker(WorkerBase):
    """Side tables soak.side_* created, altered, written, dropped, and DDL rolled back, through
    virtual tables of app.db (in and out of SQL transactions) and cql(); now and then a column
    added to the hot table soak.markers while everyone writes it."""
    MAX_LIVE = 4
    pace = 4 * PACE  # schema changes are rarer than writes

    def __init__(self, paths, writer, seed, extension):
        super().__init__(paths, writer, seed)
        self.host = SqliteHost(paths, extension)
        self.db = self.host.db
        # table -> {"owned": bool, "columns": [...], "rows": {id: values}, "next_id": n}
        self.live = self.adopt_side_tables()
        self.counter = 0
        self.hot_columns = 0
        self.prefix = "side_" + writer.replace("-", "_")

    def adopt_side_tables(self):
        """The side tables earlier incarnations created and did not (try to) drop, with their
        acknowledged rows, so that a kill does not leave them behind for good."""
        live, attempted_ids, adds = {}, {}, {}
        states = read_logs(self.paths)
        # In the order the incarnations ran (ddl-2 before ddl-10): a later one may drop a table.
        for writer in sorted(states, key=incarnation_order):
            state = states[writer]
            for kind, table, op in state.side_ops:
                if kind == "s" and op in ("create", "expose"):
                    live[table] = {"owned": op == "create", "columns": [], "rows": {}}
                elif kind == "S" and op == "drop":
                    live.pop(table, None)
                elif kind == "S" and op.startswith("add:"):
                    adds[table] = adds.get(table, 0) + 1
                elif kind == "s" and op.startswith("add:") and table in live:
                    live[table]["columns"].append(op[len("add:"):])
            for (table, row_id), values in state.side_rows.items():
                attempted_ids[table] = max(attempted_ids.get(table, 0), row_id)
                if (table, row_id) in state.side_acked and table in live:
                    live[table]["rows"][row_id] = values
        for table, info in live.items():
            info["next_id"] = attempted_ids.get(table, 0) + 1
            info["adds"] = adds.get(table, 0)
        return live

    def step(self):
        ops = ["create", "insert", "alter", "drop", "rollback_drop", "rollback_create", "read",
               "alter_hot"]
        op = self.rng.choices(ops, [14, 45, 8, 6, 5, 5, 16, 1])[0]
        try:
            getattr(self, "op_" + op)()
        except HostError as e:
            self.failed("ddl " + op, e)

    def new_name(self):
        self.counter += 1
        return f"{self.prefix}_{self.counter}"

    def sql(self, statement, params=()):
        return self.host._run(lambda: self.db.execute(statement, params).fetchall())

    def op_create(self):
        if len(self.live) >= self.MAX_LIVE:
            return self.op_drop()
        name = self.new_name()
        owned = self.rng.random() < 0.6
        op = "create" if owned else "expose"
        self.log.append("S", name, op)
        if owned:  # the virtual table creates the CQL table, maybe inside a SQL transaction
            in_tx = self.rng.random() < 0.5
            if in_tx:
                self.sql("BEGIN")
            self.sql(f"CREATE VIRTUAL TABLE {name} USING cql(id int PRIMARY KEY, v text, "
                     f"keyspace = 'soak')")
            if in_tx:
                self.sql("COMMIT")
        else:
            self.host.cql(f"CREATE TABLE soak.{name} (id int PRIMARY KEY, v text)")
            self.sql(f"CREATE VIRTUAL TABLE {name} USING cql(table = 'soak.{name}')")
        self.log.append("s", name, op)
        self.live[name] = {"owned": owned, "columns": [], "rows": {}, "next_id": 1, "adds": 0}
        self.stats["ddl"] += 1

    def pick_live(self):
        return self.rng.choice(sorted(self.live)) if self.live else None

    def op_insert(self):
        name = self.pick_live()
        if name is None:
            return self.op_create()
        table = self.live[name]
        row_id = table["next_id"]
        table["next_id"] += 1
        through_cql = bool(table["columns"]) or self.rng.random() < 0.3
        columns = ["v"] + (table["columns"] if through_cql else [])
        values = {c: side_value(name, row_id, c) for c in columns}
        self.log.append("W", name, row_id, json.dumps(values, sort_keys=True))
        if through_cql:
            literals = ", ".join(cql_quote(v) if isinstance(v, str) else str(v)
                                 for v in values.values())
            self.host.cql(f"INSERT INTO soak.{name} (id, {', '.join(values)}) "
                          f"VALUES ({row_id}, {literals})")
        else:
            self.sql(f"INSERT INTO {name} (id, v) VALUES (?, ?)", (row_id, values["v"]))
        self.log.append("w", name, row_id)
        table["rows"][row_id] = values

    def op_alter(self):
        name = self.pick_live()
        if name is None:
            return
        # Numbered by attempts: an unacknowledged ADD may have happened.
        self.live[name]["adds"] += 1
        column = f"c{self.live[name]['adds']}"
        self.log.append("S", name, "add:" + column)
        self.host.cql(f"ALTER TABLE soak.{name} ADD {column} int")
        self.log.append("s", name, "add:" + column)
        self.live[name]["columns"].append(column)
        self.stats["ddl"] += 1

    def op_alter_hot(self):
        if self.hot_columns >= 1:  # a few per run: every reader of soak.markers sees them
            return
        self.hot_columns += 1
        column = f"x_{self.writer.replace('-', '_')}_{self.new_name().rsplit('_', 1)[1]}"
        self.log.append("S", "markers", "add:" + column)
        self.host.cql(f"ALTER TABLE soak.markers ADD {column} int")
        self.log.append("s", "markers", "add:" + column)
        self.stats["ddl"] += 1

    def op_drop(self):
        name = self.pick_live()
        if name is None:
            return
        table = self.live.pop(name)
        self.log.append("S", name, "drop")
        if not table["owned"]:  # DROP of a table= virtual table leaves the CQL table
            self.host.cql(f"DROP TABLE soak.{name}")
        self.sql(f"DROP TABLE {name}")
        self.log.append("s", name, "drop")
        self.stats["ddl"] += 1

    def op_rollback_drop(self):
        name = self.pick_live()
        if name is None:
            return
        self.log.append("X", name, "drop")
        self.sql("BEGIN")
        self.sql(f"DROP TABLE {name}")
        self.sql("ROLLBACK")
        self.stats["ddl"] += 1
        self.verify_side_table(name, "after BEGIN; DROP TABLE; ROLLBACK")

    def op_rollback_create(self):
        name = self.new_name()
        self.log.append("X", name, "create")
        self.sql("BEGIN")
        self.sql(f"CREATE VIRTUAL TABLE {name} USING cql(id int PRIMARY KEY, v text, "
                 f"keyspace = 'soak')")
        self.sql(f"INSERT INTO {name} (id, v) VALUES (1, 'rolled back')")
        self.sql("ROLLBACK")
        self.stats["ddl"] += 1
        tables = [t["name"] for t in self.host.cql("DESCRIBE TABLES")
                  if t["keyspace_name"] == "soak"]
        if name in tables:
            self.violations.report("a rolled-back CREATE VIRTUAL TABLE left its CQL table",
                                   writer=self.writer, table=f"soak.{name}")

    def op_read(self):
        name = self.pick_live()
        if name is not None:
            self.verify_side_table(name, "read")

    def verify_side_table(self, name, when):
        """Every acknowledged row of a live side table, with its values, through cql()."""
        table = self.live[name]
        self.stats["reads"] += 1
        try:
            got = {r["id"]: r for r in self.host.cql(f"SELECT * FROM soak.{name}")}
        except HostError as e:
            got, error = {}, str(e)
        else:
            error = None
        lost = {i: v for i, v in table["rows"].items()
                if i not in got or any(got[i].get(c) != x for c, x in v.items())}
        if error is not None:
            self.violations.report(f"a side table not dropped reads ({when})",
                                   writer=self.writer, table=f"soak.{name}", error=error)
        elif lost:
            self.violations.report(f"acknowledged side-table rows are present ({when})",
                                   writer=self.writer, table=f"soak.{name}",
                                   lost_ids=sorted(lost)[:20], acked=len(table["rows"]))
        if error is not None or lost:
            self.live.pop(name)  # reported once; its log stays for the checker


def main():
    reexec_with_extension_loading()
    kind, writer, work_dir, seed, build_dir = sys.argv[1:6]
    signal.signal(signal.SIGTERM, request_stop)
    paths = Paths(work_dir)
    extension = os.path.join(os.path.abspath(build_dir), "cassette")
    if kind == "vtab":
        worker = HostWorker(paths, writer, seed, SqliteHost(paths, extension))
    elif kind == "cql":
        worker = HostWorker(paths, writer, seed, CqlFunctionHost(paths, extension))
    elif kind == "sqlite3":
        worker = HostWorker(paths, writer, seed, SqliteShellHost(paths, writer, extension))
    elif kind == "pg":
        worker = HostWorker(paths, writer, seed, PostgresHost(paths, writer))
    elif kind == "cassette":
        worker = CassetteShellWorker(paths, writer, seed, build_dir)
    elif kind == "ddl":
        worker = DdlWorker(paths, writer, seed, extension)
    else:
        sys.exit(f"unknown worker kind {kind}")
    try:
        worker.run()
    finally:
        host = getattr(worker, "host", None)
        if hasattr(host, "stop"):
            host.stop()


if __name__ == "__main__":
    main()
