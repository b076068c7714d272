#!/usr/bin/python3
"""Protocol v5 (native_protocol_v5.spec): the DataStax Python driver (Debian's python3-cassandra
3.25, which speaks v5 with its own segment codec and checksums) as applications use it, and
hand-made segments for the corners a driver never sends: several envelopes in one segment, a
large envelope over several segments, bad CRCs, v5's query flags.

Usage: tests/server/test_protocol_v5.py BUILD_DIR
"""
import logging
import os
import socket
import struct
import sys

from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, SimpleStatement
from cassandra.segment import CRC32_INITIAL, compute_crc24, compute_crc32

from server_process import Server, run_tests
from test_protocol import (ERROR, OPTIONS, QUERY, READY, RESULT, STARTUP, SUPPORTED, frame,
                           is_closed, read_error, read_frame, recv_exact, string, string_map)

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)
logging.getLogger("cassandra.connection").setLevel(logging.CRITICAL)

KEYSPACE = ("CREATE KEYSPACE ks WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}")
MAX_PAYLOAD = 128 * 1024 - 1
WITH_KEYSPACE, NOW_IN_SECONDS = 0x80, 0x100


def cluster(server, **options):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy())
    return Cluster(["127.0.0.1"], port=server.port, connect_timeout=10,
                   execution_profiles={EXEC_PROFILE_DEFAULT: profile}, **options)


# ---- hand-made v5 ----------------------------------------------------------------------------

def segment(payload, self_contained=True, bad_header_crc=False, bad_payload_crc=False):
    """An uncompressed segment: 3-byte header, CRC24, payload, CRC32 (little-endian)."""
    header = len(payload) | ((1 << 17) if self_contained else 0)
    crc24 = compute_crc24(header, 3) ^ (1 if bad_header_crc else 0)
    crc32 = compute_crc32(payload, CRC32_INITIAL) ^ (1 if bad_payload_crc else 0)
    return (header.to_bytes(3, "little") + crc24.to_bytes(3, "little") + payload +
            crc32.to_bytes(4, "little"))


def read_segment(sock):
    """(self_contained, payload) of the next segment, its CRCs checked."""
    raw = recv_exact(sock, 6)
    header = int.from_bytes(raw[:3], "little")
    assert int.from_bytes(raw[3:], "little") == compute_crc24(header, 3), "bad CRC24"
    payload = recv_exact(sock, header & MAX_PAYLOAD)
    crc = int.from_bytes(recv_exact(sock, 4), "little")
    assert crc == compute_crc32(payload, CRC32_INITIAL), "bad CRC32"
    return bool(header >> 17 & 1), payload


def envelopes(payload):
    """The (version, flags, stream, opcode, body) envelopes of a payload."""
    out = []
    while payload:
        version, flags, stream, opcode, length = struct.unpack(">BBhBI", payload[:9])
        assert len(payload) >= 9 + length
        out.append((version, flags, stream, opcode, payload[9:9 + length]))
        payload = payload[9 + length:]
    return out


def read_answers(sock, count):
    """The next `count` envelopes, in the segments they come in (requests of one segment run
    concurrently: each answer may come in a segment of its own, in the order they complete)."""
    out = []
    while len(out) < count:
        self_contained, payload = read_segment(sock)
        assert self_contained
        out += envelopes(payload)
    assert len(out) == count, out
    return out


def by_stream(answers):
    return sorted(answers, key=lambda answer: answer[2])


def v5_query(text, stream, flags=0, extra=b""):
    b = text.encode()
    body = struct.pack(">I", len(b)) + b + struct.pack(">HI", 1, flags) + extra
    return frame(QUERY, body, stream=stream, version=5)


def v5_started(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"}), version=5))
    version, _, _, opcode, _ = read_frame(sock)  # READY itself is a plain v5 envelope
    assert (version, opcode) == (0x85, READY), (version, opcode)
    return sock


def rows_of(body):
    """The rows of a Rows result with one int column, metadata included."""
    kind, flags, columns = struct.unpack(">iii", body[:12])
    assert kind == 2 and columns == 1, (kind, columns)
    pos = 12
    assert flags & 1  # global table spec
    for _ in range(3):  # keyspace, table, column name
        n = struct.unpack(">H", body[pos:pos + 2])[0]
        pos += 2 + n
    pos += 2  # the type id
    count = struct.unpack(">i", body[pos:pos + 4])[0]
    pos += 4
    rows = []
    for _ in range(count):
        n = struct.unpack(">i", body[pos:pos + 4])[0]
        rows.append(body[pos + 4:pos + 4 + n])
        pos += 4 + n
    return rows


def test_options_and_startup_in_v5_frames_then_segments(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        sock.sendall(frame(OPTIONS, version=5, stream=4))
        version, _, stream, opcode, body = read_frame(sock)
        assert (version, stream, opcode) == (0x85, 4, SUPPORTED)
        assert body.endswith(string("PROTOCOL_VERSIONS") + b"\x00\x03" + string("3/v3") +
                             string("4/v4") + string("5/v5")), body
        sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"}), version=5))
        assert read_frame(sock)[::3] == (0x85, READY)
        # Two envelopes in one self-contained segment: both answered, in self-contained segments.
        sock.sendall(segment(v5_query(KEYSPACE, 1) +
                             v5_query("SELECT release_version FROM system.local", 2)))
        answers = by_stream(read_answers(sock, 2))
        assert [(v, s, o) for v, _, s, o, _ in answers] == [(0x85, 1, RESULT), (0x85, 2, RESULT)]
        sock.close()


def test_a_large_envelope_over_several_segments_both_ways(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = v5_started(server)
        sock.sendall(segment(v5_query(KEYSPACE, 1)))
        read_segment(sock)
        sock.sendall(segment(v5_query("CREATE TABLE ks.t (k int PRIMARY KEY, v blob)", 2)))
        read_segment(sock)
        value = os.urandom(300 * 1024)
        insert = v5_query(f"INSERT INTO ks.t (k, v) VALUES (1, 0x{value.hex()})", 3)
        assert len(insert) > 4 * MAX_PAYLOAD
        for i in range(0, len(insert), MAX_PAYLOAD):
            sock.sendall(segment(insert[i:i + MAX_PAYLOAD], self_contained=False))
        [(version, _, stream, opcode, _)] = envelopes(read_segment(sock)[1])
        assert (version, stream, opcode) == (0x85, 3, RESULT)
        sock.sendall(segment(v5_query("SELECT v FROM ks.t WHERE k = 1", 4)))
        payload = b""
        segments = 0
        while True:  # the answer comes back in segments that are not self-contained
            self_contained, part = read_segment(sock)
            assert not self_contained
            payload += part
            segments += 1
            if len(payload) >= 9 and len(payload) == 9 + struct.unpack(">I", payload[5:9])[0]:
                break
        assert segments == 3, segments
        [(_, _, stream, opcode, body)] = envelopes(payload)
        assert (stream, opcode) == (4, RESULT)
        assert rows_of(body) == [value]
        sock.close()


def test_a_bad_crc_closes_that_connection_and_no_other(build_dir):
    with Server(build_dir, ":memory:") as server:
        other = v5_started(server)
        for bad, message in (("bad_payload_crc", "CRC mismatch on segment payload: read "),
                             ("bad_header_crc", "CRC mismatch on segment header: read ")):
            sock = v5_started(server)
            sock.sendall(segment(v5_query("SELECT release_version FROM system.local", 7),
                                 **{bad: True}))
            self_contained, payload = read_segment(sock)
            [(version, _, stream, opcode, body)] = envelopes(payload)
            assert (version, stream, opcode) == (0x85, 0, ERROR)
            code, text = read_error(body)
            assert code == 0x000A and text.startswith(message), (code, text)
            assert is_closed(sock)
        other.sendall(segment(v5_query("SELECT release_version FROM system.local", 9)))
        [(_, _, stream, opcode, _)] = envelopes(read_segment(other)[1])
        assert (stream, opcode) == (9, RESULT)  # the other connection still answers


def test_v5_query_flags_keyspace_and_now_in_seconds(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = v5_started(server)
        for stream, text in enumerate((KEYSPACE, "CREATE TABLE ks.t (k int PRIMARY KEY)",
                                       "INSERT INTO ks.t (k) VALUES (5)"), 1):
            sock.sendall(segment(v5_query(text, stream)))
            assert [a[2:4] for a in read_answers(sock, 1)] == [(stream, RESULT)]
        # The keyspace flag: an unqualified table in ks, and the connection keeps no keyspace.
        sock.sendall(segment(v5_query("SELECT k FROM t", 4, WITH_KEYSPACE, string("ks")) +
                             v5_query("SELECT k FROM t", 5)))
        first, second = by_stream(read_answers(sock, 2))
        assert first[3] == RESULT and rows_of(first[4]) == [struct.pack(">i", 5)]
        assert second[3] == ERROR and read_error(second[4]) == (
            0x2200, "No keyspace has been specified. USE a keyspace, or explicitly specify "
                    "keyspace.tablename"), read_error(second[4])
        # now_in_seconds: refused, and the connection goes on.
        sock.sendall(segment(v5_query("SELECT k FROM ks.t", 6, NOW_IN_SECONDS,
                                      struct.pack(">i", 1700000000))))
        [(_, _, stream, opcode, body)] = envelopes(read_segment(sock)[1])
        assert (stream, opcode) == (6, ERROR)
        assert read_error(body) == (0x000A, "The now_in_seconds flag (0x100) is not supported by "
                                            "this server: every statement runs at the server's "
                                            "current time"), read_error(body)
        # A v4 envelope on a v5 connection: refused, closed.
        sock.sendall(segment(frame(QUERY, b"", stream=8, version=4)))
        [(version, _, stream, opcode, body)] = envelopes(read_segment(sock)[1])
        assert (version, stream, opcode) == (0x85, 8, ERROR)
        assert read_error(body) == (0x000A, "Invalid message version. Got 4 but previous messages "
                                            "on this connection had version 5"), read_error(body)
        assert is_closed(sock)


def column_type_ids(body):
    """The [option] ids of a Rows result's columns (global table spec, simple types)."""
    kind, flags, columns = struct.unpack(">iii", body[:12])
    assert kind == 2 and flags & 1, (kind, flags)
    pos = 12
    for _ in range(2):  # keyspace, table
        pos += 2 + struct.unpack(">H", body[pos:pos + 2])[0]
    ids = []
    for _ in range(columns):
        pos += 2 + struct.unpack(">H", body[pos:pos + 2])[0]  # the name
        ids.append(struct.unpack(">H", body[pos:pos + 2])[0])
        pos += 2
    return ids


def test_duration_is_type_0x0015_on_v5_and_the_driver_reads_it(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = v5_started(server)
        answers = []
        for stream, text in enumerate((KEYSPACE,
                                       "CREATE TABLE ks.d (k int PRIMARY KEY, d duration)",
                                       "INSERT INTO ks.d (k, d) VALUES (1, 1mo2d3s)",
                                       "SELECT k, d FROM ks.d"), 1):
            sock.sendall(segment(v5_query(text, stream)))
            answers += read_answers(sock, 1)
        assert [a[2:4] for a in answers] == [(n, RESULT) for n in range(1, 5)], answers
        # int, then duration: 0x0015 from v5 (v4 gets the custom DurationType class).
        assert column_type_ids(answers[3][4]) == [0x0009, 0x0015], answers[3][4]
        c = cluster(server)
        try:
            session = c.connect()
            assert c.protocol_version == 5
            row = session.execute("SELECT d FROM ks.d WHERE k = 1").one()
            assert (row.d.months, row.d.days, row.d.nanoseconds) == (1, 2, 3 * 10**9), row.d
            prepared = session.prepare("INSERT INTO ks.d (k, d) VALUES (?, ?)")
            session.execute(prepared, (2, row.d))
            assert session.execute("SELECT d FROM ks.d WHERE k = 2").one().d == row.d
        finally:
            c.shutdown()


def test_snappy_is_refused_on_v5(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0", "COMPRESSION": "snappy"}),
                           version=5))
        version, _, _, opcode, body = read_frame(sock)
        assert (version, opcode) == (0x85, ERROR)
        assert read_error(body) == (0x000A, "Unsupported compression algorithm for protocol "
                                            "version 5: snappy (v5 compresses segments with lz4 "
                                            "only)"), read_error(body)


# ---- the driver ------------------------------------------------------------------------------

def test_the_driver_negotiates_v5_by_default(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        try:
            session = c.connect()
            assert c.protocol_version == 5
            assert session.execute("SELECT release_version FROM system.local").one()
            assert c.control_connection._connection._is_checksumming_enabled
        finally:
            c.shutdown()


def exercise(session):
    """Queries, prepared statements, a batch, paging over 10,000 rows and a 300 KiB value."""
    session.execute(KEYSPACE)
    session.execute("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
    insert = session.prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
    batch = BatchStatement()
    for c in range(100):
        batch.add(insert, (1, c, f"v{c}"))
    session.execute(batch)
    for start in range(100, 10000, 100):
        batch = BatchStatement()
        for c in range(start, start + 100):
            batch.add(insert, (1, c, f"v{c}"))
        session.execute(batch)
    select = session.prepare("SELECT c, v FROM ks.t WHERE k = ?")
    rows = list(session.execute(select.bind((1,))))
    assert [(r.c, r.v) for r in rows] == [(c, f"v{c}") for c in range(10000)]
    paged = session.execute(SimpleStatement("SELECT c FROM ks.t WHERE k = 1", fetch_size=700))
    assert [r.c for r in paged] == list(range(10000))
    # A value larger than a segment, both ways (incompressible, so with LZ4 too).
    big = os.urandom(150 * 1024).hex()  # 300 KiB of text
    session.execute(insert, (2, 0, big))
    assert session.execute(select, (2,)).one().v == big
    # v5's keyspace flag, as the driver sends it for a statement's keyspace.
    one = session.execute(SimpleStatement("SELECT v FROM t WHERE k = 1 AND c = 5",
                                          keyspace="ks")).one()
    assert one.v == "v5"


def test_queries_prepared_batches_paging_and_large_values_on_v5(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server, protocol_version=5)
        try:
            exercise(c.connect())
        finally:
            c.shutdown()


def test_lz4_compressed_segments(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server, protocol_version=5, compression="lz4")
        try:
            session = c.connect()
            connection = c.control_connection._connection
            assert connection._is_checksumming_enabled and connection._segment_codec.compression
            exercise(session)
        finally:
            c.shutdown()


if __name__ == "__main__":
    sys.exit(run_tests("server-protocol-v5", globals()))
