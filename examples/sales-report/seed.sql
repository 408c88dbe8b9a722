-- The sales table of examples/sales-report: 1,000 rows over 40 customers,
-- each with an e-mail address and a phone number (the PII the censor swaps
-- for tokens before code sees it). Deterministic: the totals are the same on
-- every run. Run with: psql "$SALES_DATABASE_URL" -f examples/sales-report/seed.sql
DROP TABLE IF EXISTS sales;
CREATE TABLE sales (
  id             integer PRIMARY KEY,
  customer       text    NOT NULL,
  customer_email text    NOT NULL,
  customer_phone text    NOT NULL,
  region         text    NOT NULL,
  product        text    NOT NULL,
  amount         numeric(10, 2) NOT NULL,
  sold_on        date    NOT NULL
);
INSERT INTO sales
SELECT n,
       'Customer ' || (n % 40 + 1),
       'customer' || (n % 40 + 1) || '@example.com',
       '+1 415-555-' || lpad((2000 + n % 40)::text, 4, '0'),
       (ARRAY['north', 'south', 'east', 'west'])[n % 4 + 1],
       (ARRAY['widget', 'gadget', 'gizmo', 'doohickey', 'sprocket'])[n % 5 + 1],
       round(((n * 7919) % 50000) / 100.0 + 5, 2),
       DATE '2026-01-01' + (n % 300)
FROM generate_series(1, 1000) AS n;
