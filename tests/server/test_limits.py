#!/usr/bin/python3
"""Limits that protect the server: thousands of connections opened and closed, a client that
sends requests without reading their responses (--max-in-flight bounds what the server holds
for it), and --idle-timeout. Garbage bytes, vanishing clients and a 2 GiB header are in
test_protocol.py.

Usage: tests/server/test_limits.py BUILD_DIR
"""
import os
import subprocess
import tempfile
import time

from server_process import Server, run_tests
from test_driver_connection import KEYSPACE
from test_protocol import (QUERY, RESULT, STARTUP, READY, connect, frame, is_closed, query_body,
                           read_frame, started, string_map)


def run(sock, text, stream=1):
    sock.sendall(frame(QUERY, query_body(text), stream=stream))
    _, _, got, opcode, body = read_frame(sock)
    assert (got, opcode) == (stream, RESULT), (got, opcode, body)
    return body


def test_two_thousand_connections_opened_and_closed(build_dir):
    with Server(build_dir, ":memory:") as server:
        for i in range(2000):
            sock = connect(server)
            if i % 2 == 0:  # half say hello first, half close straight away
                sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"})))
                assert read_frame(sock)[3] == READY
            sock.close()
        sock = started(server)
        body = run(sock, "SELECT key FROM system.local")
        assert body.endswith(b"\x00\x00\x00\x05local"), body
        sock.close()


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# A sanitizer build's server keeps freed memory in ASan's quarantine (256 MiB by default), which
# the resident-memory measures below would count as held responses: the servers these tests
# start run without it (the option is read only by ASan builds).
os.environ["ASAN_OPTIONS"] = ":".join(
    filter(None, [os.environ.get("ASAN_OPTIONS", ""), "quarantine_size_mb=0"]))

BLOB_BYTES = 512 * 1024
REQUESTS = 200  # 100 MiB of responses if the server read them all


def peak_growth_with_unread_responses(build_dir, *options):
    """Sends REQUESTS queries of a 512 KiB row without reading an answer; returns how much the
    server's resident memory grew at most while it had them (watched for 5 s)."""
    with Server(build_dir, ":memory:", *options) as server:
        sock = started(server)
        run(sock, KEYSPACE)
        run(sock, "CREATE TABLE ks.big (k int PRIMARY KEY, b blob)")
        run(sock, f"INSERT INTO ks.big (k, b) VALUES (1, 0x{'ab' * BLOB_BYTES})")
        run(sock, "SELECT b FROM ks.big WHERE k = 1")  # warm: one response's worth allocated
        baseline = rss_bytes(server.process.pid)
        request = frame(QUERY, query_body("SELECT b FROM ks.big WHERE k = 1"), stream=2)
        sock.sendall(request * REQUESTS)  # small: it fits in the socket buffers at once
        peak = baseline
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            peak = max(peak, rss_bytes(server.process.pid))
            time.sleep(0.05)
        # The server answers every request once the client reads.
        sock.settimeout(60)
        for _ in range(REQUESTS):
            assert read_frame(sock)[2:4] == (2, RESULT)
        sock.close()
        return peak - baseline


def test_a_client_that_does_not_read_holds_at_most_max_in_flight_responses(build_dir):
    bounded = peak_growth_with_unread_responses(build_dir, "--max-in-flight", "4")
    # 4 responses of 512 KiB, their buffers, and what TCP's buffers hold
    assert bounded < 40 * 1024 * 1024, f"grew by {bounded} bytes with --max-in-flight 4"
    # The measure can see the difference: without the limits, the server reads every request
    # and holds most of the 100 MiB of responses.
    unbounded = peak_growth_with_unread_responses(build_dir, "--max-in-flight", "65536",
                                                  "--max-frame-size", str(256 << 20))
    assert unbounded > 60 * 1024 * 1024, f"grew by only {unbounded} bytes without a limit"


def test_by_default_unwritten_responses_stop_at_the_frame_size(build_dir):
    # 128 responses (the default --max-in-flight) would be 64 MiB: the default 16 MiB of
    # unwritten responses stops reading first.
    grown = peak_growth_with_unread_responses(build_dir)
    assert grown < 40 * 1024 * 1024, f"grew by {grown} bytes with the default limits"


def test_idle_timeout_closes_a_silent_connection_and_serves_others(build_dir):
    with Server(build_dir, ":memory:", "--idle-timeout", "1") as server:
        silent = connect(server)
        assert is_closed(silent)  # within is_closed's 10 s
        silent.close()
        half = connect(server)
        half.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"}))[:5])  # mid-header
        assert is_closed(half)
        half.close()
        sock = started(server)
        run(sock, "SELECT key FROM system.local")
        sock.close()


def test_limits_options_are_checked(build_dir):
    for option, value, message in (
            ("--max-in-flight", "0", "--max-in-flight needs a number from 1 to 65536, not '0'"),
            ("--idle-timeout", "-1", "--idle-timeout needs a number from 0 to 604800, not '-1'"),
            ("--sync", "sometimes", "--sync must be full, normal or off, not 'sometimes'")):
        result = subprocess.run([os.path.join(build_dir, "cassette"), "serve", ":memory:", option,
                                 value], capture_output=True, text=True, timeout=30)
        assert result.returncode == 2, result
        assert f"cassette serve: {message}" in result.stderr, result.stderr


def test_every_sync_mode_serves_writes_that_outlive_the_server(build_dir):
    for mode in ("full", "NORMAL", "off"):
        with tempfile.TemporaryDirectory() as work:
            store = os.path.join(work, "store")
            with Server(build_dir, store, "--sync", mode) as server:
                sock = started(server)
                run(sock, "CREATE KEYSPACE ks WITH replication = "
                          "{'class': 'SimpleStrategy', 'replication_factor': 1}")
                run(sock, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
                for k in range(20):
                    run(sock, f"INSERT INTO ks.t (k, v) VALUES ({k}, 'v{k}')")
                sock.close()
            # Stopped (SIGTERM closes the store), then read back by the shell.
            result = subprocess.run([os.path.join(build_dir, "cassette"), store, "--format", "csv",
                                     "-e", "SELECT count(*) FROM ks.t"],
                                    capture_output=True, text=True, timeout=30)
            assert (result.returncode, result.stdout) == (0, "count\n20\n"), (mode, result)


if __name__ == "__main__":
    raise SystemExit(run_tests("server-limits", globals()))
