#!/usr/bin/python3
"""The DataStax Python driver (Debian's python3-cassandra) against a real `cassette serve`,
through the driver's own connection objects: its framing, compression, result decoding into
Python types and error classes. (Cluster.connect() also needs system.local and system.peers,
which the engine does not have yet: see test_driver_cluster.py.)

Usage: tests/server/test_driver_connection.py BUILD_DIR
"""
import concurrent.futures
import datetime
import decimal
import sys
import uuid

from cassandra import AlreadyExists, ConsistencyLevel, InvalidRequest
from cassandra.connection import DefaultEndPoint, ProtocolVersionUnsupported
from cassandra.io.asyncorereactor import AsyncoreConnection
from cassandra.protocol import ConfigurationException, QueryMessage, SyntaxException
from cassandra.util import Date, Duration, SortedSet, Time

from server_process import Server, run_tests

AsyncoreConnection.initialize_reactor()

KEYSPACE = ("CREATE KEYSPACE ks WITH replication = "
            "{'class': 'SimpleStrategy', 'replication_factor': 1}")


def connect(server, **options):
    connection = AsyncoreConnection.factory(DefaultEndPoint("127.0.0.1", server.port), 10,
                                            protocol_version=4, **options)
    connection.user_type_map = {}  # what a Cluster gives its connections: no UDT classes
    return connection


def run(connection, text):
    """The driver's decoded result message; an error raises the driver's exception class (and,
    unlike wait_for_response, keeps the connection: the server keeps it too)."""
    [(ok, response)] = connection.wait_for_responses(QueryMessage(text, ConsistencyLevel.ONE),
                                                     timeout=10, fail_on_error=False)
    if not ok:
        raise response
    return response


def test_version_negotiation_accepts_v4_and_v5(build_dir):
    with Server(build_dir, ":memory:") as server:
        for version in (4, 5):
            connection = AsyncoreConnection.factory(DefaultEndPoint("127.0.0.1", server.port), 10,
                                                    protocol_version=version)
            assert connection.protocol_version == version
            assert run(connection, "SELECT release_version FROM system.local").parsed_rows
            connection.close()


ALL_TYPES = """CREATE TABLE ks.everything (
  k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, da date, de decimal, do double,
  du duration, f float, i inet, s smallint, t text, ti time, ts timestamp, tu timeuuid,
  ty tinyint, u uuid, v varint, l list<int>, se set<text>, m map<text, int>,
  tp tuple<int, text>, ad frozen<address>, nested map<text, frozen<list<int>>>)"""

ALL_VALUES = """INSERT INTO ks.everything (k, a, b, bl, bo, da, de, do, du, f, i, s, t, ti, ts,
  tu, ty, u, v, l, se, m, tp, ad, nested) VALUES (1, 'abc', -9000000000, 0xcafe, true,
  '2024-02-29', -12.345, 1.5, 1mo2d3h, 2.5, '::1', -300, 'héllo', '01:02:03.000000004',
  '2024-01-02 03:04:05.678+0000', 50554d6e-29bb-11e5-b345-feff819cdc9f, -7,
  123e4567-e89b-12d3-a456-426614174000, -123456789012345678901234567890, [3, 1, 3],
  {'b', 'a'}, {'x': 1, 'y': 2}, (7, 'seven'), {street: 'Main', zip: 12345},
  {'p': [1, 2]})"""


def test_every_cql_type_reaches_the_driver_as_its_python_type(build_dir):
    with Server(build_dir, ":memory:") as server:
        for compression in (False, "lz4", "snappy"):
            connection = connect(server, compression=compression)
            if compression is False:
                run(connection, KEYSPACE)
                run(connection, "CREATE TYPE ks.address (street text, zip int)")
                run(connection, ALL_TYPES)
                run(connection, ALL_VALUES)
            result = run(connection, "SELECT * FROM ks.everything")
            row = dict(zip(result.column_names, result.parsed_rows[0]))
            address = row.pop("ad")
            assert (address.street, address.zip) == ("Main", 12345)
            expected = {
                "k": 1, "a": "abc", "b": -9000000000, "bl": b"\xca\xfe", "bo": True,
                "da": Date(datetime.date(2024, 2, 29)), "de": decimal.Decimal("-12.345"),
                "do": 1.5, "du": Duration(1, 2, 3 * 3600 * 10**9), "f": 2.5, "i": "::1",
                "s": -300, "t": "héllo", "ti": Time(3723000000004),
                "ts": datetime.datetime(2024, 1, 2, 3, 4, 5, 678000),
                "tu": uuid.UUID("50554d6e-29bb-11e5-b345-feff819cdc9f"), "ty": -7,
                "u": uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
                "v": -123456789012345678901234567890, "l": [3, 1, 3],
                "se": SortedSet(["a", "b"]), "m": {"x": 1, "y": 2},
                "tp": (7, "seven"), "nested": {"p": [1, 2]},
            }
            assert row == expected, (compression, row)
            # Result metadata names the table the rows come from.
            assert {(c[0], c[1]) for c in result.column_metadata} == {("ks", "everything")}
            connection.close()


def test_counters_and_nulls(build_dir):
    with Server(build_dir, ":memory:") as server:
        connection = connect(server)
        run(connection, KEYSPACE)
        run(connection, "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)")
        run(connection, "UPDATE ks.c SET n = n + 5 WHERE k = 1")
        run(connection, "UPDATE ks.c SET n = n - 2 WHERE k = 1")
        assert run(connection, "SELECT n FROM ks.c WHERE k = 1").parsed_rows == [(3,)]
        run(connection, "CREATE TABLE ks.n (k int PRIMARY KEY, v text, l list<int>)")
        run(connection, "INSERT INTO ks.n (k) VALUES (1)")
        assert run(connection, "SELECT v, l FROM ks.n").parsed_rows == [(None, None)]


def test_use_and_schema_changes_are_the_results_the_driver_knows(build_dir):
    with Server(build_dir, ":memory:") as server:
        connection = connect(server)
        created = run(connection, KEYSPACE)
        assert created.schema_change_event == {"change_type": "CREATED",
                                               "target_type": "KEYSPACE", "keyspace": "ks"}
        assert run(connection, "USE ks").new_keyspace == "ks"
        assert run(connection, "CREATE TABLE t (k int PRIMARY KEY, v int)").schema_change_event == {
            "change_type": "CREATED", "target_type": "TABLE", "keyspace": "ks", "table": "t"}
        assert run(connection, "CREATE INDEX ON t (v)").schema_change_event["change_type"] == \
            "UPDATED"
        assert run(connection, "CREATE TYPE ty (a int)").schema_change_event == {
            "change_type": "CREATED", "target_type": "TYPE", "keyspace": "ks", "type": "ty"}
        assert run(connection, "DROP TABLE t").schema_change_event["change_type"] == "DROPPED"
        # IF NOT EXISTS that changes nothing: a Void result, as Cassandra answers.
        assert run(connection, KEYSPACE.replace("KEYSPACE", "KEYSPACE IF NOT EXISTS")).kind == 1


def test_connections_write_and_read_at_once(build_dir):
    with Server(build_dir, ":memory:") as server:
        setup = connect(server)
        run(setup, KEYSPACE)
        run(setup, "CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))")
        run(setup, "CREATE TABLE ks.n (k int PRIMARY KEY, n counter)")

        def client(k):
            connection = connect(server)
            for c in range(100):
                run(connection, f"INSERT INTO ks.t (k, c) VALUES ({k}, {c})")
                run(connection, "UPDATE ks.n SET n = n + 1 WHERE k = 0")
            rows = run(connection, f"SELECT count(*) FROM ks.t WHERE k = {k}").parsed_rows
            connection.close()
            return rows

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert list(pool.map(client, range(8))) == [[(100,)]] * 8
        assert run(setup, "SELECT count(*) FROM ks.t").parsed_rows == [(800,)]
        assert run(setup, "SELECT n FROM ks.n").parsed_rows == [(800,)]


def expect_error(connection, text, error_class):
    try:
        run(connection, text)
    except error_class as e:
        return e
    raise AssertionError(f"{text!r} did not raise {error_class.__name__}")


def test_errors_raise_the_drivers_exception_classes(build_dir):
    with Server(build_dir, ":memory:") as server:
        connection = connect(server)
        run(connection, KEYSPACE)
        run(connection, "CREATE TABLE ks.t (k int PRIMARY KEY)")
        invalid = expect_error(connection, "SELECT * FROM ks.nowhere", InvalidRequest)
        assert str(invalid) == ('Error from server: code=2200 [Invalid query] '
                                'message="table nowhere does not exist"'), str(invalid)
        syntax = expect_error(connection, "SELEC 1", SyntaxException)
        assert syntax.code == 0x2000
        exists = expect_error(connection, "CREATE TABLE ks.t (k int PRIMARY KEY)", AlreadyExists)
        assert (exists.keyspace, exists.table) == ("ks", "t")
        exists = expect_error(connection, KEYSPACE, AlreadyExists)
        assert (exists.keyspace, exists.table) == ("ks", "")  # "" names a keyspace
        config = expect_error(connection, "ALTER KEYSPACE ks WITH replication = {'class': 'Nope'}",
                              ConfigurationException)
        assert config.code == 0x2300, config
        # The connection is still good after every error.
        assert run(connection, "SELECT k FROM ks.t").parsed_rows == []


if __name__ == "__main__":
    sys.exit(run_tests("server-driver", globals()))
