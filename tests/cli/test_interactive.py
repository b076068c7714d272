#!/usr/bin/env python3
"""The `cassette` shell at its interactive prompt, driven through a pseudo-terminal as a user
would drive it: Ctrl-C at the prompt and in an unfinished statement (the shell stays, the line
goes), Ctrl-C during a running SELECT and during COPY FROM (the statement stops, COPY reports
what it wrote and the table holds exactly that), HELP/EXIT/QUIT without ';', and the history
file, which must survive all of it.

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
