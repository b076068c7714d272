#!/usr/bin/python3
"""Column masks through `cassette serve`: Cassandra 5.0's SelectMaskedPermissionTest and
UnmaskPermissionTest (cql3/functions/masking), with the auth file's permissions standing in for
GRANT (`:unmask`, `:select_masked`, `:superuser`), and ColumnMaskTest's driver cases (prepared
statements across mask changes, paging) on a server without users.

A user holding neither UNMASK nor SELECT_MASKED reads masked values and may not restrict a masked
column in WHERE (Unauthorized, Cassandra's message); SELECT_MASKED lets them restrict it and
still reads masked values; UNMASK (which includes SELECT_MASKED) and superusers read clear values.
Cassandra grants per keyspace or table (GRANT UNMASK ON KEYSPACE ks): the auth file's permissions
hold for every table, so testUnmaskOnKeyspace/OnTable's per-resource cases are not ported.

Usage: tests/server/test_masking_permissions.py BUILD_DIR
"""
import os
import tempfile

from cassandra import Unauthorized

from cassandra.query import SimpleStatement

from server_process import Server, run_tests
from test_auth import auth_cluster, users_file
from test_driver_cluster import cluster

# user -> (the auth file's permissions, reads clear values, may restrict masked columns)
USERS = {
    "ddm_user": ("", False, False),
    "ddm_select_masked": (":select_masked", False, True),
    "ddm_unmask": (":unmask", True, True),
    "ddm_both": (":unmask,select_masked", True, True),
    "root": (":superuser", True, True),
}
PASSWORD = "ddm_password"


def serve_with_users(build_dir, d):
    users = users_file(build_dir, d, {user: PASSWORD for user in USERS})
    lines = open(users).read().splitlines()
    with open(users, "w") as f:
        for line in lines:
            f.write(line + USERS[line.split(":")[0]][0] + "\n")
    return Server(build_dir, os.path.join(d, "store"), "--auth-file", users)


def sessions(server):
    """One connected session per user; the clusters to shut down."""
    out, clusters = {}, []
    for user in USERS:
        c = auth_cluster(server, user, PASSWORD)
        clusters.append(c)
        out[user] = c.connect()
    return out, clusters


def outcome(session, query):
    try:
        return [tuple(r) for r in session.execute(query)]
    except Unauthorized as e:
        return "Unauthorized: " + str(e)


def unauthorized(user, column):
    return (f'Unauthorized: Error from server: code=2100 [Unauthorized] message="User {user} has '
            f"no UNMASK nor SELECT_MASKED permission on table ks.t, cannot query masked columns "
            f'[{column}]"')


# SelectMaskedPermissionTest: per masked column, the row as masked (MASKED WITH DEFAULT: 0) and
# the queries its test methods run; those whose WHERE restricts the column (token(k) restricts
# k) are the ones refused without SELECT_MASKED.
CASES = {
    "k": ((0, 7, 7, 7), [
        ("SELECT * FROM ks.t", False),
        ("SELECT * FROM ks.t WHERE c = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE v = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE s = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE k = 7", True),
        ("SELECT * FROM ks.t WHERE k >= 7 ALLOW FILTERING", True),
        ("SELECT * FROM ks.t WHERE k = 7 AND c = 7", True),
        ("SELECT * FROM ks.t WHERE k = 7 AND v = 7 ALLOW FILTERING", True),
        ("SELECT * FROM ks.t WHERE token(k) = token(7)", True),
        ("SELECT * FROM ks.t WHERE token(k) >= token(7)", True),
    ]),
    "c": ((7, 0, 7, 7), [
        ("SELECT * FROM ks.t", False),
        ("SELECT * FROM ks.t WHERE k = 7", False),
        ("SELECT * FROM ks.t WHERE v = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE s = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE token(k) = token(7)", False),
        ("SELECT * FROM ks.t WHERE c = 7 ALLOW FILTERING", True),
        ("SELECT * FROM ks.t WHERE k = 7 AND c = 7", True),
    ]),
    "s": ((7, 7, 0, 7), [
        ("SELECT * FROM ks.t", False),
        ("SELECT * FROM ks.t WHERE token(k) = token(7)", False),
        ("SELECT * FROM ks.t WHERE k = 7", False),
        ("SELECT * FROM ks.t WHERE k = 7 AND c = 7", False),
        ("SELECT * FROM ks.t WHERE c = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE v = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE s = 7 ALLOW FILTERING", True),
    ]),
    "v": ((7, 7, 7, 0), [
        ("SELECT * FROM ks.t", False),
        ("SELECT * FROM ks.t WHERE token(k) = token(7)", False),
        ("SELECT * FROM ks.t WHERE k = 7", False),
        ("SELECT * FROM ks.t WHERE k = 7 AND c = 7", False),
        ("SELECT * FROM ks.t WHERE c = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE s = 7 ALLOW FILTERING", False),
        ("SELECT * FROM ks.t WHERE v = 7 ALLOW FILTERING", True),
    ]),
}


def test_select_masked_permission_per_column_kind(build_dir):
    """testPartitionKeyColumn, testClusteringKeyColumn, testStaticColumn, testCollections (the
    last masks the regular column v): every query as every user, before and after the mask."""
    with tempfile.TemporaryDirectory() as d, serve_with_users(build_dir, d) as server:
        s, clusters = sessions(server)
        try:
            root = s["root"]
            root.execute("CREATE KEYSPACE ks WITH replication = "
                         "{'class': 'SimpleStrategy', 'replication_factor': 1}")
            root.execute("CREATE TABLE ks.t (k int, c int, s int static, v int, "
                         "PRIMARY KEY (k, c))")
            root.execute("INSERT INTO ks.t (k, c, s, v) VALUES (7, 7, 7, 7)")
            failures = []
            for column, (masked_row, queries) in CASES.items():
                root.execute(f"ALTER TABLE ks.t ALTER {column} MASKED WITH DEFAULT")
                for user, (_, clear, select_masked) in USERS.items():
                    for query, restricts in queries:
                        if restricts and not select_masked:
                            expected = unauthorized(user, column)
                        else:
                            expected = [(7, 7, 7, 7) if clear else masked_row]
                        got = outcome(s[user], query)
                        if got != expected:
                            failures.append((column, user, query, got, expected))
                root.execute(f"ALTER TABLE ks.t ALTER {column} DROP MASKED")
                # without the mask every user reads and restricts the column in clear
                for query, _ in queries:
                    got = outcome(s["ddm_user"], query)
                    if got != [(7, 7, 7, 7)]:
                        failures.append((column, "ddm_user", query, got, "after DROP MASKED"))
            assert not failures, "\n".join(map(repr, failures))
        finally:
            for c in clusters:
                c.shutdown()


def test_unmask_defaults(build_dir):
    """UnmaskPermissionTest.testUnmaskDefaults and testUnmaskOnAllKeyspaces (GRANT UNMASK ON ALL
    KEYSPACES is the auth file's `:unmask`): tables of two keyspaces, `SELECT *` and `SELECT k,
    c, v`, masked for an ordinary user, clear for a superuser and an UNMASK user."""
    with tempfile.TemporaryDirectory() as d, serve_with_users(build_dir, d) as server:
        s, clusters = sessions(server)
        try:
            tables = ("mask_keyspace_1.mask_table_1", "mask_keyspace_1.mask_table_2",
                      "mask_keyspace_2.mask_table_1")
            for keyspace in ("mask_keyspace_1", "mask_keyspace_2"):
                s["root"].execute(f"CREATE KEYSPACE IF NOT EXISTS {keyspace} WITH replication = "
                                  "{'class': 'SimpleStrategy', 'replication_factor': '1'}")
            for table in tables:
                s["root"].execute(f"CREATE TABLE IF NOT EXISTS {table} (k int, c int, v text "
                                  "MASKED WITH mask_replace('redacted'), PRIMARY KEY (k, c))")
                s["root"].execute(f"INSERT INTO {table} (k, c, v) VALUES (0, 0, 'sensitive')")
            seen = {}
            for user in ("ddm_user", "ddm_select_masked", "ddm_unmask", "root"):
                for table in tables:
                    for query in (f"SELECT * FROM {table}", f"SELECT k, c, v FROM {table}"):
                        seen.setdefault(user, set()).update(outcome(s[user], query))
            assert seen == {"ddm_user": {(0, 0, "redacted")},
                            "ddm_select_masked": {(0, 0, "redacted")},
                            "ddm_unmask": {(0, 0, "sensitive")},
                            "root": {(0, 0, "sensitive")}}, seen
        finally:
            for c in clusters:
                c.shutdown()


def test_prepared_statements_follow_mask_changes(build_dir):
    """ColumnMaskTest.testPreparedStatement and testPreparedStatementOnView: a statement prepared
    before ALTER TABLE ... MASKED WITH / DROP MASKED applies the mask as it is when it runs, on the
    table and on a view keyed by the masked column (whose WHERE sees the clear value)."""
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        try:
            s = c.connect()
            s.execute("CREATE KEYSPACE ks WITH replication = "
                      "{'class': 'SimpleStrategy', 'replication_factor': 1}")
            s.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text MASKED WITH DEFAULT)")
            s.execute("INSERT INTO ks.t (k, v) VALUES (0, 'sensitive')")
            bound = s.prepare("SELECT v FROM ks.t WHERE k = ?").bind([0])
            seen = [[tuple(r) for r in s.execute(bound)]]
            s.execute("ALTER TABLE ks.t ALTER v DROP MASKED")
            seen.append([tuple(r) for r in s.execute(bound)])
            s.execute("ALTER TABLE ks.t ALTER v MASKED WITH mask_replace('redacted')")
            seen.append([tuple(r) for r in s.execute(bound)])
            assert seen == [[("****",)], [("sensitive",)], [("redacted",)]], seen

            s.execute("CREATE TABLE ks.b (k int, c int, v text MASKED WITH DEFAULT, "
                      "PRIMARY KEY (k, c))")
            s.execute("INSERT INTO ks.b (k, c, v) VALUES (0, 0, 'sensitive')")
            s.execute("CREATE MATERIALIZED VIEW ks.bv AS SELECT * FROM ks.b WHERE k IS NOT NULL "
                      "AND c IS NOT NULL AND v IS NOT NULL PRIMARY KEY (v, k, c)")
            bound = s.prepare("SELECT v FROM ks.bv WHERE v = ?").bind(["sensitive"])
            seen = [[tuple(r) for r in s.execute(bound)]]
            s.execute("ALTER TABLE ks.b ALTER v DROP MASKED")
            seen.append([tuple(r) for r in s.execute(bound)])
            s.execute("ALTER TABLE ks.b ALTER v MASKED WITH mask_replace('redacted')")
            seen.append([tuple(r) for r in s.execute(bound)])
            assert seen == [[("****",)], [("sensitive",)], [("redacted",)]], seen
        finally:
            c.shutdown()


def test_paging_with_masks(build_dir):
    """ColumnMaskTest.testPaging: every page size and LIMIT returns the same rows, masked as the
    columns are masked (regular, then clustering, then partition key), in the clear order."""
    with Server(build_dir, ":memory:") as server:
        c = cluster(server)
        try:
            s = c.connect()
            s.execute("CREATE KEYSPACE ks WITH replication = "
                      "{'class': 'SimpleStrategy', 'replication_factor': 1}")
            s.execute("CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))")
            for k, c_ in ((0, 0), (0, 1), (1, 0)):
                s.execute(f"INSERT INTO ks.t (k, c, v) VALUES ({k}, {c_}, 'sensitive')")
            queries = ["SELECT * FROM ks.t", "SELECT * FROM ks.t WHERE k = 1",
                       "SELECT * FROM ks.t WHERE k = 0", "SELECT * FROM ks.t WHERE k = 0 AND c = 1"]
            clear = [[(1, 0, "sensitive"), (0, 0, "sensitive"), (0, 1, "sensitive")],
                     [(1, 0, "sensitive")], [(0, 0, "sensitive"), (0, 1, "sensitive")],
                     [(0, 1, "sensitive")]]
            failures = []

            def check(mask):
                for query, rows in zip(queries, clear):
                    expected = [mask(r) for r in rows]
                    for page_size in (1, 2, 3, 4, 5, 100):
                        for limit in (None, 1, 2, 3, 4, 5, 100):
                            q = query if limit is None else f"{query} LIMIT {limit}"
                            got = [tuple(r) for r in
                                   s.execute(SimpleStatement(q, fetch_size=page_size))]
                            want = expected if limit is None else expected[:limit]
                            if got != want:
                                failures.append((q, page_size, got, want))

            check(lambda r: r)
            s.execute("ALTER TABLE ks.t ALTER v MASKED WITH mask_replace('redacted')")
            check(lambda r: (r[0], r[1], "redacted"))
            s.execute("ALTER TABLE ks.t ALTER c MASKED WITH mask_replace(-1)")
            check(lambda r: (r[0], -1, "redacted"))
            s.execute("ALTER TABLE ks.t ALTER k MASKED WITH mask_replace(-1)")
            check(lambda r: (-1, -1, "redacted"))
            for column in ("k", "c", "v"):
                s.execute(f"ALTER TABLE ks.t ALTER {column} DROP MASKED")
            check(lambda r: r)
            assert not failures, "\n".join(map(repr, failures[:10]))
        finally:
            c.shutdown()


if __name__ == "__main__":
    raise SystemExit(run_tests("server-masking-permissions", globals()))
