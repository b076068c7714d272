"""What the soak's orchestrator, workers and checker share: the layout of the work directory, the
schema, the deterministic row payloads, and the synced logs of what was attempted and acknowledged.

The work directory (SOAK_DIR):
  app.db, app.db.cassette/   the SQLite database every SQLite host opens, and the store
  logs/<writer>.log          one per writer incarnation, appended and fsynced line by line
  pids/<name>                pids the orchestrator may kill (a host's child, a PostgreSQL backend)
  violations/<writer>.jsonl  what a worker's continuous reads found wrong
  stats/<writer>             a worker's count of reader checks (rewritten now and then)

Log lines (a writer appends; a line without its newline was cut by a kill and is ignored):
  T seq k via     a transaction (a marker row and k rows) about to commit
  t seq           ...acknowledged: its commit returned
  R seq k via     a transaction that must never be visible (rolled back, or failing on purpose)
  C row delta     a counter increment of `row` (and of the row 'all') about to commit
  c row           ...acknowledged
  S table op      a side-table operation about to run (op: create, drop)
  s table op      ...acknowledged
  X table op      a side-table operation that is rolled back on purpose (op: create, drop)
  W table id json a side-table row about to be written (json: the column values)
  w table id      ...acknowledged
"""
import hashlib
import json
import os
import random
import sqlite3
import sys

def reexec_with_extension_loading():
    """Runs this script again under Debian's python3 when this one's sqlite3 module cannot load
    extensions (pyenv builds often cannot)."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system):
        os.execv(system, [system] + sys.argv)
    sys.exit("no python3 whose sqlite3 module can load extensions")


KEYSPACE = "soak"
SCHEMA_CQL = [
    "CREATE KEYSPACE soak WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    # One partition per writer: a transaction's marker row.
    "CREATE TABLE soak.markers (writer text, seq int, k int, via text, PRIMARY KEY (writer, seq))",
    # One partition per row: a transaction's k rows land all over the token ring.
    "CREATE TABLE soak.rows (writer text, seq int, i int, v text, PRIMARY KEY ((writer, seq, i)))",
    "CREATE TABLE soak.counters (name text PRIMARY KEY, n counter)",
]
SHARED_COUNTER = "all"  # every increment also goes to this row, in the same statement
MAX_K = 6  # rows per transaction besides the marker


def payload(writer, seq, i):
    """The value row (writer, seq, i) must hold: derived from its key, 16 to 400 characters."""
    digest = hashlib.sha1(f"{writer}:{seq}:{i}".encode()).hexdigest()
    length = 16 + int(digest[:4], 16) % 385
    return (digest * (length // len(digest) + 1))[:length]


def side_value(table, row_id, column):
    """The value a side-table cell must hold (an int column added with ALTER ... ADD, or v)."""
    digest = hashlib.sha1(f"{table}:{row_id}:{column}".encode()).hexdigest()
    return digest[:12] if column == "v" else int(digest[:6], 16)


def worker_rng(seed, name):
    """The random sequence of one worker incarnation: fixed by the soak's seed and its name."""
    return random.Random(f"{seed}/{name}")


class Paths:
    def __init__(self, work_dir):
        self.work = os.path.abspath(work_dir)
        self.db = os.path.join(self.work, "app.db")
        self.store = self.db + ".cassette"
        self.logs = os.path.join(self.work, "logs")
        self.pids = os.path.join(self.work, "pids")
        self.violations = os.path.join(self.work, "violations")
        self.stats = os.path.join(self.work, "stats")

    def make(self):
        for d in (self.logs, self.pids, self.violations, self.stats):
            os.makedirs(d, exist_ok=True)

    def pid_file(self, name):
        return os.path.join(self.pids, name)


def write_synced(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


class WriterLog:
    """A writer's log: every line is on disk (fsynced) before `append` returns."""

    def __init__(self, paths, writer):
        self.writer = writer
        self.fd = os.open(os.path.join(paths.logs, writer + ".log"),
                          os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def append(self, *fields):
        os.write(self.fd, (" ".join(str(f) for f in fields) + "\n").encode())
        os.fsync(self.fd)


class Violations:
    """Where a worker reports what its reads found wrong (synced, so a kill cannot lose it)."""

    def __init__(self, paths, writer):
        self.path = os.path.join(paths.violations, writer + ".jsonl")

    def report(self, invariant, **details):
        record = {"invariant": invariant, **details}
        write_synced(self.path, json.dumps(record, sort_keys=True) + "\n", mode="a")


class WriterState:
    """What one writer's log says (see the module comment for the lines)."""

    def __init__(self, writer):
        self.writer = writer
        self.attempted = {}   # seq -> (k, via)
        self.acked = set()    # seq
        self.forbidden = {}   # seq -> (k, via): must never be visible
        self.counter_attempts = {}  # counter row -> [delta, ...] in order
        self.counter_acked = {}     # counter row -> number of acknowledged increments (a prefix)
        self.side_ops = []          # (kind, table, op) in order, kind in S s X
        self.side_rows = {}         # (table, id) -> values dict, attempted
        self.side_acked = set()     # (table, id)


def parse_log(path, writer):
    state = WriterState(writer)
    with open(path) as f:
        text = f.read()
    for line in text.split("\n")[:-1]:  # the last piece lacks its newline: cut by a kill
        fields = line.split(" ")
        kind = fields[0]
        if kind == "T":
            state.attempted[int(fields[1])] = (int(fields[2]), fields[3])
        elif kind == "t":
            state.acked.add(int(fields[1]))
        elif kind == "R":
            state.forbidden[int(fields[1])] = (int(fields[2]), fields[3])
        elif kind == "C":
            state.counter_attempts.setdefault(fields[1], []).append(int(fields[2]))
        elif kind == "c":
            state.counter_acked[fields[1]] = state.counter_acked.get(fields[1], 0) + 1
        elif kind in ("S", "s", "X"):
            state.side_ops.append((kind, fields[1], fields[2]))
        elif kind == "W":
            state.side_rows[(fields[1], int(fields[2]))] = json.loads(" ".join(fields[3:]))
        elif kind == "w":
            state.side_acked.add((fields[1], int(fields[2])))
    return state


def read_logs(paths):
    """writer -> WriterState, for every log in the work directory."""
    states = {}
    for name in sorted(os.listdir(paths.logs)):
        if name.endswith(".log"):
            writer = name[:-len(".log")]
            states[writer] = parse_log(os.path.join(paths.logs, name), writer)
    return states


def known_writers(paths):
    return [n[:-len(".log")] for n in os.listdir(paths.logs) if n.endswith(".log")]


def cql_quote(text):
    return "'" + text.replace("'", "''") + "'"
