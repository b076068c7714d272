#!/usr/bin/env python3
"""The DataStax Python driver's schema parser reads Cassette's system_schema rows.

What a driver does on connect, without a server: the rows of every table SchemaParserV4 queries
(SELECT * FROM system_schema.keyspaces, tables, columns, ...) are read through the `cassette`
shell (--format json: values as Cassandra's toJson()), turned into the Python values the driver's
protocol decoder would give (sets for set<text>, bytes for blobs), and handed to
cassandra.metadata.SchemaParserV4 in place of its queries. The metadata it builds must parse
without error and describe the schema as it was created: replication, keys, clustering order,
static columns, types, user types, indexes and materialized views; its CQL export must equal the expected text.

  python3 tests/cli/driver_metadata_test.py build     # prints "driver-metadata: N passed, M failed"
"""
import json
import os
import subprocess
import sys
import tempfile

from cassandra.metadata import SchemaParserV4

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
HERE = os.path.dirname(os.path.abspath(__file__))
results = {"passed": 0, "failed": 0}

SCHEMA = """
CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TYPE shop.address (street text, zip int);
CREATE TABLE shop.orders (customer int, day date, id timeuuid, total decimal, note text static,
  items map<text, int>, ship_to frozen<address>, tags set<text>,
  PRIMARY KEY ((customer), day, id)) WITH CLUSTERING ORDER BY (day DESC, id ASC)
  AND comment = 'orders by customer' AND default_time_to_live = 3600;
CREATE INDEX orders_items ON shop.orders (keys(items));
CREATE MATERIALIZED VIEW shop.orders_by_day AS SELECT customer, day, id, total FROM shop.orders
  WHERE day IS NOT NULL AND customer IS NOT NULL AND id IS NOT NULL
  PRIMARY KEY (day, customer, id) WITH comment = 'orders of a day';
CREATE TABLE shop.hits (page text PRIMARY KEY, n counter);
CREATE KEYSPACE logs WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}
  AND durable_writes = false;
CREATE TABLE logs.events (source text, hour int, ts bigint, payload blob,
  PRIMARY KEY ((source, hour), ts));
"""

TABLES = ["keyspaces", "tables", "columns", "types", "functions", "aggregates", "triggers",
          "indexes", "views"]
SET_COLUMNS = {"flags"}
BLOB_COLUMNS = {"column_name_bytes"}


def check(what, ok, detail=""):
    if ok:
        results["passed"] += 1
    else:
        results["failed"] += 1
        print(f"FAILED: {what}{': ' + detail if detail else ''}")


def shell(store, cql, fmt="table"):
    return subprocess.run([os.path.join(BUILD, "cassette"), store, "--format", fmt, "-e", cql],
                          check=True, capture_output=True, text=True).stdout


def driver_row(row):
    """A row of toJson() values as the driver's decoder gives it."""
    out = {}
    for name, value in row.items():
        if name in SET_COLUMNS and value is not None:
            value = set(value)
        elif name in BLOB_COLUMNS and value is not None:
            value = bytes.fromhex(value[2:])
        elif name == "extensions" and value is not None:
            value = {k: bytes.fromhex(v[2:]) for k, v in value.items()}
        out[name] = value
    return out


class RowsParser(SchemaParserV4):
    """SchemaParserV4 with the rows it would query given instead."""

    def __init__(self, rows):
        super().__init__(connection=None, timeout=0)
        self.rows = rows

    def _query_all(self):
        self.keyspaces_result = self.rows["keyspaces"]
        self.tables_result = self.rows["tables"]
        self.columns_result = self.rows["columns"]
        self.types_result = self.rows["types"]
        self.functions_result = self.rows["functions"]
        self.aggregates_result = self.rows["aggregates"]
        self.triggers_result = self.rows["triggers"]
        self.indexes_result = self.rows["indexes"]
        self.views_result = self.rows["views"]
        self.virtual_keyspaces_result = []
        self.virtual_tables_result = []
        self.virtual_columns_result = []
        self._aggregate_results()


def main():
    with tempfile.TemporaryDirectory() as work:
        store = os.path.join(work, "store")
        subprocess.run([os.path.join(BUILD, "cassette"), store, "-e", SCHEMA], check=True)
        lines = shell(store, "; ".join(f"SELECT * FROM system_schema.{t}" for t in TABLES),
                      "json").splitlines()
        check("one JSON result per table", len(lines) == len(TABLES), str(len(lines)))
        rows = {t: [driver_row(r) for r in json.loads(line)] for t, line in zip(TABLES, lines)}
        keyspaces = {k.name: k for k in RowsParser(rows).get_all_keyspaces()}

    check("keyspaces", sorted(keyspaces) == ["logs", "shop", "system", "system_schema",
                                          "system_traces"],
          str(sorted(keyspaces)))
    for name, keyspace in keyspaces.items():
        check(f"{name} parses without error", keyspace._exc_info is None, str(keyspace._exc_info))

    shop = keyspaces["shop"]
    orders = shop.tables["orders"]
    check("SimpleStrategy", shop.replication_strategy.export_for_schema() ==
          "{'class': 'SimpleStrategy', 'replication_factor': '1'}",
          shop.replication_strategy.export_for_schema())
    check("durable_writes false", keyspaces["logs"].durable_writes is False)
    check("partition key", [c.name for c in orders.partition_key] == ["customer"])
    check("clustering key", [c.name for c in orders.clustering_key] == ["day", "id"])
    check("clustering order", [c.is_reversed for c in orders.clustering_key] == [True, False])
    check("static column", orders.columns["note"].is_static)
    check("column types", {n: c.cql_type for n, c in orders.columns.items()} == {
        "customer": "int", "day": "date", "id": "timeuuid", "note": "text",
        "items": "map<text, int>", "ship_to": "frozen<address>", "tags": "set<text>",
        "total": "decimal"}, str({n: c.cql_type for n, c in orders.columns.items()}))
    check("table options", orders.options.get("comment") == "orders by customer" and
          orders.options.get("default_time_to_live") == 3600, str(orders.options))
    check("index", orders.indexes["orders_items"].index_options == {"target": "keys(items)"},
          str(orders.indexes))
    check("user type", (shop.user_types["address"].field_names,
                        shop.user_types["address"].field_types) ==
          (["street", "zip"], ["text", "int"]))
    view = shop.views.get("orders_by_day")
    check("materialized view", view is not None and view.base_table_name == "orders" and
          not view.include_all_columns and
          view.where_clause == "day IS NOT NULL AND customer IS NOT NULL AND id IS NOT NULL" and
          [c.name for c in view.partition_key] == ["day"] and
          [c.name for c in view.clustering_key] == ["customer", "id"] and
          view.options.get("comment") == "orders of a day", str(view and view.__dict__))
    check("a view is not a table", "orders_by_day" not in shop.tables)
    check("counter table", shop.tables["hits"].columns["n"].cql_type == "counter")
    events = keyspaces["logs"].tables["events"]
    check("compound partition key", [c.name for c in events.partition_key] == ["source", "hour"])
    check("system tables", sorted(keyspaces["system"].tables) ==
          ["local", "peers", "peers_v2", "size_estimates", "table_estimates"])

    exported = "\n\n".join(keyspaces[k].export_as_string() for k in ["logs", "shop"]) + "\n"
    expected_path = os.path.join(HERE, "driver_metadata.expected")
    if os.environ.get("UPDATE_GOLDEN"):
        with open(expected_path, "w") as f:
            f.write(exported)
    with open(expected_path) as f:
        expected = f.read()
    check("export_as_string", exported == expected, "\n" + exported)
    print(f"driver-metadata: {results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
