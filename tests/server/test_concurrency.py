#!/usr/bin/python3
"""The requests of one connection run concurrently: each is answered on its stream id as it
completes, a write that waits does not hold back the requests behind it, and a USE still
applies to exactly the requests sent after it.

Usage: tests/server/test_concurrency.py BUILD_DIR
"""
import fcntl
import os
import struct
import sys
import tempfile

from server_process import Server, run_tests
from test_protocol import (ERROR, KEYSPACE, QUERY, RESULT, frame, query_body, read_error,
                           read_frame, rows_count, started)

SKIP_METADATA = 0x02  # rows_count reads Rows without metadata


def run(sock, text, flags=0, stream=0):
    sock.sendall(frame(QUERY, query_body(text, flags), stream=stream))
    _, _, got_stream, opcode, body = read_frame(sock)
    assert (got_stream, opcode) == (stream, RESULT), (got_stream, opcode, body)
    return body


def test_a_write_waiting_for_the_store_lock_does_not_hold_back_the_reads_behind_it(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        with Server(build_dir, store) as server:
            sock = started(server)
            for text in (KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY)",
                         "INSERT INTO ks.t (k) VALUES (1)"):
                run(sock, text)
            # This process holds the store's write lock (as a writing shell or sqlite3 would):
            # the INSERT on stream 1 waits for it, the two reads sent after it do not.
            with open(os.path.join(store, "LOCK"), "rb") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                sock.sendall(frame(QUERY, query_body("INSERT INTO ks.t (k) VALUES (2)"), 1) +
                             frame(QUERY, query_body("SELECT k FROM ks.t WHERE k = 1",
                                                     SKIP_METADATA), 2) +
                             frame(QUERY, query_body("SELECT k FROM ks.t WHERE k = 2",
                                                     SKIP_METADATA), 3))
                first = [read_frame(sock) for _ in range(2)]
                assert sorted((f[2], f[3]) for f in first) == [(2, RESULT), (3, RESULT)], first
                counts = {f[2]: rows_count(f[4]) for f in first}
                assert counts == {2: 1, 3: 0}, counts  # the INSERT had not happened yet
                fcntl.flock(lock, fcntl.LOCK_UN)
            assert read_frame(sock)[2:4] == (1, RESULT)
            assert rows_count(run(sock, "SELECT k FROM ks.t WHERE k = 2", SKIP_METADATA)) == 1


def test_many_requests_in_flight_on_one_connection_are_each_answered_once(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = started(server)
        for text in (KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)"):
            run(sock, text)
        # 1,000 writes and reads in one go, more than the 128 a connection runs at once: every
        # stream gets its own answer, and each read sees its own row or none, never another's.
        requests = []
        for i in range(500):
            requests.append(frame(QUERY, query_body(f"INSERT INTO ks.t (k, v) VALUES ({i}, {i})"),
                                  stream=2 * i + 1))
            requests.append(frame(QUERY, query_body(f"SELECT k, v FROM ks.t WHERE k = {i}",
                                                    SKIP_METADATA), stream=2 * i + 2))
        sock.sendall(b"".join(requests))
        answers = {}
        for _ in range(1000):
            _, _, stream, opcode, body = read_frame(sock)
            assert stream not in answers, stream
            answers[stream] = (opcode, body)
        assert sorted(answers) == list(range(1, 1001))
        for stream, (opcode, body) in answers.items():
            assert opcode == RESULT, (stream, opcode, body)
            if stream % 2 == 0:
                n = rows_count(body)
                assert n in (0, 1), (stream, n)
                if n:  # one row: [int column count is 2] k and v, both i
                    k = (stream - 2) // 2
                    assert body[16:] == struct.pack(">iiii", 4, k, 4, k), (stream, body)
        count = run(sock, "SELECT count(*) FROM ks.t")
        assert count.endswith(struct.pack(">iq", 8, 500)), count


def test_use_applies_to_the_requests_sent_after_it_and_to_no_other(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = started(server)
        for ks in ("a", "b"):
            run(sock, KEYSPACE.replace("ks", ks, 1))
            run(sock, f"CREATE TABLE {ks}.t (k int PRIMARY KEY, v text)")
        # One write: unqualified INSERTs between USEs, each lands in the keyspace before it.
        texts = []
        for i in range(40):
            texts.append(f"USE {'ab'[i % 2]}")
            texts += [f"INSERT INTO t (k, v) VALUES ({i * 10 + j}, '{'ab'[i % 2]}')"
                      for j in range(10)]
        sock.sendall(b"".join(frame(QUERY, query_body(t), stream=n + 1)
                              for n, t in enumerate(texts)))
        answers = {}
        for _ in texts:
            _, _, stream, opcode, body = read_frame(sock)
            answers[stream] = (opcode, body)
        assert sorted(answers) == list(range(1, len(texts) + 1))
        assert all(opcode == RESULT for opcode, _ in answers.values()), answers
        for ks, parity in (("a", 0), ("b", 1)):
            body = run(sock, f"SELECT count(*) FROM {ks}.t WHERE v = '{ks}' ALLOW FILTERING")
            assert body.endswith(struct.pack(">iq", 8, 200)), (ks, body)
            body = run(sock, f"SELECT count(*) FROM {ks}.t")
            assert body.endswith(struct.pack(">iq", 8, 200)), (ks, body)
        # And the connection's keyspace is the last USE's.
        sock.sendall(frame(QUERY, query_body("SELECT v FROM t WHERE k = 391"), stream=5))
        _, _, _, opcode, body = read_frame(sock)
        assert opcode == RESULT and body.endswith(b"\x00\x00\x00\x01b"), body
        run(sock, "USE a")
        sock.sendall(frame(QUERY, query_body("SELECT v FROM nothing"), stream=6))
        _, _, _, opcode, body = read_frame(sock)
        assert opcode == ERROR and read_error(body) == (0x2200, "table nothing does not exist"), \
            read_error(body)


if __name__ == "__main__":
    sys.exit(run_tests("server-concurrency", globals()))
