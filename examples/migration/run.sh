#!/usr/bin/env bash
# Migrating a normalized PostgreSQL schema into query-first Cassandra tables, and reporting on
# the result back in PostgreSQL.
#
#   examples/migration/run.sh [BUILD_DIR]      (default: build; needs PostgreSQL 15 installed)
#
# 1. starts a throwaway PostgreSQL server and loads shop_pg.sql (customers, products, orders,
#    order_items, normalized);
# 2. creates the Cassandra tables of shop.cql in a Cassette store with the cassette shell;
# 3. fills each one with `cassette pg-import` from a join that denormalizes the data;
# 4. answers the application's queries in CQL, each one a single-partition read;
# 5. copies orders_by_customer back with `cassette pg-export` and runs a monthly revenue report
#    on it in SQL.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir=$(cd "${1:-$root/build}" && pwd)
cassette="$build_dir/cassette"

source "$root/tests/lib/pg_throwaway.sh"
pg_throwaway_start
sql() { psql -X -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

store="$PG_WORK_DIR/shop.cassette"
connstr="dbname=postgres"

echo "== 1. the normalized PostgreSQL schema"
sql -f "$here/shop_pg.sql"
sql -At -c "SELECT 'customers: ' || count(*) FROM customers" \
        -c "SELECT 'products: ' || count(*) FROM products" \
        -c "SELECT 'orders: ' || count(*) FROM orders" \
        -c "SELECT 'order_items: ' || count(*) FROM order_items"

echo
echo "== 2. the query-first Cassandra tables (shop.cql)"
"$cassette" "$store" -f "$here/shop.cql"
"$cassette" "$store" -e "DESCRIBE TABLES" -k shop

echo
echo "== 3. pg-import: one denormalizing query per table"
# Summaries end with the time taken; the rest of each line is stable.
import() { "$cassette" pg-import "$store" "$1" "$connstr" "$2" --rejects "$PG_WORK_DIR/rejects.csv"; }
import shop.orders_by_customer "
  SELECT o.customer_id, o.ordered_at, o.order_id, c.name AS customer_name, o.status,
         sum(i.quantity * i.unit_price) AS total, count(*)::int AS item_count
  FROM orders o
  JOIN customers c USING (customer_id)
  JOIN order_items i USING (order_id)
  GROUP BY o.order_id, c.name"
import shop.items_by_order "
  SELECT i.order_id, i.line_no, i.product_id, p.name AS product_name, p.category, p.tags,
         i.quantity, i.unit_price
  FROM order_items i JOIN products p USING (product_id)"
import shop.customers_by_city "SELECT city, customer_id, name, email, signed_up FROM customers"

echo
echo "== 4. the application's queries, in CQL"
"$cassette" "$store" -k shop -e "
  SELECT customer_name, ordered_at, order_id, status, total FROM orders_by_customer
    WHERE customer_id = 8 LIMIT 3;
  SELECT line_no, product_name, tags, quantity, unit_price FROM items_by_order
    WHERE order_id = 1042;
  SELECT customer_id, name FROM customers_by_city WHERE city = 'Lille' LIMIT 4;
  SELECT count(*) FROM orders_by_customer;"

echo
echo "== 5. pg-export and a report in PostgreSQL"
"$cassette" pg-export "$store" shop.orders_by_customer "$connstr" reporting_orders
report="
  SELECT to_char(date_trunc('month', ordered_at), 'YYYY-MM') AS month,
         count(*) AS orders, sum(total) AS revenue,
         round(avg(item_count), 2) AS avg_items
  FROM %s
  WHERE status <> 'cancelled'
  GROUP BY 1 ORDER BY 1"
# shellcheck disable=SC2059
sql -c "$(printf "$report" reporting_orders)"
# The same report straight from the normalized tables gives the same rows.
normalized="(SELECT o.ordered_at, o.status, sum(i.quantity * i.unit_price) AS total,
                    count(*) AS item_count
             FROM orders o JOIN order_items i USING (order_id) GROUP BY o.order_id) AS n"
differences=$(sql -At -c "SELECT count(*) FROM (($(printf "$report" reporting_orders))
                          EXCEPT ALL ($(printf "$report" "$normalized"))) AS d")
echo "rows that differ from the same report on the normalized tables: $differences"
echo "done"
