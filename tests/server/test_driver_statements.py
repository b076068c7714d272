#!/usr/bin/python3
"""Prepared statements, batches, client timestamps and paging through the DataStax Python driver
(Debian's python3-cassandra) as applications use them: Cluster(...).connect(), session.prepare,
BatchStatement, fetch_size and paging_state.

Usage: tests/server/test_driver_statements.py BUILD_DIR
"""
import logging

from cassandra import InvalidRequest
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
from cassandra.concurrent import execute_concurrent_with_args
from cassandra.policies import RoundRobinPolicy
from cassandra.query import UNSET_VALUE, BatchStatement, BatchType, SimpleStatement

from server_process import Server, run_tests
from test_driver_connection import KEYSPACE

logging.getLogger("cassandra.cluster").setLevel(logging.ERROR)


class FixedTimestamps:
    """A client timestamp generator that hands out 1000, 1001, ..."""

    def __init__(self):
        self.next = 1000

    def __call__(self):
        self.next += 1
        return self.next - 1


def cluster(server, **options):
    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy())
    return Cluster(["127.0.0.1"], port=server.port, connect_timeout=10,
                   execution_profiles={EXEC_PROFILE_DEFAULT: profile}, **options)


def connected(server, **options):
    c = cluster(server, **options)
    session = c.connect()
    session.execute(KEYSPACE)
    return c, session


def test_prepared_statements_bind_values_null_and_unset(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.t (a int, b text, c int, v text, w int, "
                            "PRIMARY KEY ((a, b), c))")
            insert = session.prepare("INSERT INTO ks.t (a, b, c, v, w) VALUES (?, ?, ?, ?, ?)")
            assert insert.routing_key_indexes == [0, 1]
            assert [m.name for m in insert.column_metadata] == ["a", "b", "c", "v", "w"]
            session.execute(insert, (1, "x", 1, "one", 10))
            session.execute(insert, (1, "x", 2, None, 20))
            session.execute(insert, (1, "x", 1, UNSET_VALUE, 11))  # v stays "one"
            select = session.prepare("SELECT c, v, w FROM ks.t WHERE b = ? AND a = ?")
            assert select.routing_key_indexes == [1, 0]
            rows = list(session.execute(select, ("x", 1)))
            assert [(r.c, r.v, r.w) for r in rows] == [(1, "one", 11), (2, None, 20)], rows
            named = session.prepare("SELECT w FROM ks.t WHERE a = :a AND b = :b AND c = :c")
            assert session.execute(named, {"c": 2, "b": "x", "a": 1}).one().w == 20
            try:
                session.execute(select, ("x", 1, 3))
            except ValueError as e:  # the driver counts values itself
                assert "Too many arguments" in str(e), str(e)
            else:
                raise AssertionError("three values for two markers were accepted")
        finally:
            c.shutdown()


def test_a_schema_change_makes_the_driver_prepare_again(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
            session.execute("INSERT INTO ks.t (k, v) VALUES (1, 2)")
            select = session.prepare("SELECT * FROM ks.t WHERE k = ?")
            assert list(session.execute(select, (1,)).one()) == [1, 2]
            session.execute("ALTER TABLE ks.t ADD x text")
            session.execute("UPDATE ks.t SET x = 'new' WHERE k = 1")
            # The server answers UNPREPARED; the driver prepares again and gets the new columns.
            row = session.execute(select, (1,)).one()
            assert (row.k, row.v, row.x) == (1, 2, "new"), row
            session.execute("DROP TABLE ks.t")
            try:
                session.execute(select, (1,))
            except InvalidRequest as e:
                assert "does not exist" in str(e), str(e)
            else:
                raise AssertionError("a dropped table's statement ran")
        finally:
            c.shutdown()


def test_client_timestamps_are_the_write_timestamps(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server, timestamp_generator=FixedTimestamps())
        try:
            session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
            insert = session.prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)")
            session.execute(insert, (1, 1))
            session.execute("INSERT INTO ks.t (k, v) VALUES (2, 2)")
            stamps = {r.k: r.writetime_v for r in session.execute("SELECT k, writetime(v) FROM ks.t")}
            assert sorted(stamps.values()) == [stamps[1], stamps[1] + 1], stamps
            assert 1000 <= stamps[1] < 1100, stamps
            # A write with an older client timestamp loses to the newer one, as in Cassandra.
            session.execute(SimpleStatement("INSERT INTO ks.t (k, v) VALUES (1, 99) USING TIMESTAMP 5"))
            assert session.execute("SELECT v FROM ks.t WHERE k = 1").one().v == 1
            # Conditional writes keep the server's clock (Paxos), so they are not stuck in 1970.
            assert session.execute("INSERT INTO ks.t (k, v) VALUES (3, 3) IF NOT EXISTS").one()[0]
            assert session.execute("SELECT writetime(v) FROM ks.t WHERE k = 3").one()[0] > 10**15
        finally:
            c.shutdown()


def test_batches_of_prepared_and_simple_statements(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
            session.execute("CREATE TABLE ks.n (k int PRIMARY KEY, hits counter)")
            session.execute("CREATE TABLE ks.u (k int PRIMARY KEY)")
            insert = session.prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
            batch = BatchStatement()
            for i in range(3):
                batch.add(insert, (1, i, str(i)))
            batch.add(SimpleStatement("UPDATE ks.t SET v = %s WHERE k = 1 AND c = 0"), ("zero",))
            batch.add("DELETE FROM ks.t WHERE k = 1 AND c = 2")
            session.execute(batch)
            assert [(r.c, r.v) for r in session.execute("SELECT c, v FROM ks.t WHERE k = 1")] == \
                [(0, "zero"), (1, "1")]
            counters = BatchStatement(batch_type=BatchType.COUNTER)
            bump = session.prepare("UPDATE ks.n SET hits = hits + ? WHERE k = ?")
            counters.add(bump, (5, 1))
            counters.add(bump, (2, 1))
            session.execute(counters)
            assert session.execute("SELECT hits FROM ks.n WHERE k = 1").one().hits == 7
            mixed = BatchStatement(batch_type=BatchType.UNLOGGED)
            mixed.add(bump, (1, 1))
            mixed.add(insert, (2, 0, "x"))
            try:
                session.execute(mixed)
            except InvalidRequest as e:
                assert "Counter and non-counter mutations cannot exist in the same batch" in str(e)
            else:
                raise AssertionError("a mixed counter batch was accepted")
            lwt = BatchStatement()
            lwt.add("INSERT INTO ks.t (k, c, v) VALUES (5, 0, 'a') IF NOT EXISTS")
            lwt.add("INSERT INTO ks.u (k) VALUES (5)")
            try:
                session.execute(lwt)
            except InvalidRequest as e:
                assert "Batch with conditions cannot span multiple tables" in str(e), str(e)
            else:
                raise AssertionError("a conditional batch over two tables was accepted")
        finally:
            c.shutdown()


def test_paging_10000_rows_with_writes_between_pages(build_dir):
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))")
            insert = session.prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)")
            execute_concurrent_with_args(
                session, insert, [(k, c_, 0) for k in range(10) for c_ in range(0, 2000, 2)],
                concurrency=64, raise_on_first_error=True)
            select = session.prepare("SELECT k, c FROM ks.t")
            select.fetch_size = 700
            result = session.execute(select)
            seen, pages, written = [], 0, 0
            for row in result:
                seen.append((row.k, row.c))
                if result.has_more_pages and len(seen) % 700 == 0:
                    pages += 1
                    # Between pages: a new row in every partition (odd c, new) and an update.
                    for k in range(10):
                        session.execute(insert, (k, 2 * pages + 1, 1))
                        written += 1
            assert pages >= 14, pages
            assert len(seen) == len(set(seen)), "a row came twice"
            original = {(k, c_) for k in range(10) for c_ in range(0, 2000, 2)}
            assert original <= set(seen), "a row that existed throughout was skipped"
            assert len(original) == 10000

            # Single partitions, slices and IN page too, and a paging state resumes by hand.
            statement = SimpleStatement("SELECT c FROM ks.t WHERE k IN (3, 4) AND c >= 100 "
                                        "AND c < 120", fetch_size=3)
            first = session.execute(statement)
            page = list(first.current_rows)
            assert [r.c for r in page] == [100, 102, 104], page
            rest = session.execute(statement, paging_state=first.paging_state)
            assert [r.c for r in rest.current_rows] == [106, 108, 110]
            all_rows = [r.c for r in session.execute(statement)]
            assert len(all_rows) == 20 + 2 * len([p for p in range(1, pages + 1) if 100 <= 2 * p + 1 < 120])

            # GROUP BY pages whole groups; an aggregate is one page.
            grouped = SimpleStatement("SELECT k, count(*) FROM ks.t GROUP BY k", fetch_size=3)
            counts = [(r.k, r.count) for r in session.execute(grouped)]
            assert sorted(k for k, _ in counts) == list(range(10)), counts
            assert sum(n for _, n in counts) == 10000 + written, counts
            total = session.execute(SimpleStatement("SELECT count(*) FROM ks.t", fetch_size=5))
            assert total.one()[0] == 10000 + written and not total.has_more_pages
        finally:
            c.shutdown()


def test_custom_payloads_are_read_and_set_aside(build_dir):
    # A custom payload (protocol v4 on) opens the request's body; Cassandra's default query
    # handler ignores it and answers without one, and so does this server, for every request
    # kind that may carry one.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            payload = {"tenant": b"t1", "empty": b""}
            session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
                            custom_payload=payload)
            insert = session.prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)",
                                     custom_payload=payload)
            session.execute(insert, (1, "one"), custom_payload=payload)
            batch = BatchStatement()
            batch.add(insert, (2, "two"))
            future = session.execute_async(batch, custom_payload=payload)
            future.result()
            assert future.custom_payload is None
            future = session.execute_async("SELECT k, v FROM ks.t", custom_payload=payload)
            assert sorted(tuple(r) for r in future.result()) == [(1, "one"), (2, "two")]
            assert future.custom_payload is None
        finally:
            c.shutdown()


def test_traced_requests_are_read_back_from_system_traces(build_dir):
    # trace=True sets the tracing flag; the RESULT names the trace, and the driver reads it back
    # from system_traces.sessions and system_traces.events (get_query_trace), as from Cassandra.
    with Server(build_dir, ":memory:") as server:
        c, session = connected(server)
        try:
            session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
            insert = session.prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)")
            written = session.execute(insert, (1, "one"), trace=True)
            trace = written.get_query_trace(max_wait_sec=5)
            assert trace.request_type == "Execute CQL3 prepared query"
            assert trace.parameters == {"query": "INSERT INTO ks.t (k, v) VALUES (?, ?)",
                                        "consistency_level": "LOCAL_ONE",
                                        "page_size": "5000"}, trace.parameters
            assert (trace.coordinator, trace.client) == ("127.0.0.1", "127.0.0.1")
            assert trace.duration.total_seconds() > 0 and trace.started_at is not None
            assert [e.description for e in trace.events] == [
                "Executing prepared statement INSERT INTO ks.t (k, v) VALUES (?, ?)",
                "Request complete"], trace.events
            assert all(e.source == "127.0.0.1" and e.thread_name.startswith("Native-Transport")
                       for e in trace.events)

            read = session.execute(SimpleStatement("SELECT v FROM ks.t WHERE k = 1",
                                                   fetch_size=10), trace=True)
            assert [r.v for r in read] == ["one"]
            trace2 = read.get_query_trace(max_wait_sec=5)
            assert trace2.request_type == "Execute CQL3 query"
            assert trace2.parameters == {"query": "SELECT v FROM ks.t WHERE k = 1",
                                         "consistency_level": "LOCAL_ONE", "page_size": "10"}
            assert trace2.events[0].description == "Parsing SELECT v FROM ks.t WHERE k = 1"

            # Only traced requests leave a trace; each is a row of the sessions table.
            session.execute("SELECT v FROM ks.t WHERE k = 1")
            ids = {r.session_id for r in session.execute(
                "SELECT session_id FROM system_traces.sessions")}
            assert ids == {trace.trace_id, trace2.trace_id}, ids
            assert written.response_future.get_query_trace_ids() == [trace.trace_id]
            assert "system_traces" in [r.keyspace_name for r in session.execute(
                "SELECT keyspace_name FROM system_schema.keyspaces")]
            try:
                session.execute("INSERT INTO system_traces.sessions (session_id) VALUES (now())")
                assert False, "the trace tables are read-only"
            except InvalidRequest as e:
                assert "Modification is not supported by table system_traces.sessions" in str(e)
        finally:
            c.shutdown()


if __name__ == "__main__":
    run_tests("server-statements", globals())
