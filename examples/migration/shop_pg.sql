-- A small shop in PostgreSQL, normalized the relational way: customers, products, orders and
-- order lines, each fact stored once and joined back together at query time.
-- The data is generated deterministically, so every run prints the same results.

CREATE TABLE customers (
  customer_id integer PRIMARY KEY,
  name        text NOT NULL,
  email       text NOT NULL,
  city        text NOT NULL,
  signed_up   timestamptz NOT NULL
);

CREATE TABLE products (
  product_id integer PRIMARY KEY,
  name       text NOT NULL,
  category   text NOT NULL,
  price      numeric(10, 2) NOT NULL,
  tags       text[] NOT NULL
);

CREATE TABLE orders (
  order_id    integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customers,
  ordered_at  timestamptz NOT NULL,
  status      text NOT NULL
);

CREATE TABLE order_items (
  order_id   integer NOT NULL REFERENCES orders,
  line_no    integer NOT NULL,
  product_id integer NOT NULL REFERENCES products,
  quantity   integer NOT NULL,
  unit_price numeric(10, 2) NOT NULL,
  PRIMARY KEY (order_id, line_no)
);

INSERT INTO customers
SELECT n,
       (ARRAY['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'])[1 + n % 8]
         || ' #' || n,
       'customer' || n || '@example.com',
       (ARRAY['Lyon', 'Paris', 'Nantes', 'Lille'])[1 + n % 4],
       timestamptz '2023-01-01 00:00:00+00' + n * interval '3 days 7 hours'
FROM generate_series(1, 40) AS n;

INSERT INTO products VALUES
  (1, 'Espresso beans 1kg', 'coffee', 24.90, '{coffee,beans}'),
  (2, 'Filter papers', 'coffee', 3.50, '{coffee,paper}'),
  (3, 'Grinder', 'equipment', 89.00, '{equipment,steel}'),
  (4, 'Kettle', 'equipment', 45.00, '{equipment,steel,electric}'),
  (5, 'Green tea 100g', 'tea', 7.80, '{tea}'),
  (6, 'Teapot', 'equipment', 32.00, '{equipment,ceramic}'),
  (7, 'Mug', 'tableware', 9.90, '{tableware,ceramic}'),
  (8, 'Oolong 100g', 'tea', 11.40, '{tea,rare}');

INSERT INTO orders
SELECT 1000 + n,
       1 + (n * 7) % 40,
       timestamptz '2024-01-01 08:00:00+00' + n * interval '9 hours 17 minutes',
       CASE WHEN n % 10 = 0 THEN 'cancelled' WHEN n > 380 THEN 'open' ELSE 'shipped' END
FROM generate_series(1, 400) AS n;

INSERT INTO order_items
SELECT o.order_id, l, 1 + (o.order_id * 3 + l * 5) % 8, 1 + (o.order_id + l) % 3, p.price
FROM orders o
CROSS JOIN generate_series(1, 3) AS l
JOIN products p ON p.product_id = 1 + (o.order_id * 3 + l * 5) % 8
WHERE l <= 1 + o.order_id % 3;
