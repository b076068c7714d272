"""Starts `cassette serve` for a test on a free port and stops it with SIGTERM.

    with Server(build_dir, store) as server:
        sock = socket.create_connection(("127.0.0.1", server.port))
    # leaving the block sends SIGTERM and checks the server exits 0

Also a tiny test runner: each test_* function of a module is one case; the last line printed is
"NAME: N passed, M failed".
"""
import os
import signal
import subprocess
import sys
import traceback


class Server:
    def __init__(self, build_dir, store, *options):
        self.command = [os.path.join(build_dir, "cassette"), "serve", store,
                        "--listen", "127.0.0.1:0", *options]
        self.process = None
        self.port = None
        self.exit_status = None

    def __enter__(self):
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on 127.0.0.1:"):
            self.process.kill()
            raise AssertionError(f"no 'listening on' line: {line!r} {self.process.stderr.read()!r}")
        self.port = int(line.rsplit(":", 1)[1])
        return self

    def stop(self):
        """SIGTERM, then the exit status (None while it has not exited within 20 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.exit_status = self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.exit_status

    def __exit__(self, kind, value, tb):
        status = self.stop()
        if kind is None:
            assert status == 0, f"cassette serve exited with {status}: {self.process.stderr.read()}"


def run_tests(name, namespace):
    build_dir = sys.argv[1] if len(sys.argv) > 1 else "build"
    passed = failed = 0
    for test_name, test in sorted(namespace.items()):
        if not test_name.startswith("test_") or not callable(test):
            continue
        try:
            test(build_dir)
            print(f"ok   {test_name}")
            passed += 1
        except Exception:  # a failed assertion or an unexpected error: the case failed
            print(f"FAIL {test_name}")
            traceback.print_exc()
            failed += 1
    print(f"{name}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
