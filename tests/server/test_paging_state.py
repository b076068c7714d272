#!/usr/bin/python3
"""A paging state resumes only the query it came from: passed with another statement, other
bound values, or with altered bytes, it is refused with Cassandra's protocol error ("Invalid
value for the paging state", 0x000A) and nothing is read; with its own query it resumes where
the page stopped. (The drivers close a connection that gets a protocol error, as they do with
Cassandra: the raw frames below show the server keeps serving it.)

Usage: tests/server/test_paging_state.py BUILD_DIR
"""
import logging
import struct
import sys

from cassandra.protocol import ProtocolException
from cassandra.query import SimpleStatement

from server_process import Server, run_tests
from test_driver_cluster import cluster
from test_protocol import (ERROR, KEYSPACE, PREPARE, QUERY, RESULT, frame, query_body,
                           read_error, read_frame, started)

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)
logging.getLogger("cassandra.connection").setLevel(logging.CRITICAL)

EXECUTE = 0x0A
VALUES, SKIP_METADATA, PAGE_SIZE, WITH_PAGING_STATE = 0x01, 0x02, 0x04, 0x08
REFUSAL = (0x000A, "Invalid value for the paging state")


def parameters(values=(), paging_state=None, page_size=5):
    """QUERY/EXECUTE parameters (v4): consistency ONE, int values, a page size, a state."""
    flags = SKIP_METADATA | PAGE_SIZE | (VALUES if values else 0)
    flags |= WITH_PAGING_STATE if paging_state is not None else 0
    out = struct.pack(">HB", 1, flags)
    if values:
        out += struct.pack(">H", len(values))
        out += b"".join(struct.pack(">ii", 4, v) for v in values)
    out += struct.pack(">i", page_size)
    if paging_state is not None:
        out += struct.pack(">i", len(paging_state)) + paging_state
    return out


def query(text, values=(), paging_state=None):
    b = text.encode()
    return frame(QUERY, struct.pack(">I", len(b)) + b + parameters(values, paging_state))


def execute(prepared_id, values=(), paging_state=None):
    return frame(EXECUTE, struct.pack(">H", len(prepared_id)) + prepared_id +
                 parameters(values, paging_state))


def page(sock, request):
    """(the ints of the page's one column, its paging state or None), or the error."""
    sock.sendall(request)
    _, _, _, opcode, body = read_frame(sock)
    if opcode == ERROR:
        return read_error(body)
    assert opcode == RESULT, (opcode, body)
    kind, flags, _ = struct.unpack(">iii", body[:12])
    assert kind == 2 and flags & 0x04, (kind, flags)  # Rows, No_metadata
    pos, state = 12, None
    if flags & 0x02:  # Has_more_pages
        (n,) = struct.unpack(">i", body[pos:pos + 4])
        state = body[pos + 4:pos + 4 + n]
        pos += 4 + n
    (count,) = struct.unpack(">i", body[pos:pos + 4])
    values = [struct.unpack(">ii", body[pos + 4 + 8 * i:pos + 12 + 8 * i])[1]
              for i in range(count)]
    return values, state


def prepare(sock, text):
    b = text.encode()
    sock.sendall(frame(PREPARE, struct.pack(">I", len(b)) + b))
    _, _, _, opcode, body = read_frame(sock)
    assert opcode == RESULT and struct.unpack(">i", body[:4])[0] == 4, (opcode, body)
    (n,) = struct.unpack(">H", body[4:6])
    return body[6:6 + n]


def setup(sock):
    for text in (KEYSPACE, "CREATE TABLE ks.t (p int, c int, v int, PRIMARY KEY (p, c))",
                 "CREATE TABLE ks.u (p int, c int, v int, PRIMARY KEY (p, c))",
                 "INSERT INTO ks.u (p, c, v) VALUES (0, 7, 0)"):
        sock.sendall(frame(QUERY, query_body(text)))
        assert read_frame(sock)[3] == RESULT
    for p in range(2):
        for c in range(20):
            sock.sendall(frame(QUERY, query_body(
                f"INSERT INTO ks.t (p, c, v) VALUES ({p}, {c}, {p * 100 + c})")))
            assert read_frame(sock)[3] == RESULT


def test_a_paging_state_resumes_only_its_own_query(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = started(server)
        setup(sock)
        text = "SELECT c FROM ks.t WHERE p = ?"
        rows, state = page(sock, query(text, (0,)))
        assert rows == [0, 1, 2, 3, 4] and state
        # Its own query resumes after the page, as often as it is asked.
        assert page(sock, query(text, (0,), state))[0] == [5, 6, 7, 8, 9]
        assert page(sock, query(text, (0,), state))[0] == [5, 6, 7, 8, 9]
        # Other values, another statement on the same or another table, the same text
        # prepared: refused, and the connection goes on.
        assert page(sock, query(text, (1,), state)) == REFUSAL
        assert page(sock, query("SELECT c FROM ks.u WHERE p = ?", (0,), state)) == REFUSAL
        assert page(sock, query("SELECT c FROM ks.t WHERE p = 0", (), state)) == REFUSAL
        prepared = prepare(sock, text)
        assert page(sock, execute(prepared, (0,), state)) == REFUSAL
        # Altered bytes: any one of them changed, or the state shortened or lengthened.
        for i in range(len(state)):
            altered = state[:i] + bytes([state[i] ^ 0x01]) + state[i + 1:]
            assert page(sock, query(text, (0,), altered)) == REFUSAL, i
        assert page(sock, query(text, (0,), state[:-1])) == REFUSAL
        assert page(sock, query(text, (0,), state + b"\x00")) == REFUSAL
        assert page(sock, query(text, (0,), b"")) == REFUSAL
        # A prepared statement's state is its own too.
        rows, prepared_state = page(sock, execute(prepared, (1,)))
        assert rows == [0, 1, 2, 3, 4]
        assert page(sock, execute(prepared, (0,), prepared_state)) == REFUSAL
        assert page(sock, query(text, (1,), prepared_state)) == REFUSAL
        other = prepare(sock, "SELECT c FROM ks.t WHERE p = ? AND c >= 0")
        assert page(sock, execute(other, (1,), prepared_state)) == REFUSAL
        # And all the way through, each page once.
        seen, state = rows, prepared_state
        while state:
            rows, state = page(sock, execute(prepared, (1,), state))
            seen += rows
        assert seen == list(range(20)), seen


def test_the_driver_raises_the_protocol_error(build_dir):
    with Server(build_dir, ":memory:") as server:
        setup(started(server))
        c = cluster(server)
        try:
            session = c.connect()
            first = session.execute(SimpleStatement("SELECT c FROM ks.t WHERE p = 0",
                                                    fetch_size=5))
            assert [r.c for r in first.current_rows] == [0, 1, 2, 3, 4]
            try:
                session.execute(SimpleStatement("SELECT c FROM ks.t WHERE p = 1", fetch_size=5),
                                paging_state=first.paging_state)
                assert False, "another query's paging state was taken"
            except ProtocolException as e:
                assert "Invalid value for the paging state" in str(e), str(e)
        finally:
            c.shutdown()


if __name__ == "__main__":
    sys.exit(run_tests("server-paging-state", globals()))
