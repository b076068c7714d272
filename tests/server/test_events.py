#!/usr/bin/python3
"""SCHEMA_CHANGE events: a connection that REGISTERed gets an EVENT (stream -1) for each schema
change made on its store - through this server, or through another process (the `cassette`
shell, SQLite's cql()) - and the DataStax Python driver's metadata follows them.

Usage: tests/server/test_events.py BUILD_DIR
"""
import logging
import os
import sqlite3
import struct
import subprocess
import tempfile
import time

from server_process import Server, run_tests
from test_driver_cluster import cluster
from test_protocol import (OPTIONS, QUERY, RESULT, SUPPORTED, connect, frame, query_body,
                           read_frame, started)
from test_driver_connection import KEYSPACE

REGISTER, EVENT = 0x0B, 0x0C
READY = 0x02
logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)


def string_list(items):
    return struct.pack(">H", len(items)) + b"".join(
        struct.pack(">H", len(i)) + i.encode() for i in items)


def registered(server, events):
    sock = started(server)
    sock.sendall(frame(REGISTER, string_list(events), stream=1))
    assert read_frame(sock)[2:4] == (1, READY)
    return sock


def read_strings(body):
    strings = []
    while body:
        (n,) = struct.unpack(">H", body[:2])
        strings.append(body[2:2 + n].decode())
        body = body[2 + n:]
    return strings


def next_event(sock):
    _, _, stream, opcode, body = read_frame(sock)
    assert (stream, opcode) == (-1, EVENT), (stream, opcode, body)
    return tuple(read_strings(body))


def run(sock, text, stream=2):
    sock.sendall(frame(QUERY, query_body(text), stream=stream))
    _, _, got_stream, opcode, body = read_frame(sock)
    assert (got_stream, opcode) == (stream, RESULT), (got_stream, opcode, body)


def shell(build_dir, store, text):
    result = subprocess.run([os.path.join(build_dir, "cassette"), store, "-e", text],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_changes_through_the_server_reach_registered_connections(build_dir):
    with tempfile.TemporaryDirectory() as d, Server(build_dir, os.path.join(d, "s")) as server:
        listener = registered(server, ["SCHEMA_CHANGE"])
        worker = started(server)
        run(worker, KEYSPACE)
        assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "KEYSPACE", "ks")
        run(worker, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
        assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "TABLE", "ks", "t")
        run(worker, "ALTER TABLE ks.t ADD w int")
        assert next_event(listener) == ("SCHEMA_CHANGE", "UPDATED", "TABLE", "ks", "t")
        run(worker, "CREATE INDEX t_v ON ks.t (v)")
        assert next_event(listener) == ("SCHEMA_CHANGE", "UPDATED", "TABLE", "ks", "t")
        run(worker, "CREATE TYPE ks.point (x int, y int)")
        assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "TYPE", "ks", "point")
        run(worker, "ALTER KEYSPACE ks WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 2}")
        assert next_event(listener) == ("SCHEMA_CHANGE", "UPDATED", "KEYSPACE", "ks")
        run(worker, "DROP TABLE ks.t")
        event = next_event(listener)
        assert event == ("SCHEMA_CHANGE", "DROPPED", "TABLE", "ks", "t"), event
        run(worker, "DROP KEYSPACE ks")
        assert next_event(listener) == ("SCHEMA_CHANGE", "DROPPED", "KEYSPACE", "ks")
        listener.close()
        worker.close()


def test_a_change_through_the_server_is_announced_before_it_is_answered(build_dir):
    # No poll between the change and its event: the connection that made the change (and
    # registered) reads the EVENT first, then the RESULT; another registered connection has
    # its event queued by then as well.
    with tempfile.TemporaryDirectory() as d, Server(build_dir, os.path.join(d, "s")) as server:
        other = registered(server, ["SCHEMA_CHANGE"])
        sock = registered(server, ["SCHEMA_CHANGE"])
        for stream, (text, event) in enumerate([
                (KEYSPACE, ("CREATED", "KEYSPACE", "ks")),
                ("CREATE TABLE ks.t (k int PRIMARY KEY)", ("CREATED", "TABLE", "ks", "t")),
                ("DROP TABLE ks.t", ("DROPPED", "TABLE", "ks", "t"))], start=2):
            sock.sendall(frame(QUERY, query_body(text), stream=stream))
            assert next_event(sock) == ("SCHEMA_CHANGE",) + event
            assert read_frame(sock)[2:4] == (stream, RESULT)
            assert next_event(other) == ("SCHEMA_CHANGE",) + event
        # A statement that changes nothing (IF NOT EXISTS of what exists) announces nothing.
        sock.sendall(frame(QUERY, query_body(KEYSPACE.replace("KEYSPACE", "KEYSPACE IF NOT EXISTS",
                                                              1)), stream=9))
        assert read_frame(sock)[2:4] == (9, RESULT)
        sock.sendall(frame(OPTIONS, b"", stream=10))
        assert read_frame(sock)[2:4] == (10, SUPPORTED)
        other.close()
        sock.close()


def test_changes_by_another_process_reach_registered_connections(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "s")
        with Server(build_dir, store) as server:
            listener = registered(server, ["SCHEMA_CHANGE", "STATUS_CHANGE"])
            shell(build_dir, store, KEYSPACE + "; CREATE TABLE ks.from_shell (k int PRIMARY KEY)")
            assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "KEYSPACE", "ks")
            assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "TABLE", "ks",
                                            "from_shell")
            shell(build_dir, store, "DROP TABLE ks.from_shell")
            assert next_event(listener) == ("SCHEMA_CHANGE", "DROPPED", "TABLE", "ks",
                                            "from_shell")
            listener.close()


def test_changes_by_sqlite_reach_registered_connections(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "s")
        with Server(build_dir, store) as server:
            listener = registered(server, ["SCHEMA_CHANGE"])
            db = sqlite3.connect(":memory:")
            db.enable_load_extension(True)
            db.load_extension(os.path.join(os.path.abspath(build_dir), "cassette"))
            db.execute("SELECT cql_open(?)", (store,))
            db.execute("SELECT cql(?)", (KEYSPACE,))
            db.execute("SELECT cql('CREATE TABLE ks.from_sqlite (k int PRIMARY KEY)')")
            db.close()
            assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "KEYSPACE", "ks")
            assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "TABLE", "ks",
                                            "from_sqlite")
            listener.close()


def test_connections_that_did_not_register_get_no_event(build_dir):
    with tempfile.TemporaryDirectory() as d, Server(build_dir, os.path.join(d, "s")) as server:
        quiet = started(server)
        topology_only = registered(server, ["TOPOLOGY_CHANGE", "STATUS_CHANGE"])
        listener = registered(server, ["SCHEMA_CHANGE"])
        run(quiet, KEYSPACE)
        assert next_event(listener) == ("SCHEMA_CHANGE", "CREATED", "KEYSPACE", "ks")
        # The event went out; the others' next frame is the answer to their next request.
        for sock in (quiet, topology_only):
            sock.sendall(frame(OPTIONS, stream=9))
            assert read_frame(sock)[2:4] == (9, SUPPORTED)
            sock.close()
        listener.close()


def test_the_drivers_metadata_follows_a_table_created_from_the_shell(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "s")
        shell(build_dir, store, KEYSPACE)
        with Server(build_dir, store) as server:
            c = cluster(server)
            try:
                c.connect()
                assert "ks" in c.metadata.keyspaces
                assert "late" not in c.metadata.keyspaces["ks"].tables
                shell(build_dir, store, "CREATE TABLE ks.late (k int PRIMARY KEY, v text)")
                # The driver refreshes on the event, after its own debounce window (about a
                # second): wait for it, up to a deadline that only a missing event reaches.
                deadline = time.monotonic() + 30
                while ("late" not in c.metadata.keyspaces["ks"].tables
                       and time.monotonic() < deadline):
                    time.sleep(0.1)
                table = c.metadata.keyspaces["ks"].tables.get("late")
                assert table is not None, "the driver never saw ks.late"
                assert list(table.columns) == ["k", "v"], list(table.columns)
            finally:
                c.shutdown()


if __name__ == "__main__":
    raise SystemExit(run_tests("server-events", globals()))
