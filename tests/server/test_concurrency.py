#!/usr/bin/python3
"""The requests of one connection run concurrently, v4 frames and the envelopes of v5 segments
alike: each is answered on its stream id as it completes, a write that waits does not hold back
the requests behind it, and a USE still applies to exactly the requests sent after it. A write
is answered only once it is durable: a server killed right after answering loses none of them.

Usage: tests/server/test_concurrency.py BUILD_DIR
"""
import fcntl
import os
import socket
import struct
import sys
import tempfile

from server_process import Server, run_tests
from test_protocol_v5 import read_answers, segment, v5_query, v5_started
from test_protocol import (ERROR, KEYSPACE, QUERY, RESULT, frame, query_body, read_error,
                           read_frame, rows_count, started)

SKIP_METADATA = 0x02  # rows_count reads Rows without metadata


def run(sock, text, flags=0, stream=0):
    sock.sendall(frame(QUERY, query_body(text, flags), stream=stream))
    _, _, got_stream, opcode, body = read_frame(sock)
    assert (got_stream, opcode) == (stream, RESULT), (got_stream, opcode, body)
    return body


class V4Frames:
    """Requests as v4 frames, one after the other on the socket; answers as frames."""
    start = staticmethod(started)

    @staticmethod
    def send(sock, queries):
        sock.sendall(b"".join(frame(QUERY, query_body(text, SKIP_METADATA), stream)
                              for stream, text in queries))

    @staticmethod
    def read(sock, count):
        return [read_frame(sock)[2:] for _ in range(count)]


class V5Segments:
    """Requests as the envelopes of one v5 segment; answers from the segments they come in."""
    start = staticmethod(v5_started)

    @staticmethod
    def send(sock, queries):
        sock.sendall(segment(b"".join(v5_query(text, stream, SKIP_METADATA)
                                      for stream, text in queries)))

    @staticmethod
    def read(sock, count):
        return [answer[2:] for answer in read_answers(sock, count)]


def a_write_waiting_for_the_store_lock_does_not_hold_back_the_reads_behind_it(build_dir, framing):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        with Server(build_dir, store) as server:
            sock = framing.start(server)

            def run_one(text):
                framing.send(sock, [(1, text)])
                [(stream, opcode, body)] = framing.read(sock, 1)
                assert (stream, opcode) == (1, RESULT), (stream, opcode, body)
                return body

            for text in (KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY)",
                         "INSERT INTO ks.t (k) VALUES (1)"):
                run_one(text)
            # This process holds the store's write lock (as a writing shell or sqlite3 would):
            # the INSERT on stream 1 waits for it, the two reads sent after it do not.
            with open(os.path.join(store, "LOCK"), "rb") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                framing.send(sock, [(1, "INSERT INTO ks.t (k) VALUES (2)"),
                                    (2, "SELECT k FROM ks.t WHERE k = 1"),
                                    (3, "SELECT k FROM ks.t WHERE k = 2")])
                first = framing.read(sock, 2)
                assert sorted(a[:2] for a in first) == [(2, RESULT), (3, RESULT)], first
                counts = {a[0]: rows_count(a[2]) for a in first}
                assert counts == {2: 1, 3: 0}, counts  # the INSERT had not happened yet
                fcntl.flock(lock, fcntl.LOCK_UN)
            assert [a[:2] for a in framing.read(sock, 1)] == [(1, RESULT)]
            assert rows_count(run_one("SELECT k FROM ks.t WHERE k = 2")) == 1


def test_a_write_waiting_for_the_store_lock_does_not_hold_back_the_reads_behind_it(build_dir):
    a_write_waiting_for_the_store_lock_does_not_hold_back_the_reads_behind_it(build_dir,
                                                                              V4Frames)


def test_v5_a_write_waiting_for_the_store_lock_does_not_hold_back_the_reads_behind_it(
        build_dir):
    # The INSERT and the two reads after it are envelopes of one segment.
    a_write_waiting_for_the_store_lock_does_not_hold_back_the_reads_behind_it(build_dir,
                                                                              V5Segments)


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


def run_v5(sock, text, stream=1):
    sock.sendall(segment(v5_query(text, stream)))
    [(_, _, got_stream, opcode, body)] = read_answers(sock, 1)
    assert (got_stream, opcode) == (stream, RESULT), (got_stream, opcode, body)
    return body


def test_v5_many_requests_in_flight_after_uses_land_in_their_keyspaces(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = v5_started(server)
        for ks in ("a", "b"):
            run_v5(sock, KEYSPACE.replace("ks", ks, 1))
            run_v5(sock, f"CREATE TABLE {ks}.t (k int PRIMARY KEY, v text)")
        # One segment: a USE, 150 unqualified INSERTs, another USE, 150 more: more than the 128
        # requests a connection runs at once.
        texts = ["USE a"] + [f"INSERT INTO t (k, v) VALUES ({k}, 'a')" for k in range(150)]
        texts += ["USE b"] + [f"INSERT INTO t (k, v) VALUES ({k}, 'b')" for k in range(150)]
        sock.sendall(segment(b"".join(v5_query(t, n + 1) for n, t in enumerate(texts))))
        answers = read_answers(sock, len(texts))
        assert sorted(a[2] for a in answers) == list(range(1, len(texts) + 1))
        assert all(a[3] == RESULT for a in answers), [a for a in answers if a[3] != RESULT]
        for ks in ("a", "b"):
            body = run_v5(sock, f"SELECT count(*) FROM {ks}.t WHERE v = '{ks}' ALLOW FILTERING")
            assert body.endswith(struct.pack(">iq", 8, 150)), (ks, body)
            body = run_v5(sock, f"SELECT count(*) FROM {ks}.t")
            assert body.endswith(struct.pack(">iq", 8, 150)), (ks, body)


def test_no_answered_write_is_lost_when_the_server_is_killed(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        server = Server(build_dir, store)
        server.__enter__()
        try:
            v4 = started(server)
            run(v4, KEYSPACE)
            run(v4, "CREATE TABLE ks.t (k int PRIMARY KEY)")
            v5 = v5_started(server)
            # 400 INSERTs on each connection, all in flight; SIGKILL once 200 of the v4 ones
            # are answered. Every key answered on either connection must be in the store.
            v4.sendall(b"".join(frame(QUERY, query_body(f"INSERT INTO ks.t (k) VALUES ({k})"),
                                      stream=k + 1) for k in range(400)))
            v5.sendall(segment(b"".join(v5_query(f"INSERT INTO ks.t (k) VALUES ({1000 + k})",
                                                 k + 1) for k in range(400))))
            answered = set()
            for _ in range(200):
                _, _, stream, opcode, body = read_frame(v4)
                assert opcode == RESULT, body
                answered.add(stream - 1)
            server.process.kill()
            server.process.wait()
            for sock, base, read_one in ((v4, 0, lambda: [read_frame(v4)]),
                                         (v5, 1000, lambda: read_answers(v5, 1))):
                sock.settimeout(10)
                try:
                    while True:  # what reached the socket before the kill
                        for _, _, stream, opcode, body in read_one():
                            assert opcode == RESULT, body
                            answered.add(base + stream - 1)
                except (ConnectionError, socket.timeout, AssertionError):
                    pass
        finally:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()
        assert len(answered) >= 200
        with Server(build_dir, store) as restarted:
            sock = started(restarted)
            sock.sendall(frame(QUERY, query_body("SELECT k FROM ks.t"), stream=1))
            _, _, _, opcode, body = read_frame(sock)
            assert opcode == RESULT, body
            kind, flags, columns = struct.unpack(">iii", body[:12])
            pos = 12
            for _ in range(3):  # keyspace, table, column name (global table spec)
                pos += 2 + struct.unpack(">H", body[pos:pos + 2])[0]
            pos += 2  # the type id
            count = struct.unpack(">i", body[pos:pos + 4])[0]
            present = {struct.unpack(">i", body[pos + 8 + 8 * i:pos + 12 + 8 * i])[0]
                       for i in range(count)}
            lost = answered - present
            assert not lost, sorted(lost)


if __name__ == "__main__":
    sys.exit(run_tests("server-concurrency", globals()))
