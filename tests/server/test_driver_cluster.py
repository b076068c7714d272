#!/usr/bin/python3
"""The DataStax Python driver as applications use it: Cluster(...).connect() against a real
`cassette serve`, with the driver's defaults (it negotiates the protocol version down to v4,
reads system.local, system.peers and system_schema, registers for events and waits for schema
agreement after each schema change).

Usage: tests/server/test_driver_cluster.py BUILD_DIR
"""
import datetime
import decimal
import logging
import sys
import uuid

from cassandra import AlreadyExists, InvalidRequest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy
from cassandra.protocol import SyntaxException
from cassandra.util import Date, Duration, SortedSet, Time

from server_process import Server, run_tests
from test_driver_connection import ALL_TYPES, ALL_VALUES, KEYSPACE

# The driver warns at each protocol downgrade (66, 65, 5, then 4): expected here.
logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)


def cluster(server):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy())
    return Cluster(["127.0.0.1"], port=server.port, connect_timeout=10,
                   execution_profiles={EXEC_PROFILE_DEFAULT: profile})


def test_connect_write_and_read_every_type(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        try:
            session = c.connect()
            assert c.protocol_version == 5  # the driver's highest: it asks for it first
            session.execute(KEYSPACE)
            session.execute("CREATE TYPE ks.address (street text, zip int)")
            session.execute(ALL_TYPES)
            session.execute(ALL_VALUES)
            session.set_keyspace("ks")
            row = session.execute("SELECT * FROM everything WHERE k = 1").one()
            assert (row.ad.street, row.ad.zip) == ("Main", 12345)
            assert (row.k, row.a, row.b, row.bl, row.bo) == (1, "abc", -9000000000, b"\xca\xfe",
                                                             True)
            assert row.da == Date(datetime.date(2024, 2, 29))
            assert row.de == decimal.Decimal("-12.345")
            assert (row.do, row.f, row.i, row.s, row.t, row.ty) == (1.5, 2.5, "::1", -300,
                                                                    "héllo", -7)
            assert row.du == Duration(1, 2, 3 * 3600 * 10**9)
            assert row.ti == Time(3723000000004)
            assert row.ts == datetime.datetime(2024, 1, 2, 3, 4, 5, 678000)
            assert row.tu == uuid.UUID("50554d6e-29bb-11e5-b345-feff819cdc9f")
            assert row.u == uuid.UUID("123e4567-e89b-12d3-a456-426614174000")
            assert row.v == -123456789012345678901234567890
            assert (row.l, row.se, row.m) == ([3, 1, 3], SortedSet(["a", "b"]), {"x": 1, "y": 2})
            assert (row.tp, row.nested) == ((7, "seven"), {"p": [1, 2]})
            # The driver's metadata, read from system_schema.
            table = c.metadata.keyspaces["ks"].tables["everything"]
            assert [col.name for col in table.partition_key] == ["k"]
            # system.local names the address and port the driver reached.
            local = session.execute("SELECT rpc_address, rpc_port FROM system.local").one()
            assert (str(local.rpc_address), local.rpc_port) == ("127.0.0.1", server.port)
        finally:
            c.shutdown()


def test_errors_raise_the_drivers_exception_classes(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        try:
            session = c.connect()
            session.execute(KEYSPACE)
            session.execute("CREATE TABLE ks.t (k int PRIMARY KEY)")
            for text, error_class in [("SELECT * FROM ks.nowhere", InvalidRequest),
                                      ("SELEC 1", SyntaxException),
                                      ("CREATE TABLE ks.t (k int PRIMARY KEY)", AlreadyExists)]:
                try:
                    session.execute(text)
                except error_class:
                    continue
                raise AssertionError(f"{text!r} did not raise {error_class.__name__}")
            assert list(session.execute("SELECT * FROM ks.t")) == []
        finally:
            c.shutdown()


if __name__ == "__main__":
    sys.exit(run_tests("server-cluster", globals()))
