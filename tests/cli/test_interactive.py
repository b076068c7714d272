#!/usr/bin/env python3
"""The `cassette` shell at its interactive prompt, driven through a pseudo-terminal as a user
would drive it: Ctrl-C at the prompt and in an unfinished statement (the shell stays, the line
goes), Ctrl-C during a running SELECT and during COPY FROM (the statement stops, COPY reports
what it wrote and the table holds exactly that), during COPY TO (no file), SOURCE (it stops
between statements, and the table holds exactly the statements before), a long BATCH and a slow
DELETE (nothing applied), HELP/EXIT/QUIT without ';', and the history file, which must survive
all of it.

    tests/cli/test_interactive.py CASSETTE_BINARY WORK_DIR

Prints "interactive: N passed, M failed" last; exits 1 when a check failed.
"""
import os
import pty
import re
import select
import sys
import time

passed = 0
failed = 0


def check(name, ok, details=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAILED: {name}")
        if details:
            print("  " + details.replace("\n", "\n  "))


class Shell:
    """One `cassette STORE` process on a pseudo-terminal."""

    def __init__(self, binary, store, home):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["HOME"] = home
            os.environ["TERM"] = "dumb"
            os.execv(binary, [binary, store])
        self.seen = ""  # everything read so far, "\r" removed
        self.mark = 0   # where the last read_until() match ended

    def read_until(self, pattern, timeout=120):
        """Reads until `pattern` (a regex) matches output after the previous match; returns
        the text from there to the end of the match, or None on timeout or end of output."""
        regex = re.compile(pattern)
        deadline = time.time() + timeout
        while True:
            match = regex.search(self.seen, self.mark)
            if match:
                text = self.seen[self.mark:match.end()]
                self.mark = match.end()
                return text
            remaining = deadline - time.time()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return None
            if not data:
                return None
            self.seen += data.decode("utf-8", "replace").replace("\r", "")

    def send(self, text):
        os.write(self.fd, text.encode())

    def interrupt(self):
        os.write(self.fd, b"\x03")  # the terminal turns it into SIGINT for the shell

    def wait(self, timeout=60):
        """The exit status, or None if the process is still running after `timeout`."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.read_until(r"\Z(?!x)", timeout=0.2)  # drain output so the shell never blocks
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
        return None


PROMPT = r"cassette:ks> "


def interrupt_running(shell, line, stopped, ran_to_the_end, first_delay):
    """Sends `line` (a statement or shell command), then Ctrl-C, sooner after it starts on each
    attempt, until the shell's answer matches `stopped` (a regex); returns that answer, or None.
    An attempt that ran to the end before the Ctrl-C landed is checked and undone by
    `ran_to_the_end(answer)`."""
    for attempt in range(8):
        shell.send(line + "\n")
        shell.read_until(re.escape(line[-12:]) + r"\n")  # the shell's echo: it has the line
        time.sleep(first_delay / (2 ** attempt))
        shell.interrupt()
        text = shell.read_until(PROMPT)
        if text is not None and re.search(stopped, text):
            return text
        # The Ctrl-C that reached the prompt instead drops an empty line and prompts again: read
        # that prompt first, or ran_to_the_end's own statements would take it for their answer.
        shell.read_until(PROMPT, timeout=3)
        ran_to_the_end(text or "")
    return None


def count(shell, table):
    """SELECT count(*) of a table, or None."""
    shell.send(f"SELECT count(*) FROM {table};\n")
    match = re.search(r"\n +(\d+)\n", shell.read_until(PROMPT) or "")
    return int(match.group(1)) if match else None


def has_key(shell, table, k):
    shell.send(f"SELECT k FROM {table} WHERE k = {k};\n")
    return "(1 rows)" in (shell.read_until(PROMPT) or "")


def check_interrupted_source(shell, work):
    """Ctrl-C during SOURCE of a file of INSERTs (one per line, k = the line): the file stops
    between statements and says from which line on nothing ran; the one it stopped, if any, says
    so and applied nothing. The table holds exactly the rows of the lines before."""
    path = os.path.join(work, "many.cql")
    with open(path, "w") as f:
        for k in range(1, 3001):  # each a commit of its own: seconds in all
            f.write(f"INSERT INTO src (k) VALUES ({k});\n")
    shell.send("CREATE TABLE src (k int PRIMARY KEY);\n")
    shell.read_until(PROMPT)

    def ran_to_the_end(text):
        check("SOURCE not interrupted runs every statement", count(shell, "src") == 3000, text)
        shell.send("TRUNCATE src;\n")
        shell.read_until(PROMPT)

    text = interrupt_running(shell, f"SOURCE '{path}';", r"Interrupted: the statements from",
                             ran_to_the_end, 1.0)
    check("Ctrl-C stops SOURCE between statements", text is not None, shell.seen[-500:])
    file = re.escape(path)
    not_run = re.search(file + r":(\d+):Interrupted: the statements from here on did not run",
                        text or "")
    stopped = re.search(file + r":(\d+):The statement was interrupted", text or "")
    applied = int(stopped.group(1)) - 1 if stopped else int(not_run.group(1)) - 1 if not_run else -1
    check("SOURCE names the first line that did not run",
          not_run is not None and (stopped is None or
                                   int(not_run.group(1)) == int(stopped.group(1)) + 1),
          text or "")
    # On a slow build (the sanitizers) the Ctrl-C can land in the first statement: then nothing.
    check("the table holds exactly the rows of the lines before it",
          applied >= 0 and count(shell, "src") == applied and
          (applied == 0 or has_key(shell, "src", applied)) and
          not has_key(shell, "src", applied + 1), f"applied {applied}\n{text}")


def check_interrupted_batch(shell, work):
    """Ctrl-C during a long BATCH (in a file, so that it is one statement that takes a while to
    parse and prepare): it applies nothing, or, if it finished first, everything."""
    rows = 30000
    path = os.path.join(work, "batch.cql")
    with open(path, "w") as f:
        f.write("BEGIN BATCH\n")
        for k in range(rows):
            f.write(f"INSERT INTO bt (k, v) VALUES ({k}, {k});\n")
        f.write("APPLY BATCH;\n")
    shell.send("CREATE TABLE bt (k int PRIMARY KEY, v int);\n")
    shell.read_until(PROMPT)

    def ran_to_the_end(text):
        check("a BATCH not interrupted applies whole", count(shell, "bt") == rows, text)
        shell.send("TRUNCATE bt;\n")
        shell.read_until(PROMPT)

    text = interrupt_running(shell, f"SOURCE '{path}';",
                             re.escape(path) + r":1:The statement was interrupted",
                             ran_to_the_end, 0.5)
    check("Ctrl-C stops a long BATCH", text is not None, shell.seen[-500:])
    check("an interrupted BATCH applies nothing", count(shell, "bt") == 0, text or "")


def check_interrupted_delete(shell, work):
    """Ctrl-C during a slow DELETE (30,000 partitions by IN): nothing is deleted."""
    rows = 30000
    csv_path = os.path.join(work, "del.csv")
    with open(csv_path, "w") as f:
        f.writelines(f"{k},{k}\n" for k in range(rows))
    path = os.path.join(work, "delete.cql")
    with open(path, "w") as f:
        f.write("DELETE FROM del WHERE k IN (" + ", ".join(map(str, range(rows))) + ");\n")
    shell.send("CREATE TABLE del (k int PRIMARY KEY, v int);\n")
    shell.read_until(PROMPT)

    def fill():
        shell.send(f"COPY del (k, v) FROM '{csv_path}';\n")
        shell.read_until(PROMPT, timeout=300)

    def ran_to_the_end(text):
        check("a DELETE not interrupted deletes everything", count(shell, "del") == 0, text)
        fill()

    fill()
    text = interrupt_running(shell, f"SOURCE '{path}';",
                             re.escape(path) + r":1:The statement was interrupted",
                             ran_to_the_end, 1.0)
    check("Ctrl-C stops a slow DELETE", text is not None, shell.seen[-500:])
    check("an interrupted DELETE deletes nothing", count(shell, "del") == rows, text or "")


def check_interrupted_copy_to(shell, work, rows):
    """Ctrl-C during COPY TO of the big table: no file, or, if it finished first, all of it."""
    path = os.path.join(work, "big-out.csv")

    def ran_to_the_end(text):
        written = -1
        if os.path.exists(path):
            with open(path) as f:
                written = sum(1 for _ in f)
            os.remove(path)
        check("COPY TO not interrupted writes every row",
              f"{rows} rows exported" in text and written == rows, text)

    text = interrupt_running(shell, f"COPY big (k, v, t) TO '{path}';",
                             r"Interrupted: nothing was written", ran_to_the_end, 0.5)
    check("Ctrl-C stops COPY TO", text is not None, shell.seen[-500:])
    check("an interrupted COPY TO writes no file", not os.path.exists(path), text or "")


def main():
    binary, work = sys.argv[1], sys.argv[2]
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    history = os.path.join(home, ".cassette_history")
    store = os.path.join(work, "interactive.cassette")

    # A table large enough that scanning it, or importing it, takes a while.
    rows = 400000
    csv_path = os.path.join(work, "big.csv")
    with open(csv_path, "w") as f:
        for i in range(rows):
            f.write(f"{i},{i % 97},row number {i}\n")

    shell = Shell(binary, store, home)
    check("prompt", shell.read_until(r"cassette> ") is not None, shell.seen)

    # Ctrl-C while typing: the line is dropped and the shell goes on.
    shell.send("SELECT * FROM half typed")
    shell.read_until(r"half typed")  # as a user would, press Ctrl-C after the text has shown
    shell.interrupt()
    check("Ctrl-C at the prompt keeps the shell", shell.read_until(r"\ncassette> ") is not None,
          shell.seen[-300:])
    shell.send("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', "
               "'replication_factor': 1};\n")
    check("a statement after Ctrl-C", shell.read_until(r"cassette> ") is not None, shell.seen)

    # Ctrl-C at the continuation prompt drops the unfinished statement.
    shell.send("USE\n")
    check("continuation prompt", shell.read_until(r"\.\.\. ") is not None, shell.seen[-300:])
    shell.interrupt()
    check("a fresh prompt after Ctrl-C", shell.read_until(r"\ncassette> ") is not None,
          shell.seen[-300:])
    shell.send("USE ks;\n")
    text = shell.read_until(r"cassette:ks> ")
    check("Ctrl-C drops the unfinished statement", text is not None and "Error" not in text,
          shell.seen[-300:])

    # HELP, QUIT and EXIT need no ';' at the prompt.
    shell.send("HELP\n")
    text = shell.read_until(r"cassette:ks> ")
    check("HELP without ;", text is not None and "COPY [ks.]table" in text, shell.seen[-500:])

    # Ctrl-C during COPY FROM: the import stops, says how many rows it imported, and the table
    # holds exactly those.
    shell.send("CREATE TABLE big (k int PRIMARY KEY, v int, t text);\n")
    shell.read_until(r"cassette:ks> ")
    shell.send(f"COPY big (k, v, t) FROM '{csv_path}';\n")
    started = shell.read_until(r"Processed: \d+ rows")
    check("COPY FROM shows progress", started is not None, shell.seen[-500:])
    shell.interrupt()
    text = shell.read_until(r"cassette:ks> ")
    imported = re.search(r"(\d+) rows imported from 1 files", text or "")
    check("COPY FROM stops at Ctrl-C",
          imported is not None and "Interrupted at line" in text and int(imported.group(1)) < rows,
          text or shell.seen[-500:])
    shell.send("SELECT count(*) FROM big;\n")
    text = shell.read_until(r"cassette:ks> ")
    counted = re.search(r"\n +(\d+)\n", text or "")
    check("the table holds what COPY reported",
          imported is not None and counted is not None and counted.group(1) == imported.group(1),
          text or "")

    # Ctrl-C during a SELECT: the statement stops, the shell goes on.
    shell.send(f"COPY big (k, v, t) FROM '{csv_path}';\n")  # all of it this time
    text = shell.read_until(r"cassette:ks> ", timeout=900)
    check("COPY FROM the whole file", text is not None and f"{rows} rows imported" in text,
          text or shell.seen[-500:])
    # The scan of 400,000 rows takes a fraction of a second: Ctrl-C is sent sooner after the
    # statement starts on each attempt, until one lands while it runs. A SELECT that finished
    # first leaves the Ctrl-C to the prompt, which drops an empty line and prompts again.
    interrupted = None
    for attempt in range(6):
        shell.send("SELECT count(*) FROM big WHERE t = 'none' ALLOW FILTERING;\n")
        shell.read_until(r"ALLOW FILTERING;\n")  # the shell's echo: it has the statement
        time.sleep(0.2 / (2 ** attempt))
        shell.interrupt()
        text = shell.read_until(r"cassette:ks> ")
        if text is not None and "The statement was interrupted" in text:
            interrupted = text
            break
        shell.read_until(r"cassette:ks> ", timeout=3)
    check("Ctrl-C stops a running SELECT", interrupted is not None, shell.seen[-500:])
    check_interrupted_copy_to(shell, work, rows)
    check_interrupted_source(shell, work)
    check_interrupted_batch(shell, work)
    check_interrupted_delete(shell, work)
    shell.send("SELECT v FROM big WHERE k = 7;\n")
    text = shell.read_until(r"cassette:ks> ")
    check("the shell runs statements after it",
          text is not None and re.search(r"\n +7\n", text) is not None, text or "")

    shell.send("QUIT\n")
    status = shell.wait()
    check("QUIT without ;", status is not None and os.WIFEXITED(status) and
          os.WEXITSTATUS(status) == 0, f"status {status}")

    # The history kept every statement, Ctrl-C notwithstanding (it used to kill the shell
    # before the history was written).
    try:
        with open(history, encoding="utf-8", errors="replace") as f:
            saved = f.read().replace("\\040", " ")  # libedit's file escapes spaces
    except OSError as e:
        saved = str(e)
    check("history survives", "CREATE TABLE big" in saved and "SELECT v FROM big WHERE k = 7;"
          in saved and "half typed" not in saved, saved[-500:])

    # A new session, left with EXIT (no ';').
    shell = Shell(binary, store, home)
    shell.read_until(r"cassette> ")
    shell.send("EXIT\n")
    status = shell.wait()
    check("EXIT without ;", status is not None and os.WIFEXITED(status) and
          os.WEXITSTATUS(status) == 0, f"status {status}")

    print(f"interactive: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
