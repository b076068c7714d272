"""The hosts a soak worker drives, each behind the same small interface:

  write(tx)              commit one transaction (Transaction below) as one unit; returns when the
                         commit returned (raises HostError otherwise)
  read_markers(writer)   the newest markers of a writer: [(seq, k), ...]
  read_rows(writer, seq, ids)   {i: v} for the rows of that transaction among `ids`
  increment(row, delta)  adds delta to the counter rows `row` and 'all' in one statement
  flush(), compact()     cql_flush() / cql_compact() where the host has them

SqliteHost: Python's sqlite3 with the extension, SQL transactions on virtual tables.
CqlFunctionHost: the same process, every statement through cql() (a CQL BATCH per transaction).
SqliteShellHost: a long-lived `sqlite3` shell process fed through a pipe (-bail: an error ends
  it, so no half-written transaction can commit after a failed statement).
PostgresHost: a long-lived `psql` whose backend writes through cassette_fdw.
Each child-process host publishes its child's pid (the process the orchestrator kills) in
pids/<name>; PostgresHost publishes its backend's pid.
"""
import json
import os
import select
import sqlite3
import subprocess
import time

from soak_common import MAX_K, SHARED_COUNTER, cql_quote, payload


class HostError(Exception):
    """A statement failed. `expected` when the soak's own kills or load explain it."""

    def __init__(self, message, expected=False):
        super().__init__(message)
        self.expected = expected


# Failures that a kill or contention explains (anything else is reported as a finding).
EXPECTED_ERRORS = (
    "store is busy",
    "database is locked",
    "host process died",  # a child host killed by the orchestrator
    # A PostgreSQL backend SIGKILLed between its two commit phases leaves its transaction in
    # doubt: hosts that cannot ask PostgreSQL refuse to write until one of its backends writes
    # to the store and decides it (engine/storage/FORMAT.md, "Prepared transactions").
    "whose writer stopped before committing or aborting it",
)


def classify(message):
    return HostError(message, expected=any(e in message for e in EXPECTED_ERRORS))


class Transaction:
    """One soak transaction: the marker (writer, seq, k) and rows i = 1..k, all in one commit.

    kind: 'plain'; 'savepoint' (a row i = k + 1 written and rolled back to a savepoint first);
    'rollback' (written, then rolled back: must never be visible); 'failing' (a statement that
    fails on a bad value makes the whole unit fail: must never be visible).
    """

    def __init__(self, writer, seq, k, via, kind="plain", marker_first=True):
        self.writer, self.seq, self.k, self.via = writer, seq, k, via
        self.kind, self.marker_first = kind, marker_first

    def rows(self):
        return [(self.writer, self.seq, i, payload(self.writer, self.seq, i))
                for i in range(1, self.k + 1)]

    def junk_row(self):
        return (self.writer, self.seq, self.k + 1, "rolled back to a savepoint")

    def must_not_commit(self):
        return self.kind in ("rollback", "failing")


def sql_literal(value):
    return str(value) if isinstance(value, int) else cql_quote(value)


def values_sql(row):
    return "(" + ", ".join(sql_literal(v) for v in row) + ")"


def transaction_sql(tx, savepoint_sql, failing_sql):
    """A transaction as SQL statements for a host whose tables are markers/rows (SQLite or
    PostgreSQL): BEGIN ... COMMIT, or ROLLBACK for 'rollback'."""
    marker = (f"INSERT INTO markers (writer, seq, k, via) VALUES "
              f"{values_sql((tx.writer, tx.seq, tx.k, tx.via))}")
    rows = "INSERT INTO rows (writer, seq, i, v) VALUES " + ", ".join(
        values_sql(r) for r in tx.rows())
    body = [marker, rows] if tx.marker_first else [rows, marker]
    if tx.kind == "savepoint":
        body = savepoint_sql(values_sql(tx.junk_row())) + body
    if tx.kind == "failing":
        body.append(failing_sql)
    end = "ROLLBACK" if tx.kind == "rollback" else "COMMIT"
    return ["BEGIN"] + body + [end]


def counter_cql(row, delta):
    return (f"UPDATE soak.counters SET n = n + {delta} "
            f"WHERE name IN ({cql_quote(row)}, {cql_quote(SHARED_COUNTER)})")


def batch_cql(tx):
    """A transaction as one logged CQL BATCH ('failing': a last statement with a bad value)."""
    statements = [f"INSERT INTO soak.rows (writer, seq, i, v) VALUES {values_sql(r)}"
                  for r in tx.rows()]
    marker = (f"INSERT INTO soak.markers (writer, seq, k, via) VALUES "
              f"{values_sql((tx.writer, tx.seq, tx.k, tx.via))}")
    statements = [marker] + statements if tx.marker_first else statements + [marker]
    if tx.kind == "failing":
        statements.append(f"INSERT INTO soak.rows (writer, seq, i, v) VALUES "
                          f"({cql_quote(tx.writer)}, {tx.seq}, 'not an int', 'x')")
    return "BEGIN BATCH " + "; ".join(statements) + "; APPLY BATCH"


def markers_cql(writer, limit):
    return (f"SELECT seq, k FROM soak.markers WHERE writer = {cql_quote(writer)} "
            f"ORDER BY seq DESC LIMIT {limit}")


def rows_cql(writer, seq, ids):
    return (f"SELECT i, v FROM soak.rows WHERE writer = {cql_quote(writer)} AND seq = {seq} "
            f"AND i IN ({', '.join(str(i) for i in ids)})")


# A writer's newest markers joined with their rows, in SQL that SQLite and PostgreSQL share.
JOINED_SQL = (
    "SELECT m.seq, m.k, count(r.i), {concat}(r.i || ':' || r.v, ',') FROM "
    "(SELECT writer, seq, k FROM markers WHERE writer = {writer} ORDER BY seq DESC LIMIT 5) m "
    "LEFT JOIN rows r ON r.writer = m.writer AND r.seq = m.seq AND r.i IN ("
    + ", ".join(str(i) for i in range(1, MAX_K + 2)) + ") GROUP BY m.seq, m.k")


def connect_sqlite(paths, extension):
    db = sqlite3.connect(paths.db, timeout=60, isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension(extension)
    db.enable_load_extension(False)
    return db


# Whether a SQLite function can be called with no argument (cql_compact() arrives in a later
# version of the extension; the soak compacts where it can).
NO_ARGUMENT_FUNCTION_SQL = ("SELECT count(*) FROM pragma_function_list WHERE name = {} "
                            "AND narg IN (0, -1)")


def has_function(db, name):
    return db.execute(NO_ARGUMENT_FUNCTION_SQL.format("?"), (name,)).fetchone()[0] > 0


class SqliteHost:
    """SQL transactions on the virtual tables markers, rows and counters of app.db."""
    via = "vtab"

    def __init__(self, paths, extension):
        self.db = connect_sqlite(paths, extension)
        self.can_compact = has_function(self.db, "cql_compact")

    def _run(self, fn):
        try:
            return fn()
        except sqlite3.Error as e:
            if self.db.in_transaction:
                try:
                    self.db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise classify(str(e)) from None

    def write(self, tx):
        def run():
            if tx.kind == "failing":
                # One autocommit statement whose last row has a bad value: none of it lands.
                rows = tx.rows() + [(tx.writer, tx.seq, "not an int", "x")]
                try:
                    self.db.execute("INSERT INTO rows (writer, seq, i, v) VALUES " +
                                    ", ".join("(?, ?, ?, ?)" for _ in rows),
                                    [v for r in rows for v in r])
                except sqlite3.Error:
                    return
                raise HostError("an INSERT with a bad value succeeded")
            self.db.execute("BEGIN")
            if tx.kind == "savepoint":
                self.db.execute("SAVEPOINT junk")
                self.db.execute("INSERT INTO rows (writer, seq, i, v) VALUES (?, ?, ?, ?)",
                                tx.junk_row())
                self.db.execute("ROLLBACK TO junk")
                self.db.execute("RELEASE junk")
            steps = [self._insert_marker, self._insert_rows]
            for step in (steps if tx.marker_first else reversed(steps)):
                step(tx)
            self.db.execute("ROLLBACK" if tx.kind == "rollback" else "COMMIT")
        self._run(run)

    def _insert_marker(self, tx):
        self.db.execute("INSERT INTO markers (writer, seq, k, via) VALUES (?, ?, ?, ?)",
                        (tx.writer, tx.seq, tx.k, tx.via))

    def _insert_rows(self, tx):
        self.db.executemany("INSERT INTO rows (writer, seq, i, v) VALUES (?, ?, ?, ?)", tx.rows())

    def read_markers(self, writer, limit=3):
        return self._run(lambda: self.db.execute(
            "SELECT seq, k FROM markers WHERE writer = ? ORDER BY seq DESC LIMIT ?",
            (writer, limit)).fetchall())

    def read_rows(self, writer, seq, ids):
        marks = ", ".join("?" for _ in ids)
        return dict(self._run(lambda: self.db.execute(
            f"SELECT i, v FROM rows WHERE writer = ? AND seq = ? AND i IN ({marks})",
            (writer, seq, *ids)).fetchall()))

    def read_joined(self, writer):
        """The newest markers of a writer, each with its rows, in one statement (a nested loop
        from markers into rows: partition lookups)."""
        return self._run(lambda: self.db.execute(JOINED_SQL.format(
            concat="group_concat", writer="?"), (writer,)).fetchall())

    def increment(self, row, delta, first):
        if first:  # a counter row that does not exist yet: only CQL's UPDATE creates it
            self._run(lambda: self.db.execute("SELECT cql(?)", (counter_cql(row, delta),)))
            return
        changed = self._run(lambda: self.db.execute(
            "UPDATE counters SET n = n + ? WHERE name IN (?, ?)",
            (delta, row, SHARED_COUNTER)).rowcount)
        if changed != 2:
            raise HostError(f"UPDATE of counters {row} and all changed {changed} rows, not 2")

    def flush(self):
        self._run(lambda: self.db.execute("SELECT cql_flush()").fetchall())

    def compact(self):
        if self.can_compact:
            self._run(lambda: self.db.execute("SELECT cql_compact()").fetchall())

    def cql(self, statement):
        return json.loads(self._run(lambda: self.db.execute("SELECT cql(?)",
                                                            (statement,)).fetchone()[0]))


class CqlFunctionHost(SqliteHost):
    """Everything through cql() and cql_rows(): one CQL BATCH per transaction."""
    via = "cql"

    def write(self, tx):
        if tx.kind == "rollback":  # a CQL batch cannot roll back; write a failing one instead
            tx.kind = "failing"
        if tx.kind == "failing":
            try:
                self.cql(batch_cql(tx))
            except HostError:
                return
            raise HostError("a BATCH with a bad value succeeded")
        self.cql(batch_cql(tx))

    def read_markers(self, writer, limit=3):
        if limit % 2:
            return [(r["seq"], r["k"]) for r in self.cql(markers_cql(writer, limit))]
        return [(r["seq"], r["k"]) for r in self._rows_of(markers_cql(writer, limit))]

    def read_rows(self, writer, seq, ids):
        return {r["i"]: r["v"] for r in self.cql(rows_cql(writer, seq, ids))}

    def _rows_of(self, statement):
        return [json.loads(j) for (j,) in self._run(lambda: self.db.execute(
            "SELECT json FROM cql_rows(?)", (statement,)).fetchall())]

    def read_joined(self, writer):
        return None

    def increment(self, row, delta, first):
        self.cql(counter_cql(row, delta))


class ChildHost:
    """A host that is a long-lived child process, talked to through pipes: `command` is sent,
    followed by `end_command`, and output is read up to the end line `END`."""
    END = "@@soak-end@@"

    def __init__(self, paths, name):
        self.paths, self.name = paths, name
        self.proc = None
        self.buffer = b""
        self.hung = False

    def argv(self):
        raise NotImplementedError

    def end_command(self):
        raise NotImplementedError

    def start(self):
        self.proc = subprocess.Popen(self.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=self.env())
        self.buffer = b""
        self.hung = False
        self.publish_pid(self.proc.pid)

    def env(self):
        return os.environ

    def publish_pid(self, pid):
        path = self.paths.pid_file(self.name)
        with open(path + ".tmp", "w") as f:
            f.write(str(pid))
        os.replace(path + ".tmp", path)

    def stop(self):
        if self.proc:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def ask(self, text, timeout=120):
        """Runs `text`; returns its output lines. Raises HostError when the child dies."""
        if self.proc is None or self.proc.poll() is not None:
            self._died("before the request")
        try:
            self.proc.stdin.write((text + "\n" + self.end_command() + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._died("while sending")
        lines = []
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            if line is None:
                self._died("while answering", lines)
            if line == self.END:
                return lines
            lines.append(line)

    def _read_line(self, deadline):
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.hung = True
                self.proc.kill()
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode(errors="replace")

    def _died(self, when, lines=()):
        """The child is gone (or hangs). Ended by a signal it did not raise itself (the
        orchestrator's SIGKILL), whatever it printed before is partial output; ended on its own
        (-bail), what it printed is the error."""
        signalled = False
        if self.proc is not None:
            try:  # its stdout closes a moment before it can be reaped
                self.proc.wait(timeout=5)
                signalled = self.proc.returncode < 0 and not self.hung
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if lines and not signalled:
            raise self.error_of(" / ".join(lines[-5:]))
        raise HostError(f"host process died {when}", expected=True)

    def error_of(self, message):
        return classify(message)

    def ensure_started(self):
        if self.proc is None or self.proc.poll() is not None:
            self.start()


class SqliteShellHost(ChildHost):
    """The sqlite3 shell with the extension, -bail, list mode, reading statements from a pipe."""
    via = "sqlite3"

    def __init__(self, paths, name, extension):
        super().__init__(paths, name)
        self.extension = extension
        self.can_compact = False

    def argv(self):
        return ["sqlite3", "-batch", "-bail", "-cmd", f".load {self.extension}", "-cmd",
                ".timeout 60000", "-cmd", ".mode list", self.paths.db]

    def end_command(self):
        return f".print {self.END}"

    def start(self):
        super().start()
        self.can_compact = self.ask(
            NO_ARGUMENT_FUNCTION_SQL.format("'cql_compact'") + ";") not in (["0"], [])

    def _statements(self, statements):
        self.ensure_started()
        out = self.ask(";\n".join(statements) + ";")
        if out:  # -bail: the shell has exited, and its open transaction with it
            self.stop()
            raise classify(" / ".join(out))
        return out

    def write(self, tx):
        if tx.kind == "failing":
            tx.kind = "rollback"  # a failing statement ends the shell (-bail) before ROLLBACK
        self._statements(transaction_sql(
            tx, lambda junk: ["SAVEPOINT junk", f"INSERT INTO rows (writer, seq, i, v) VALUES {junk}",
                              "ROLLBACK TO junk", "RELEASE junk"], None))

    def _query(self, sql):
        self.ensure_started()
        out = self.ask(sql + ";")
        rows = [line.split("|") for line in out]
        if any(len(r) < 2 for r in rows):
            self.stop()
            raise classify(" / ".join(out))
        return rows

    def read_markers(self, writer, limit=3):
        return [(int(s), int(k)) for s, k in self._query(
            f"SELECT seq, k FROM markers WHERE writer = {cql_quote(writer)} "
            f"ORDER BY seq DESC LIMIT {limit}")]

    def read_rows(self, writer, seq, ids):
        return {int(i): v for i, v in self._query(
            f"SELECT i, v FROM rows WHERE writer = {cql_quote(writer)} AND seq = {seq} "
            f"AND i IN ({', '.join(str(i) for i in ids)})")}

    def read_joined(self, writer):
        return None

    def increment(self, row, delta, first):
        self.ensure_started()
        out = self.ask(f"SELECT cql({cql_quote(counter_cql(row, delta))});")
        if out != ['{"result": "void"}']:
            self.stop()
            raise classify(" / ".join(out))

    def flush(self):
        self._query("SELECT 'flushed', cql_flush()")

    def compact(self):
        if self.can_compact:
            self._query("SELECT 'compacted', cql_compact()")


# psql's messages when its backend is gone (killed, terminated, or the server restarting).
PG_CONNECTION_LOST = (
    "terminating connection", "server closed the connection", "connection to server",
    "the database system is", "no connection to the server", "could not connect",
    "Connection refused", "connection was lost",
)


class PostgresHost(ChildHost):
    """psql on the throwaway server; markers, rows and counters are cassette_fdw foreign
    tables. The pid published is the backend's."""
    via = "pg"

    def __init__(self, paths, name):
        super().__init__(paths, name)
        self.backend_pid = None
        self.can_compact = False

    def argv(self):
        return ["psql", "-X", "-q", "-At", "-d", "postgres"]

    def end_command(self):
        return f"\\echo {self.END}"

    def start(self):
        deadline = time.monotonic() + 60
        while True:  # the server may be restarting after a backend was killed
            self.backend_pid = None
            super().start()
            try:
                out = self.ask("SELECT pg_backend_pid();")
                self.backend_pid = int(out[-1])
                self.publish_pid(self.backend_pid)
                return
            except (HostError, ValueError, IndexError):
                self.stop()
                if time.monotonic() > deadline:
                    raise HostError("PostgreSQL does not accept connections for 60 s")
                time.sleep(0.5)

    def publish_pid(self, pid):
        if self.backend_pid is not None:
            super().publish_pid(pid)

    def error_of(self, message):
        lost = any(p in message for p in PG_CONNECTION_LOST)
        return HostError(message, expected=lost or "store is busy" in message)

    def _failed(self, out):
        """The error for output that is not the answer; forgets a lost connection."""
        message = " / ".join(out)
        if any(p in message for p in PG_CONNECTION_LOST):
            self.stop()
        return self.error_of(message)

    def _statements(self, statements, want=None):
        self.ensure_started()
        out = self.ask(";\n".join(statements) + ";")
        if out != (want or []):
            raise self._failed(out)
        return out

    def write(self, tx):
        failing = "SELECT 1 / 0"
        statements = transaction_sql(
            tx, lambda junk: ["SAVEPOINT junk",
                              f"INSERT INTO rows (writer, seq, i, v) VALUES {junk}",
                              "ROLLBACK TO SAVEPOINT junk"], failing)
        if tx.kind == "failing":
            try:
                self._statements(statements)
            except HostError as e:
                if "division by zero" in str(e):
                    return
                raise
            raise HostError("a transaction with a failing statement succeeded")
        self._statements(statements)

    def _query(self, sql):
        self.ensure_started()
        out = self.ask(sql + ";")
        rows = [line.split("|") for line in out]
        if any(len(r) < 2 for r in rows):
            raise self._failed(out)
        return rows

    def read_markers(self, writer, limit=3):
        return [(int(s), int(k)) for s, k in self._query(
            f"SELECT seq, k FROM markers WHERE writer = {cql_quote(writer)} "
            f"ORDER BY seq DESC LIMIT {limit}")]

    def read_rows(self, writer, seq, ids):
        return {int(i): v for i, v in self._query(
            f"SELECT i, v FROM rows WHERE writer = {cql_quote(writer)} AND seq = {seq} "
            f"AND i IN ({', '.join(str(i) for i in ids)})")}

    def read_joined(self, writer):
        return [(int(s), int(k), int(n), rows or None) for s, k, n, rows in self._query(
            JOINED_SQL.format(concat="string_agg", writer=cql_quote(writer)))]

    def increment(self, row, delta, first):
        self._statements([f"SELECT cql({cql_quote(counter_cql(row, delta))})"],
                         want=['{"result": "ok"}'])

    def flush(self):
        pass

    def compact(self):
        pass
