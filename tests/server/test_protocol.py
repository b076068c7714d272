#!/usr/bin/python3
"""The protocol's corners, spoken in raw frames (struct) to a real `cassette serve`: versions it
does not speak, oversized and malformed frames, unknown opcodes, interleaved stream ids, frame
compression, the connection limit, and a clean stop that leaves the store written.

Usage: tests/server/test_protocol.py BUILD_DIR
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile

import lz4.block
import snappy

from server_process import Server, run_tests

ERROR, STARTUP, READY, OPTIONS, SUPPORTED, QUERY, RESULT, PREPARE = 0, 1, 2, 5, 6, 7, 8, 9
COMPRESSED = 0x01
KEYSPACE = ("CREATE KEYSPACE ks WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}")


def string(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def string_map(d):
    return struct.pack(">H", len(d)) + b"".join(string(k) + string(v) for k, v in d.items())


def frame(opcode, body=b"", stream=0, version=4, flags=0):
    return struct.pack(">BBhBI", version, flags, stream, opcode, len(body)) + body


def query_body(text, flags=0):
    b = text.encode()
    return struct.pack(">I", len(b)) + b + struct.pack(">HB", 1, flags)


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_frame(sock):
    version, flags, stream, opcode, length = struct.unpack(">BBhBI", recv_exact(sock, 9))
    return version, flags, stream, opcode, recv_exact(sock, length)


def read_error(body):
    code, n = struct.unpack(">iH", body[:6])
    return code, body[6:6 + n].decode()


def is_closed(sock):
    sock.settimeout(10)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def connect(server):
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def started(server, options=None):
    sock = connect(server)
    sock.sendall(frame(STARTUP, string_map(options or {"CQL_VERSION": "3.0.0"})))
    assert read_frame(sock)[3] == READY
    return sock


def rows_count(body):
    kind, flags, columns = struct.unpack(">iii", body[:12])
    assert kind == 2 and flags == 4, (kind, flags)  # Rows, with No_metadata (asked for below)
    return struct.unpack(">i", body[12:16])[0]


def test_versions_it_does_not_speak_are_refused_in_a_frame_the_client_reads(build_dir):
    with Server(build_dir, ":memory:") as server:
        expected = ("Invalid or unsupported protocol version ({}); "
                    "supported versions are (3/v3, 4/v4, 5/v5)")
        for version in (6, 0x42):  # newer than v5: answered in v5
            sock = connect(server)
            sock.sendall(frame(OPTIONS, version=version, stream=3))
            answer_version, _, stream, opcode, body = read_frame(sock)
            assert (answer_version, stream, opcode) == (0x85, 3, ERROR)
            assert read_error(body) == (0x000A, expected.format(version)), read_error(body)
            assert is_closed(sock)
        # Version 3 is spoken (Cassandra 5.0 still does): SUPPORTED, in version 3.
        sock = connect(server)
        sock.sendall(frame(OPTIONS, version=3))
        assert read_frame(sock)[::3] == (0x83, SUPPORTED)
        # Version 2's 8-byte header, one-byte stream id: answered in it.
        sock = connect(server)
        sock.sendall(struct.pack(">BBbBI", 2, 0, 7, OPTIONS, 0) + b"\0")
        header = recv_exact(sock, 8)
        assert struct.unpack(">BBbBI", header)[:4] == (0x82, 0, 7, ERROR)
        code, message = read_error(recv_exact(sock, struct.unpack(">I", header[4:])[0]))
        assert (code, message) == (0x000A, expected.format(2))


def test_an_oversized_frame_closes_its_connection_and_no_other(build_dir):
    with Server(build_dir, ":memory:", "--max-frame-size", "4096") as server:
        other = started(server)
        sock = started(server)
        # A header announcing 2 GiB: refused before any body is read.
        sock.sendall(struct.pack(">BBhBI", 4, 0, 1, QUERY, 2 << 30))
        _, _, stream, opcode, body = read_frame(sock)
        assert (stream, opcode) == (1, ERROR)
        assert read_error(body) == (0x000A, "Request is too big: length 2147483648 exceeds "
                                             "maximum allowed length 4096."), read_error(body)
        assert is_closed(sock)
        other.sendall(frame(QUERY, query_body("SELECT release_version FROM system.local"), 2))
        assert read_frame(other)[2] == 2  # the other connection still answers


def test_garbage_and_vanishing_clients_leave_the_server_serving(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = connect(server)
        # Garbage after a first byte of no version the server speaks (7: a v3+ header comes
        # back; a random first byte of 1 or 2 would get a v1/v2 header this reader cannot parse)
        sock.sendall(b"\x07" + os.urandom(63))
        assert read_frame(sock)[3] == ERROR
        assert is_closed(sock)
        for cut in (3, 9, 20):  # mid-header, after the header, mid-body
            sock = started(server)
            sock.sendall(frame(QUERY, query_body("SELECT * FROM ks.t"))[:cut])
            sock.close()
        sock = connect(server)
        sock.sendall(frame(OPTIONS))
        assert read_frame(sock)[3] == SUPPORTED


def test_an_unknown_opcode_is_refused_on_its_stream_and_the_connection_goes_on(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = started(server)
        sock.sendall(frame(0x04, stream=11))
        _, _, stream, opcode, body = read_frame(sock)
        assert (stream, opcode) == (11, ERROR)
        assert read_error(body) == (0x000A, "Unknown opcode 4")
        sock.sendall(frame(READY, stream=12))  # a response opcode, sent as a request
        assert read_error(read_frame(sock)[4]) == (
            0x000A, "Wrong protocol direction (expected REQUEST, got RESPONSE) for opcode 2 "
                    "(READY)")
        sock.sendall(frame(OPTIONS, stream=13))
        assert read_frame(sock)[2:4] == (13, SUPPORTED)


def test_interleaved_stream_ids_are_answered_each_on_its_own(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = started(server)
        setup = [KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY)",
                 "INSERT INTO ks.t (k) VALUES (1)", "INSERT INTO ks.t (k) VALUES (2)"]
        for i, text in enumerate(setup):
            sock.sendall(frame(QUERY, query_body(text), stream=i))
            assert read_frame(sock)[3] == RESULT
        # Three requests in one write, stream ids out of order: three answers, each with its id.
        sock.sendall(frame(QUERY, query_body("SELECT * FROM ks.t", 0x02), stream=300) +
                     frame(QUERY, query_body("SELECT * FROM ks.t WHERE k = 2", 0x02), stream=7) +
                     frame(QUERY, query_body("SELEC"), stream=32767))
        answers = {}
        for _ in range(3):
            _, _, stream, opcode, body = read_frame(sock)
            answers[stream] = (opcode, body)
        assert sorted(answers) == [7, 300, 32767]
        assert rows_count(answers[300][1]) == 2
        assert rows_count(answers[7][1]) == 1
        assert answers[32767][0] == ERROR and read_error(answers[32767][1])[0] == 0x2000


def test_lz4_and_snappy_frames_after_startup(build_dir):
    codecs = {
        "lz4": (lambda b: struct.pack(">I", len(b)) + lz4.block.compress(b, store_size=False),
                lambda b: lz4.block.decompress(b[4:], uncompressed_size=struct.unpack(">I",
                                                                                       b[:4])[0])),
        "snappy": (snappy.compress, snappy.uncompress),
    }
    with Server(build_dir, ":memory:") as server:
        for name, (compress, uncompress) in codecs.items():
            sock = connect(server)
            sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.4.6", "COMPRESSION": name})))
            _, flags, _, opcode, _ = read_frame(sock)
            assert (flags, opcode) == (0, READY)  # READY is not compressed
            sock.sendall(frame(QUERY, compress(query_body("SELECT * FROM nowhere.t")), stream=5,
                               flags=COMPRESSED))
            _, flags, stream, opcode, body = read_frame(sock)
            assert (flags, stream, opcode) == (COMPRESSED, 5, ERROR)
            assert read_error(uncompress(body)) == (0x2200, "keyspace nowhere does not exist")
            # A corrupt compressed body is a protocol error that closes the connection.
            sock.sendall(frame(QUERY, b"\x00\x00\x10\x00garbage", stream=6, flags=COMPRESSED))
            _, flags, stream, opcode, body = read_frame(sock)
            assert (stream, opcode) == (6, ERROR)
            assert read_error(uncompress(body) if flags else body)[0] == 0x000A
            assert is_closed(sock)


def test_connections_over_the_limit_are_closed(build_dir):
    with Server(build_dir, ":memory:", "--max-connections", "2") as server:
        first, second = started(server), started(server)
        third = connect(server)
        assert is_closed(third)
        first.close()
        # The count goes down when a connection closes (the server notices asynchronously).
        for _ in range(100):
            sock = connect(server)
            sock.sendall(frame(OPTIONS))
            try:
                if read_frame(sock)[3] == SUPPORTED:
                    break
            except ConnectionError:
                continue
        else:
            raise AssertionError("a closed connection's place was not freed")
        second.sendall(frame(OPTIONS))
        assert read_frame(second)[3] == SUPPORTED


def test_sigterm_stops_cleanly_and_the_store_keeps_what_was_written(build_dir):
    with tempfile.TemporaryDirectory() as scratch:
        store = os.path.join(scratch, "app.cassette")
        with Server(build_dir, store) as server:
            sock = started(server)
            for text in (KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
                         "INSERT INTO ks.t (k, v) VALUES (1, 'served')"):
                sock.sendall(frame(QUERY, query_body(text)))
                assert read_frame(sock)[3] == RESULT
            idle = started(server)  # an idle connection does not hold the stop up
        assert is_closed(idle)
        shell = subprocess.run([os.path.join(build_dir, "cassette"), store, "--format", "csv",
                                "-e", "SELECT * FROM ks.t"], capture_output=True, text=True)
        assert shell.stdout == "k,v\n1,served\n", shell.stdout + shell.stderr


def test_sigterm_finishes_the_request_under_way_and_reads_no_more(build_dir):
    with tempfile.TemporaryDirectory() as scratch:
        store = os.path.join(scratch, "app.cassette")
        with Server(build_dir, store) as server:
            sock = started(server)
            for text in (KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY)"):
                sock.sendall(frame(QUERY, query_body(text)))
                assert read_frame(sock)[3] == RESULT
            # 500 INSERTs in one write; SIGTERM once the first is answered.
            sock.sendall(b"".join(frame(QUERY, query_body(f"INSERT INTO ks.t (k) VALUES ({i})"),
                                        stream=i) for i in range(500)))
            answered = [read_frame(sock)]
            assert server.stop() == 0
            while True:
                try:
                    answered.append(read_frame(sock))
                except ConnectionError:
                    break
        # The requests run concurrently: answered in the order they complete, each once.
        assert all(a[3] == RESULT for a in answered), answered
        streams = sorted(a[2] for a in answered)
        assert len(set(streams)) == len(streams), streams
        # Every request the server took was answered, and none it answered is missing: the
        # rows are exactly those of the answered streams.
        shell = subprocess.run([os.path.join(build_dir, "cassette"), store, "--format", "csv",
                                "-e", "SELECT k FROM ks.t"], capture_output=True, text=True)
        rows = sorted(int(k) for k in shell.stdout.split()[1:])
        assert rows == streams, (rows, streams)


def test_bad_arguments_and_an_address_in_use_fail_with_a_message(build_dir):
    cassette = os.path.join(build_dir, "cassette")
    bad = subprocess.run([cassette, "serve", ":memory:", "--listen", "nowhere"],
                         capture_output=True, text=True)
    assert bad.returncode == 2
    assert bad.stderr.startswith("cassette serve: --listen needs HOST:PORT (such as "
                                 "127.0.0.1:9042), not 'nowhere'\n"), bad.stderr
    with Server(build_dir, ":memory:") as server:
        busy = subprocess.run([cassette, "serve", ":memory:", "--listen",
                               f"127.0.0.1:{server.port}"], capture_output=True, text=True)
        assert busy.returncode == 1
        assert busy.stderr == (f"cassette serve: cannot listen on 127.0.0.1:{server.port}: "
                               "Address already in use\n"), busy.stderr


def test_protocol_v3_as_cassandra_speaks_it(build_dir):
    """v3 frames: PREPARED has no partition key indexes, a value of length -2 is null (unset
    is v4's), warnings are not sent, and smallint (a v4 type) is named as a custom type."""
    with Server(build_dir, ":memory:") as server:
        sock = connect(server)
        sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"}), version=3))
        assert read_frame(sock)[::3] == (0x83, READY)
        for i, text in enumerate([KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY, v int, "
                                  "s smallint)", "INSERT INTO ks.t (k, v) VALUES (1, 7)"]):
            sock.sendall(frame(QUERY, query_body(text), stream=i, version=3))
            assert read_frame(sock)[3] == RESULT
        text = b"INSERT INTO ks.t (k, v) VALUES (?, ?)"
        sock.sendall(frame(PREPARE, struct.pack(">I", len(text)) + text, version=3))
        version, _, _, opcode, body = read_frame(sock)
        assert (version, opcode) == (0x83, RESULT)
        kind, id_length = struct.unpack(">iH", body[:6])
        statement_id = body[6:6 + id_length]
        metadata = body[6 + id_length:]
        # <flags: global tables spec><2 columns> then at once the keyspace: no <pk_count>.
        assert metadata[:8] == struct.pack(">ii", 1, 2), metadata
        assert metadata[8:8 + 4] == string("ks"), metadata
        # EXECUTE with v = [length -2]: null in v3 (Cassandra's CBUtil.readBoundValue).
        values = struct.pack(">H", 2) + struct.pack(">ii", 4, 1) + struct.pack(">i", -2)
        execute = (struct.pack(">H", len(statement_id)) + statement_id +
                   struct.pack(">HB", 1, 0x01) + values)
        sock.sendall(frame(0x0A, execute, stream=5, version=3))
        assert read_frame(sock)[3] == RESULT
        # An aggregate without partition key warns in v4; in v3 the flag never appears.
        sock.sendall(frame(QUERY, query_body("SELECT count(*), v, s FROM ks.t"), 6, version=3))
        version, flags, stream, opcode, body = read_frame(sock)
        assert (version, flags, stream, opcode) == (0x83, 0, 6, RESULT), (flags, body)
        rows_flags, columns = struct.unpack(">ii", body[4:12])
        assert columns == 3
        spec = body[12:]
        spec = spec[len(string("ks")) + len(string("t")):]
        expected = (string("count") + struct.pack(">H", 2) + string("v") + struct.pack(">H", 9) +
                    string("s") + struct.pack(">H", 0) +
                    string("org.apache.cassandra.db.marshal.ShortType"))
        assert spec[:len(expected)] == expected, spec
        row_count = struct.unpack(">i", spec[len(expected):len(expected) + 4])[0]
        assert row_count == 1
        # count 1, v null (the -2 above), s null
        assert spec[len(expected) + 4:] == (struct.pack(">i", 8) + struct.pack(">q", 1) +
                                            struct.pack(">ii", -1, -1)), spec
        # The same query on v4 warns (flag 0x08), and names smallint by its id (0x0013).
        v4 = started(server)
        v4.sendall(frame(QUERY, query_body("SELECT count(*), v, s FROM ks.t"), 7))
        version, flags, stream, opcode, body = read_frame(v4)
        assert (version, flags, stream, opcode) == (0x84, 0x08, 7, RESULT), (flags, body)
        assert string("s") + struct.pack(">H", 0x13) in body, body


if __name__ == "__main__":
    sys.exit(run_tests("server-protocol", globals()))
