#!/usr/bin/python3
"""Consistency levels as Cassandra 5.0 checks them on one node (ext/server/consistency.h): ANY
on reads, SERIAL/LOCAL_SERIAL on writes without IF, the serial and commit levels of conditional
writes, counters; an unknown code is a protocol error. Every refusal changes nothing.

Usage: tests/server/test_consistency.py BUILD_DIR
"""
import logging
import struct

from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, SimpleStatement

from server_process import Server, run_tests
from test_driver_connection import KEYSPACE
from test_protocol import ERROR, QUERY, frame, read_error, read_frame, started

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)

CL = ConsistencyLevel
SERIAL_WRITE = "You must use conditional updates for serializable writes"
CAS_SERIAL = ("Invalid consistency for conditional update. Must be one of SERIAL or "
              "LOCAL_SERIAL")


def cas_commit(level):
    return (f"{level} is not supported as conditional update commit consistency. Use ANY if you "
            "mean \"make sure it is accepted but I don't care how many replicas commit it for "
            "non-SERIAL reads\"")


def connected(server):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=10)
    c = Cluster(["127.0.0.1"], port=server.port, connect_timeout=10,
                execution_profiles={EXEC_PROFILE_DEFAULT: profile})
    session = c.connect()
    session.execute(KEYSPACE)
    session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
    session.execute("CREATE TABLE ks.n (k int PRIMARY KEY, n counter)")
    return c, session


def refused(session, statement, message, values=None):
    try:
        session.execute(statement, values)
    except InvalidRequest as error:
        expected = f'Error from server: code=2200 [Invalid query] message="{message}"'
        assert str(error) == expected, (str(error), expected)
        return
    raise AssertionError(f"no InvalidRequest {message!r}")


def at(query, level, serial=None):
    return SimpleStatement(query, consistency_level=level, serial_consistency_level=serial)


def query_at(text, level, serial=None, flags=0):
    """A raw QUERY body at `level`, with `serial` as its serial consistency (flag 0x10)."""
    text = text.encode()
    if serial is not None:
        flags |= 0x10
    body = struct.pack(">I", len(text)) + text + struct.pack(">HB", level, flags)
    return body + (struct.pack(">H", serial) if serial is not None else b"")


def rows(session, query):
    return sorted(tuple(r) for r in session.execute(query))


def test_reads_refuse_any_and_take_every_other_level(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("INSERT INTO ks.t (k, v) VALUES (1, 10)")
            query = "SELECT k, v FROM ks.t WHERE k = 1"
            refused(session, at(query, CL.ANY), "ANY ConsistencyLevel is only supported for writes")
            prepared = session.prepare("SELECT k, v FROM ks.t WHERE k = ?")
            prepared.consistency_level = CL.ANY
            refused(session, prepared, "ANY ConsistencyLevel is only supported for writes", (1,))
            for level in (CL.ONE, CL.QUORUM, CL.ALL, CL.LOCAL_QUORUM, CL.EACH_QUORUM,
                          CL.SERIAL, CL.LOCAL_SERIAL, CL.LOCAL_ONE):
                assert [tuple(r) for r in session.execute(at(query, level))] == [(1, 10)], level
        finally:
            c.shutdown()


def test_serial_writes_need_conditions_and_change_nothing(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            for level in (CL.SERIAL, CL.LOCAL_SERIAL):
                refused(session, at("INSERT INTO ks.t (k, v) VALUES (1, 1)", level), SERIAL_WRITE)
                refused(session, at("UPDATE ks.t SET v = 2 WHERE k = 2", level), SERIAL_WRITE)
                refused(session, at("DELETE FROM ks.t WHERE k = 3", level), SERIAL_WRITE)
                insert = session.prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)")
                insert.consistency_level = level
                refused(session, insert, SERIAL_WRITE, (4, 4))
                batch = BatchStatement(consistency_level=level)
                batch.add("INSERT INTO ks.t (k, v) VALUES (5, 5)")
                refused(session, batch, SERIAL_WRITE)
            assert rows(session, "SELECT k, v FROM ks.t") == []
            # ANY is a write level: the write is made.
            session.execute(at("INSERT INTO ks.t (k, v) VALUES (6, 6)", CL.ANY))
            assert rows(session, "SELECT k, v FROM ks.t") == [(6, 6)]
        finally:
            c.shutdown()


def test_conditional_writes_check_their_serial_and_commit_levels(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            cas = "INSERT INTO ks.t (k, v) VALUES (1, 1) IF NOT EXISTS"
            # The driver refuses a serial level that is not one; raw frames send it.
            sock = started(server)
            for serial in (CL.QUORUM, CL.ONE):
                sock.sendall(frame(QUERY, query_at(cas, CL.ONE, serial)))
                _, _, _, opcode, answer = read_frame(sock)
                assert opcode == ERROR
                assert read_error(answer) == (0x2200, CAS_SERIAL)
            sock.close()
            refused(session, at(cas, CL.SERIAL), cas_commit("SERIAL"))
            refused(session, at(cas, CL.LOCAL_SERIAL, CL.LOCAL_SERIAL), cas_commit("LOCAL_SERIAL"))
            batch = BatchStatement(consistency_level=CL.SERIAL)
            batch.add("INSERT INTO ks.t (k, v) VALUES (2, 2) IF NOT EXISTS")
            refused(session, batch, cas_commit("SERIAL"))
            assert rows(session, "SELECT k, v FROM ks.t") == []
            # The commit may be made at ANY; serial LOCAL_SERIAL is a Paxos level.
            assert session.execute(at(cas, CL.ANY, CL.LOCAL_SERIAL)).one()[0] is True
            update = "UPDATE ks.t SET v = 3 WHERE k = 1 IF v = 1"
            assert session.execute(at(update, CL.QUORUM, CL.SERIAL)).one()[0] is True
            assert rows(session, "SELECT k, v FROM ks.t") == [(1, 3)]
        finally:
            c.shutdown()


def test_counter_writes_refuse_any_and_serial(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            add = "UPDATE ks.n SET n = n + 1 WHERE k = 1"
            refused(session, at(add, CL.ANY),
                    "Consistency level ANY is not yet supported for counter table n")
            refused(session, at(add, CL.SERIAL),
                    "Counter operations are inherently non-serializable")
            session.execute("USE ks")
            refused(session, at("UPDATE n SET n = n + 1 WHERE k = 1", CL.ANY),
                    "Consistency level ANY is not yet supported for counter table n")
            assert rows(session, "SELECT k, n FROM ks.n") == []
            session.execute(at(add, CL.ONE))
            assert rows(session, "SELECT k, n FROM ks.n") == [(1, 1)]
        finally:
            c.shutdown()


def test_an_unknown_consistency_code_is_a_protocol_error(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = started(server)
        for level, serial in ((11, None), (42, None), (1, 12)):
            sock.sendall(frame(QUERY, query_at("SELECT key FROM system.local", level, serial)))
            _, _, _, opcode, answer = read_frame(sock)
            assert opcode == ERROR
            code = level if serial is None else serial
            assert read_error(answer) == (0x000A, f"Unknown code {code} for a consistency level")
        sock.close()


if __name__ == "__main__":
    run_tests("server-consistency", globals())
