#!/usr/bin/python3
"""Cassandra 5.0's virtual keyspaces as drivers read them: system_virtual_schema (keyspaces,
tables, columns: the Python driver 3.25 and the Node.js driver read them into `virtual`
keyspace metadata), system_views.clients (this server's connections) and system_views.settings;
read-only. And batch_size_fail_threshold: "Batch too large" by default, --batch-size-fail-threshold
to raise it.

Usage: tests/server/test_virtual_tables.py BUILD_DIR
"""
import logging
import os
import tempfile

from cassandra import InvalidRequest, Unauthorized
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, BatchType

from server_process import Server, run_tests
from test_auth import users_file
from test_driver_connection import KEYSPACE
from test_protocol import STARTUP, connect, frame, read_frame, started, string_map

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)
logging.getLogger("cassandra.connection").setLevel(logging.CRITICAL)

CLIENT_COLUMNS = ["address", "port", "authentication_metadata", "authentication_mode",
                  "client_options", "connection_stage", "driver_name", "driver_version",
                  "hostname", "protocol_version", "request_count", "ssl_cipher_suite",
                  "ssl_enabled", "ssl_protocol", "username"]


def cluster(server, **options):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=10)
    return Cluster(["127.0.0.1"], port=server.port, connect_timeout=10,
                   execution_profiles={EXEC_PROFILE_DEFAULT: profile}, **options)


def expect(call, kind, message):
    try:
        call()
    except kind as error:
        assert message in str(error), error
        return
    raise AssertionError(f"no {kind.__name__} {message!r}")


def test_the_driver_reads_the_virtual_keyspaces_into_its_metadata(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        session = c.connect()
        try:
            keyspaces = c.metadata.keyspaces
            assert keyspaces["system_views"].virtual and keyspaces["system_virtual_schema"].virtual
            assert sorted(keyspaces["system_views"].tables) == ["clients", "settings"]
            assert sorted(keyspaces["system_virtual_schema"].tables) == \
                ["columns", "keyspaces", "tables"]
            clients = keyspaces["system_views"].tables["clients"]
            assert clients.virtual
            assert list(clients.columns) == CLIENT_COLUMNS
            assert [col.name for col in clients.partition_key] == ["address"]
            assert [col.name for col in clients.clustering_key] == ["port"]
            assert clients.options["comment"] == "currently connected clients" or \
                clients.comment == "currently connected clients"
            # Virtual keyspaces are system_virtual_schema's, not system_schema's.
            rows = session.execute("SELECT keyspace_name FROM system_schema.keyspaces")
            assert sorted(r.keyspace_name for r in rows) == \
                ["system", "system_schema", "system_traces"]
            rows = session.execute("SELECT keyspace_name, table_name, comment "
                                   "FROM system_virtual_schema.tables "
                                   "WHERE keyspace_name = 'system_views'")
            assert [tuple(r) for r in rows] == [
                ("system_views", "clients", "currently connected clients"),
                ("system_views", "settings", "current settings")]
            rows = session.execute("SELECT column_name, clustering_order, kind, position, type "
                                   "FROM system_virtual_schema.columns WHERE keyspace_name = "
                                   "'system_views' AND table_name = 'settings'")
            assert [tuple(r) for r in rows] == [("name", "none", "partition_key", 0, "text"),
                                                ("value", "none", "regular", -1, "text")]
        finally:
            c.shutdown()


def test_describe_prints_virtual_keyspaces_as_cassandra_does(build_dir):
    # cqlsh 4.0+ sends DESCRIBE to the server and prints its create_statement column.
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        session = c.connect()
        try:
            rows = list(session.execute("DESCRIBE KEYSPACE system_views"))
            assert [(r.keyspace_name, r.type, r.name) for r in rows] == [
                ("system_views", "keyspace", "system_views"),
                ("system_views", "table", "clients"),
                ("system_views", "table", "settings")], rows
            assert rows[0].create_statement == (
                "/*\nWarning: Keyspace system_views is a virtual keyspace and cannot be "
                "recreated with CQL.\nStructure, for reference:\nVIRTUAL KEYSPACE system_views;"
                "\n*/")
            assert rows[2].create_statement == (
                "/*\nWarning: Table system_views.settings is a virtual table and cannot be "
                "recreated with CQL.\nStructure, for reference:\n"
                "VIRTUAL TABLE system_views.settings (\n"
                "    name text PRIMARY KEY,\n"
                "    value text\n"
                ") WITH comment = 'current settings';\n*/")
            clients = session.execute("DESCRIBE TABLE system_views.clients").one()
            assert clients.create_statement.endswith(
                "    PRIMARY KEY (address, port)\n) WITH CLUSTERING ORDER BY (port ASC)\n"
                "    AND comment = 'currently connected clients';\n*/"), clients.create_statement
        finally:
            c.shutdown()


def test_clients_lists_this_servers_connections(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        session = c.connect()
        try:
            raw = started(server)  # v4, STARTUP with CQL_VERSION only
            raw_port = raw.getsockname()[1]
            waiting = connect(server)  # no frame yet
            waiting_port = waiting.getsockname()[1]
            rows = {r.port: r for r in session.execute("SELECT * FROM system_views.clients")}
            assert raw_port in rows and waiting_port in rows, rows
            assert len(rows) == 4, rows  # the driver's control and pool connections, and these
            r = rows[raw_port]
            assert (r.address, r.hostname, r.protocol_version, r.connection_stage, r.username,
                    r.authentication_mode, r.driver_name, r.driver_version, r.ssl_enabled,
                    r.ssl_protocol, r.request_count) == \
                ("127.0.0.1", "127.0.0.1", 4, "ready", "anonymous", "Unauthenticated", None,
                 None, False, None, 1)
            assert dict(r.client_options) == {"CQL_VERSION": "3.0.0"}
            w = rows[waiting_port]
            assert (w.connection_stage, w.protocol_version, w.client_options, w.request_count) \
                == ("established", 0, None, 0)
            drivers = [r for p, r in rows.items() if p not in (raw_port, waiting_port)]
            for r in drivers:
                assert (r.driver_name, r.driver_version, r.protocol_version) == \
                    ("DataStax Python Driver", "3.25.0", 5), r
                assert dict(r.client_options)["DRIVER_NAME"] == "DataStax Python Driver"
            raw.close()
            waiting.close()
            # Closed connections leave the table (as soon as the server has seen them go).
            for _ in range(100):
                ports = {r.port for r in session.execute("SELECT port FROM system_views.clients")}
                if raw_port not in ports and waiting_port not in ports:
                    break
            assert raw_port not in ports and waiting_port not in ports, ports
        finally:
            c.shutdown()


def test_clients_shows_the_user_a_password_logged_in(build_dir):
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland"})
        with Server(build_dir, ":memory:", "--auth-file", users) as server:
            c = cluster(server, auth_provider=PlainTextAuthProvider("alice", "wonderland"))
            session = c.connect()
            try:
                sock = connect(server)
                sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"})))
                read_frame(sock)  # AUTHENTICATE
                port = sock.getsockname()[1]
                rows = {r.port: r for r in session.execute("SELECT * FROM system_views.clients")}
                assert (rows[port].connection_stage, rows[port].username,
                        rows[port].authentication_mode) == ("authenticating", None, None)
                others = [r for p, r in rows.items() if p != port]
                assert others and all((r.connection_stage, r.username, r.authentication_mode) ==
                                      ("ready", "alice", "Password") for r in others), others
                setting = session.execute("SELECT value FROM system_views.settings "
                                          "WHERE name = 'authenticator'").one()
                assert setting.value == "PasswordAuthenticator"
                sock.close()
            finally:
                c.shutdown()


def test_settings_and_refused_changes(build_dir):
    with Server(build_dir, ":memory:", "--max-connections", "99") as server:
        c = cluster(server)
        session = c.connect()
        try:
            settings = {r.name: r.value for r in
                        session.execute("SELECT name, value FROM system_views.settings")}
            expected = {
                "authenticator": "AllowAllAuthenticator",
                "batch_size_fail_threshold": "50KiB",
                "batch_size_warn_threshold": "5KiB",
                "client_encryption_options_enabled": "false",
                "cluster_name": "Cassette",
                "materialized_views_enabled": "true",
                "native_transport_idle_timeout": "0ms",
                "native_transport_max_concurrent_connections": "99",
                "native_transport_max_frame_size": "16MiB",
                "native_transport_port": str(server.port),
                "num_tokens": "1",
                "partitioner": "org.apache.cassandra.dht.Murmur3Partitioner",
                "rpc_address": "127.0.0.1",
                "sasi_indexes_enabled": "false",
                "unlogged_batch_across_partitions_warn_threshold": "10",
            }
            assert settings == expected, settings
            expect(lambda: session.execute(
                "INSERT INTO system_views.settings (name, value) VALUES ('a', 'b')"),
                InvalidRequest, "Modification is not supported by table system_views.settings")
            expect(lambda: session.execute("TRUNCATE system_views.clients"),
                   InvalidRequest, "Truncation is not supported by table system_views.clients")
            expect(lambda: session.execute("CREATE TABLE system_views.t (k int PRIMARY KEY)"),
                   Unauthorized, "system_views keyspace is not user-modifiable.")
            expect(lambda: session.execute("DROP KEYSPACE system_virtual_schema"),
                   Unauthorized, "system_virtual_schema keyspace is not user-modifiable.")
        finally:
            c.shutdown()


def big_batch(session, partitions, batch_type=BatchType.LOGGED):
    batch = BatchStatement(batch_type=batch_type)
    insert = session.prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
    for i in range(60):
        batch.add(insert, (i % partitions, i, "x" * 1000))
    return batch


def test_batches_over_50_kib_are_refused_unless_raised(build_dir):
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        session = c.connect()
        try:
            session.execute(KEYSPACE)
            session.execute("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
            # 60 rows of ~1 KiB over two partitions: over 50 KiB, refused, nothing written.
            expect(lambda: session.execute(big_batch(session, 2)), InvalidRequest,
                   'message="Batch too large"')
            assert session.execute("SELECT count(*) FROM ks.t").one()[0] == 0
            # One partition: no limit (Cassandra checks batches over several partitions only).
            session.execute(big_batch(session, 1))
            assert session.execute("SELECT count(*) FROM ks.t").one()[0] == 60
        finally:
            c.shutdown()
    with Server(build_dir, ":memory:", "--batch-size-fail-threshold", "0") as server:
        c = cluster(server)
        session = c.connect()
        try:
            session.execute(KEYSPACE)
            session.execute("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
            future = session.execute_async(big_batch(session, 2))
            future.result()
            assert any("exceeding specified threshold of 5120" in w for w in future.warnings)
            assert session.execute("SELECT count(*) FROM ks.t").one()[0] == 60
            names = {r.name for r in session.execute("SELECT name FROM system_views.settings")}
            assert "batch_size_fail_threshold" not in names
        finally:
            c.shutdown()
    with Server(build_dir, ":memory:", "--batch-size-fail-threshold", "100") as server:
        c = cluster(server)
        session = c.connect()
        try:
            session.execute(KEYSPACE)
            session.execute("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
            session.execute(big_batch(session, 2))
            assert session.execute("SELECT count(*) FROM ks.t").one()[0] == 60
            value = session.execute("SELECT value FROM system_views.settings "
                                    "WHERE name = 'batch_size_fail_threshold'").one().value
            assert value == "100KiB", value
        finally:
            c.shutdown()


if __name__ == "__main__":
    run_tests("server-virtual-tables", globals())
