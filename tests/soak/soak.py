"""The soak: several processes write, read, flush, compact and change the schema of one store at
once while this orchestrator SIGKILLs them at random; after each kill a fresh process checks the
invariants (soak_check.py). Run through tests/soak/run.sh, which starts PostgreSQL:

  soak.py --build BUILD_DIR --work WORK_DIR --seconds N --seed S [--workers vtab1,...]
          [--checkers sqlite,cassette] [--max-files N] [--max-fds N] [--no-postgres]

Workers (soak_worker.py), each a process writing under its own name:
  vtab1, vtab2  Python sqlite3 + extension, SQL transactions on virtual tables
  cql1          Python sqlite3 + extension, CQL BATCHes through cql(), reads through cql_rows()
  sqlite3       drives a long-lived sqlite3 shell (the shell is what gets killed)
  cassette      runs short-lived cassette shells (killed mid-run)
  pg1, pg2      drive psql; the PostgreSQL backend is killed (SIGKILL: the server restarts every
                backend) or terminated (pg_terminate_backend)
  ddl           side tables: CREATE/ALTER ADD/DROP, rolled-back CREATE and DROP, in and out of
                SQL transactions, a column added to the hot table soak.markers
The kill schedule (times and victims) and every worker's choices follow from the seed; the
interleaving of processes does not.
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from soak_common import SCHEMA_CQL, Paths, read_logs, reexec_with_extension_loading

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = sys.executable

# slot -> worker kind. Python workers are killed themselves; the others' children are.
SLOTS = {"vtab1": "vtab", "vtab2": "vtab", "cql1": "cql", "sqlite3": "sqlite3",
         "cassette": "cassette", "ddl": "ddl", "pg1": "pg", "pg2": "pg"}
IN_PROCESS_KINDS = ("vtab", "cql", "ddl")
# (how, slot kinds it applies to, weight)
KILLS = [("kill worker", IN_PROCESS_KINDS, 5), ("kill sqlite3 shell", ("sqlite3",), 2),
         ("kill cassette shell", ("cassette",), 2), ("SIGKILL backend", ("pg",), 1),
         ("pg_terminate_backend", ("pg",), 1)]


class Worker:
    def __init__(self, slot, kind):
        self.slot, self.kind = slot, kind
        self.incarnation = -1
        self.proc = None
        self.writer = None

    def start(self, args, paths):
        self.incarnation += 1
        self.writer = f"{self.slot}-{self.incarnation}"
        err = open(os.path.join(paths.work, "stderr", self.writer), "w")
        self.proc = subprocess.Popen(
            [PYTHON, os.path.join(HERE, "soak_worker.py"), self.kind, self.writer, paths.work,
             str(args.seed), args.build], stdout=err, stderr=subprocess.STDOUT)
        err.close()

    def child_pid(self, paths):
        """The pid the kill targets: the worker itself, or its child host / backend."""
        if self.kind in IN_PROCESS_KINDS:
            return self.proc.pid
        try:
            with open(paths.pid_file(self.writer)) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None


class Soak:
    def __init__(self, args):
        self.args = args
        self.paths = Paths(args.work)
        self.rng = random.Random(f"{args.seed}/orchestrator")
        self.workers = [Worker(s, k) for s, k in SLOTS.items()
                        if s in args.workers and (k != "pg" or not args.no_postgres)]
        self.kills = {}
        self.checker_runs = 0
        self.facts_checked = 0
        self.violations = []
        self.seen_worker_violations = {}
        self.max_fds = {}
        self.last_files = 0
        self.next_checker_host = 0

    # ---- setup ------------------------------------------------------------------------------
    def setup(self):
        self.paths.make()
        os.makedirs(os.path.join(self.paths.work, "stderr"), exist_ok=True)
        shell = os.path.join(self.args.build, "cassette")
        subprocess.run([shell, self.paths.store, "-e", ";\n".join(SCHEMA_CQL)], check=True)
        sqlite_setup = "".join(
            f"CREATE VIRTUAL TABLE {t} USING cql(table = 'soak.{t}');\n"
            for t in ("markers", "rows", "counters"))
        subprocess.run(["sqlite3", "-bail", "-cmd",
                        f".load {os.path.join(self.args.build, 'cassette')}", self.paths.db],
                       input=sqlite_setup, text=True, check=True)
        if not self.args.no_postgres:
            self.setup_postgres()

    def setup_postgres(self):
        """cassette_fdw from the build directory (not an installed copy: the functions name
        the build's cassette_fdw.so), a server on the soak's store, its tables imported."""
        module = os.path.join(self.args.build, "cassette_fdw.so")
        script = ""
        # The install script, then each upgrade script in order, as CREATE EXTENSION runs them.
        for name in ("cassette_fdw--1.0.sql", "cassette_fdw--1.0--1.1.sql"):
            with open(os.path.join(HERE, "..", "..", "sql", name)) as f:
                script += "".join(line for line in f if not line.startswith("\\echo"))
        script = script.replace("MODULE_PATHNAME", module)
        script += (f"CREATE SERVER soak FOREIGN DATA WRAPPER cassette_fdw "
                   f"OPTIONS (store '{self.paths.store}');\n"
                   "IMPORT FOREIGN SCHEMA soak LIMIT TO (markers, rows, counters) "
                   "FROM SERVER soak INTO public;\n")
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", "postgres"],
                       input=script, text=True, check=True)

    # ---- the run ----------------------------------------------------------------------------
    def run(self):
        started = time.monotonic()
        deadline = started + self.args.seconds
        for w in self.workers:
            w.start(self.args, self.paths)
        while True:
            pause = self.rng.uniform(0.3, 2.0)
            victim_index = self.rng.randrange(1 << 30)
            how_index = self.rng.randrange(1 << 30)
            if time.monotonic() + pause >= deadline:
                break
            time.sleep(pause)
            self.restart_exited_workers()
            self.kill_one(how_index, victim_index)
            self.check(final=False)
        self.stop_workers()
        for host in self.args.checkers:
            self.check(final=True, host=host)
        return time.monotonic() - started

    def kill_one(self, how_index, victim_index):
        kinds = {w.kind for w in self.workers}
        menu = [(how, applies, weight) for how, applies, weight in KILLS
                if any(k in kinds for k in applies)]
        total = sum(weight for _, _, weight in menu)
        pick = how_index % total
        for how, applies, weight in menu:
            if pick < weight:
                break
            pick -= weight
        candidates = [w for w in self.workers if w.kind in applies]
        victim = candidates[victim_index % len(candidates)]
        pid = victim.child_pid(self.paths)
        if pid is None:
            return
        if how == "pg_terminate_backend":
            done = subprocess.run(["psql", "-X", "-At", "-d", "postgres", "-c",
                                   f"SELECT pg_terminate_backend({pid})"],
                                  capture_output=True, text=True).stdout.strip() == "t"
        else:
            try:
                os.kill(pid, signal.SIGKILL)
                done = True
            except ProcessLookupError:
                done = False
        if not done:
            return
        self.kills[how] = self.kills.get(how, 0) + 1
        if victim.kind in IN_PROCESS_KINDS:
            victim.proc.wait()
            victim.start(self.args, self.paths)
        else:
            wait_gone(pid)

    def restart_exited_workers(self):
        """A worker that exited without being killed died of its own: a finding."""
        for w in self.workers:
            if w.proc.poll() is not None:
                with open(os.path.join(self.paths.work, "stderr", w.writer)) as f:
                    tail = f.read()[-2000:]
                self.violations.append({"invariant": "a worker runs until it is killed",
                                        "writer": w.writer, "exit": w.proc.returncode,
                                        "stderr": tail})
                w.start(self.args, self.paths)

    def stop_workers(self):
        for w in self.workers:
            w.proc.send_signal(signal.SIGTERM)
        for w in self.workers:
            try:
                w.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait()

    # ---- checks -----------------------------------------------------------------------------
    def check(self, final, host=None):
        if host is None:
            host = self.args.checkers[self.next_checker_host % len(self.args.checkers)]
            self.next_checker_host += 1
        live = "" if final else ",".join(w.writer for w in self.workers)
        proc = subprocess.run(
            [PYTHON, os.path.join(HERE, "soak_check.py"), self.paths.work, self.args.build, host,
             live, str(self.args.max_files)] + (["--final"] if final else []),
            capture_output=True, text=True)
        self.checker_runs += 1
        try:
            result = json.loads(proc.stdout)
        except ValueError:
            result = {"checks": 0, "violations": [{"invariant": "the checker runs",
                                                   "stderr": proc.stderr[-2000:]}]}
        self.facts_checked += result["checks"]
        self.last_files = result.get("files", self.last_files)
        for v in result["violations"]:
            self.violations.append({**v, "found_by": f"checker ({host})"})
        self.check_descriptors()
        self.collect_worker_violations()

    def long_lived_pids(self):
        pids = {}
        for w in self.workers:
            if w.proc.poll() is None:
                pids[w.writer] = w.proc.pid
                if w.kind in ("sqlite3", "pg"):
                    child = w.child_pid(self.paths)
                    if child:
                        pids[w.writer + (" backend" if w.kind == "pg" else " sqlite3")] = child
        return pids

    def check_descriptors(self):
        for name, pid in self.long_lived_pids().items():
            try:
                fds = len(os.listdir(f"/proc/{pid}/fd"))
            except OSError:
                continue
            self.max_fds[name.split("-")[0]] = max(self.max_fds.get(name.split("-")[0], 0), fds)
            self.facts_checked += 1
            if fds > self.args.max_fds:
                self.violations.append({"invariant": "a long-lived process's open descriptors "
                                        "are bounded", "process": name, "pid": pid,
                                        "fds": fds, "limit": self.args.max_fds})

    def collect_worker_violations(self):
        for name in sorted(os.listdir(self.paths.violations)):
            with open(os.path.join(self.paths.violations, name)) as f:
                lines = f.read().split("\n")[:-1]
            seen = self.seen_worker_violations.get(name, 0)
            for line in lines[seen:]:
                self.violations.append({**json.loads(line), "found_by": "a reader"})
            self.seen_worker_violations[name] = len(lines)

    # ---- the summary ------------------------------------------------------------------------
    def summary(self, elapsed):
        logs = read_logs(self.paths)
        stats = {}
        for name in os.listdir(self.paths.stats):
            with open(os.path.join(self.paths.stats, name)) as f:
                try:
                    for key, value in json.load(f).items():
                        stats[key] = stats.get(key, 0) + value
                except ValueError:
                    pass
        acked = sum(len(s.acked) for s in logs.values())
        counters = sum(sum(s.counter_acked.values()) for s in logs.values())
        rolled_back = sum(len(s.forbidden) for s in logs.values())
        side = sum(1 for s in logs.values() for kind, _, _ in s.side_ops if kind == "s")
        print(f"soak: seed {self.args.seed}, {elapsed / 60:.1f} minutes (with the final "
              f"checks), "
              f"{sum(self.kills.values())} kills "
              f"({', '.join(f'{n} {how}' for how, n in sorted(self.kills.items()))})")
        print(f"soak: {acked} transactions acknowledged ({rolled_back} more rolled back or "
              f"failing on purpose), {counters} counter increments, {side} schema changes, "
              f"{stats.get('flushes', 0)} flushes, {stats.get('compactions', 0)} compactions")
        print(f"soak: {self.checker_runs} checker runs ({self.facts_checked} facts checked), "
              f"{stats.get('reads', 0)} reader checks ({stats.get('rows_read', 0)} rows), "
              f"{stats.get('expected_errors', 0)} operations failed as a kill explains")
        print(f"soak: store files at the last check {self.last_files} (limit "
              f"{self.args.max_files}); most descriptors open: "
              + ", ".join(f"{k} {v}" for k, v in sorted(self.max_fds.items()))
              + f" (limit {self.args.max_fds})")
        # The same fact found by several checker runs or readers counts once.
        distinct = {}
        for v in self.violations:
            key = json.dumps({k: x for k, x in v.items() if k != "found_by"}, sort_keys=True)
            distinct.setdefault(key, v)
        by_invariant = {}
        for v in distinct.values():
            by_invariant.setdefault(v["invariant"], []).append(v)
        print(f"soak: {len(distinct)} violations")
        for invariant, found in by_invariant.items():
            print(f"VIOLATION ({len(found)}x): {invariant}")
            for v in found[:3]:
                print("  " + json.dumps(v, sort_keys=True)[:1500])
        if self.violations:
            subsets = "".join(f" SOAK_{name.upper()}={','.join(chosen)}" for name, chosen, every in (
                ("workers", self.args.workers, list(SLOTS)),
                ("checkers", self.args.checkers, ["sqlite", "cassette"])) if chosen != every)
            print(f"reproduce: make soak SOAK_SEED={self.args.seed} SOAK_SECONDS="
                  f"{self.args.seconds:g}{subsets} (work directory kept: {self.paths.work})")
        return not self.violations


def wait_gone(pid, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    return  # a zombie holds nothing any more
        except OSError:
            return
        time.sleep(0.05)


def main():
    reexec_with_extension_loading()
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-files", type=int, default=400)
    parser.add_argument("--max-fds", type=int, default=256)
    parser.add_argument("--no-postgres", action="store_true")
    # Fewer workers or checker hosts, e.g. SQLite hosts alone: the cassette shell's background
    # compaction (in a worker or a checker) then no longer keeps the store's files down.
    parser.add_argument("--workers", default=",".join(SLOTS),
                        help="the worker slots to run (default: all)")
    parser.add_argument("--checkers", default="sqlite,cassette",
                        help="the hosts the checker reads through, in turn")
    args = parser.parse_args()
    args.workers = [w for w in args.workers.split(",") if w]
    args.checkers = [c for c in args.checkers.split(",") if c]
    unknown = [w for w in args.workers if w not in SLOTS] + [
        c for c in args.checkers if c not in ("sqlite", "cassette")]
    if unknown or not args.workers or not args.checkers:
        parser.error(f"unknown or missing workers or checkers: {unknown}")
    args.build = os.path.abspath(args.build)
    soak = Soak(args)
    soak.setup()
    ok = soak.summary(soak.run())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
