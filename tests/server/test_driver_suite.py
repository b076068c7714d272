#!/usr/bin/python3
"""What the DataStax Python driver's own integration suite (tests/integration/standard of
datastax/python-driver 3.25) hit when pointed at `cassette serve`: each case here is one
behaviour that failed there, named after the upstream test, so that it cannot come back.

Usage: tests/server/test_driver_suite.py BUILD_DIR
"""
import logging

from cassandra import InvalidRequest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.policies import RoundRobinPolicy
from cassandra.query import BatchStatement, BatchType

from server_process import Server, run_tests
from test_driver_connection import KEYSPACE

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)


def connected(server, **options):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=10)
    c = Cluster(["127.0.0.1"], port=server.port, connect_timeout=10,
                execution_profiles={EXEC_PROFILE_DEFAULT: profile}, **options)
    session = c.connect()
    session.execute(KEYSPACE)
    return c, session


def expect_invalid(call, message):
    try:
        call()
    except InvalidRequest as error:
        assert message in str(error), error
        return
    raise AssertionError(f"no InvalidRequest {message!r}")


def test_prepared_statements_on_system_tables_execute(build_dir):
    # test_cluster.py test_pool_management, test_trace: an EXECUTE of a statement prepared on a
    # system table was answered UNPREPARED every time (the system keyspaces are generated, and
    # the out-of-date check looked for the table in the stored schema only), so the driver
    # prepared it again forever and the request timed out.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            local = session.prepare("SELECT key, cluster_name FROM system.local WHERE key = ?")
            assert [tuple(r) for r in session.execute(local, ("local",))] == \
                [("local", "Cassette")]
            keyspaces = session.prepare(
                "SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?")
            assert [r.keyspace_name for r in session.execute(keyspaces, ("ks",))] == ["ks"]
            peers = session.prepare("SELECT peer FROM system.peers")
            assert list(session.execute(peers)) == []
        finally:
            c.shutdown()


def test_prepare_checks_the_primary_key_of_an_insert(build_dir):
    # test_prepared_statements.py test_missing_primary_key, test_too_many_bind_values: since
    # Cassandra 3.0 (CASSANDRA-6237) PREPARE itself refuses an INSERT without its key.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
            session.execute("CREATE TABLE ks.c (k int, c int, s int STATIC, v int, "
                            "PRIMARY KEY (k, c))")
            expect_invalid(lambda: session.prepare("INSERT INTO ks.t (v) VALUES (?)"),
                           "Some partition key parts are missing: k")
            expect_invalid(lambda: session.prepare("INSERT INTO ks.c (k, v) VALUES (?, ?)"),
                           "Some clustering keys are missing: c")
            expect_invalid(lambda: session.prepare("INSERT INTO ks.t (k, v) VALUES (?)"),
                           "Unmatched column names/values")
            expect_invalid(lambda: session.prepare("INSERT INTO ks.t (k, x) VALUES (?, ?)"),
                           "Undefined column name x")
            expect_invalid(lambda: session.prepare(
                "BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (?, ?); "
                "INSERT INTO ks.t (v) VALUES (?); APPLY BATCH"),
                "Some partition key parts are missing: k")
            # A static column alone needs no clustering key; nothing was written by the above.
            static = session.prepare("INSERT INTO ks.c (k, s) VALUES (?, ?)")
            session.execute(static, (1, 7))
            assert [tuple(r) for r in session.execute("SELECT k, c, s FROM ks.c")] == \
                [(1, None, 7)]
            assert list(session.execute("SELECT * FROM ks.t")) == []
        finally:
            c.shutdown()


def test_empty_compression_map_turns_compression_off(build_dir):
    # test_metadata.py test_compression_disabled: `WITH compression = {}` was refused with
    # "Missing sub-option 'class'"; Cassandra (3.0 on) turns compression off.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.plain (k int PRIMARY KEY, v int) "
                            "WITH compression = {}")
            c.refresh_table_metadata("ks", "plain")
            exported = c.metadata.keyspaces["ks"].tables["plain"].export_as_string()
            assert "compression = {'enabled': 'false'}" in exported, exported
        finally:
            c.shutdown()


def test_large_and_unlogged_batches_warn_as_cassandra_does(build_dir):
    # test_client_warnings.py test_warning_basic: a batch over several partitions whose data
    # exceeds batch_size_warn_threshold (5 KiB) comes back with Cassandra's warning, and an
    # unlogged batch over more than 10 partitions with its own.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.w (k int, v0 int, v1 int, PRIMARY KEY (k, v0))")
            insert = session.prepare("INSERT INTO ks.w (k, v0, v1) VALUES (?, ?, ?)")
            big = BatchStatement()
            for x in range(214):  # 214 rows of 4 + 8 + (16 + 4) bytes: 6,848
                big.add(insert, (x, x, 1))
            future = session.execute_async(big)
            future.result()
            assert future.warnings == [
                "Batch for [ks.w] is of size 6848, exceeding specified threshold of 5120 by "
                "1728."], future.warnings
            small = BatchStatement()
            for x in range(3):
                small.add(insert, (x, x, 2))
            future = session.execute_async(small)
            future.result()
            assert future.warnings is None, future.warnings
            unlogged = BatchStatement(batch_type=BatchType.UNLOGGED)
            for x in range(11):
                unlogged.add(insert, (x, 0, 3))
            future = session.execute_async(unlogged)
            future.result()
            assert future.warnings == [
                "Unlogged batch covering 11 partitions detected against table [ks.w]. You should "
                "use a logged batch for atomicity, or asynchronous writes for performance."], \
                future.warnings
            assert session.execute("SELECT count(*) FROM ks.w").one()[0] == 224  # (1..10, 0) are new
        finally:
            c.shutdown()


def test_size_estimates_tables_exist_and_are_empty(build_dir):
    # system.size_estimates / table_estimates (read by Spark's connector to split a scan) were
    # "table size_estimates does not exist"; Cassandra fills them per token range, here they
    # are there and empty.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            assert list(session.execute("SELECT * FROM system.size_estimates")) == []
            rows = session.execute("SELECT range_start, partitions_count FROM "
                                   "system.table_estimates WHERE keyspace_name = 'ks'")
            assert (list(rows), rows.column_names) == ([], ["range_start", "partitions_count"])
            tables = c.metadata.keyspaces["system"].tables
            assert [c.name for c in tables["size_estimates"].primary_key] == \
                ["keyspace_name", "table_name", "range_start", "range_end"]
        finally:
            c.shutdown()


def test_the_driver_pinned_to_protocol_v3(build_dir):
    # Cluster(protocol_version=3): Cassandra 5.0 still speaks v3. The suite's standard tests
    # (test_types, test_udts, test_query_paging, test_prepared_statements ...) pass on it.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server, protocol_version=3)
        try:
            assert c.protocol_version == 3
            session.execute("CREATE TYPE ks.point (x int, y int)")
            session.execute("CREATE TABLE ks.v3 (k int, c int, v text, d date, t time, "
                            "s smallint, ti tinyint, p frozen<point>, PRIMARY KEY (k, c))")
            insert = session.prepare("INSERT INTO ks.v3 (k, c, v) VALUES (?, ?, ?)")
            for i in range(5):
                session.execute(insert, (1, i, f"v{i}"))
            session.execute("INSERT INTO ks.v3 (k, c, d, t, s, ti, p) VALUES "
                            "(2, 0, '2024-02-29', '01:02:03', -300, 7, {x: 1, y: 2})")
            select = session.prepare("SELECT c, v FROM ks.v3 WHERE k = ?")
            select.fetch_size = 2
            assert [tuple(r) for r in session.execute(select, (1,))] == \
                [(i, f"v{i}") for i in range(5)]
            # date, time, smallint and tinyint come as custom types the driver decodes by
            # their class names.
            row = session.execute("SELECT d, t, s, ti, p FROM ks.v3 WHERE k = 2").one()
            assert (str(row.d), str(row.t), row.s, row.ti, (row.p.x, row.p.y)) == \
                ("2024-02-29", "01:02:03.000000000", -300, 7, (1, 2)), row
        finally:
            c.shutdown()


if __name__ == "__main__":
    raise SystemExit(run_tests("server-driver-suite", globals()))
