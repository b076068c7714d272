"""cql_import_schema() knows its own earlier import after SQLite connected the virtual table
again: another connection's CREATE TABLE makes this connection read the schema again, and the
virtual table connects anew before its old connection goes. That used to forget the import
("Cannot import ks.t: an SQLite table named t exists already."). Run as
`python3 tests/sqlite/test_import_after_reconnect.py BUILD_DIR` in an empty directory."""
from sqlite_test_util import check, connect, rows

a = connect("app.db")
b = connect("app.db")
a.execute("SELECT cql('CREATE KEYSPACE ks WITH replication = "
          "{''class'': ''SimpleStrategy'', ''replication_factor'': 1}')")
a.execute("SELECT cql('CREATE TABLE ks.t (k int PRIMARY KEY, v text)')")
check(rows(a, "SELECT cql_import_schema('ks')"), [(1,)], "the first import creates t")
check(rows(a, "SELECT * FROM t"), [], "t reads")
b.execute("CREATE TABLE other(x)")
check(rows(a, "SELECT * FROM t"), [], "t reads after another connection's CREATE TABLE")
check(rows(a, "SELECT cql_import_schema('ks')"), [(0,)],
      "importing again keeps t and creates nothing")
