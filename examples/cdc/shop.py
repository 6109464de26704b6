"""The example's databases: ``setup`` creates them, ``change`` changes orders, ``check`` compares.

    python examples/cdc/shop.py setup      # MariaDB shop.orders (1,000 orders), PostgreSQL shop.revenue
    python examples/cdc/shop.py change 10  # 10 s of inserts, updates, key changes and deletes
    python examples/cdc/shop.py check      # Kafka topic and PostgreSQL table vs MariaDB's GROUP BY

Servers: ``scripts/mariadb-local.sh start``, ``scripts/postgres-local.sh start``,
``scripts/kafka-local.sh start`` (or STREAMSQL_MARIADB, STREAMSQL_POSTGRES,
STREAMSQL_KAFKA_BOOTSTRAP).
"""

import os
import sys
import threading

from streamsql.testing.chaos_cdc import (
    expected_revenue,
    kafka_revenue,
    load_orders,
    mysql,
    postgres,
    postgres_revenue,
    run_workload,
)

MARIADB = os.environ.get("STREAMSQL_MARIADB", "127.0.0.1:3306")
POSTGRES = os.environ.get("STREAMSQL_POSTGRES", "127.0.0.1:5432")
KAFKA = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")


def setup() -> None:
    with mysql(MARIADB) as c, c.cursor() as cur:
        cur.execute("DROP DATABASE IF EXISTS shop")
        cur.execute("CREATE DATABASE shop")
        cur.execute("USE shop")
        load_orders(cur, 1000)
    with postgres(POSTGRES) as c:
        c.execute("DROP DATABASE IF EXISTS shop WITH (FORCE)")
        c.execute("CREATE DATABASE shop")
    with postgres(POSTGRES, "shop") as c:
        c.execute("CREATE TABLE revenue (customer INT PRIMARY KEY, orders BIGINT NOT NULL, "
                  "revenue DECIMAL(38, 2), last_placed TIMESTAMP(6))")
    print("MariaDB shop.orders: 1000 orders; PostgreSQL shop.revenue: empty")


def change(seconds: float) -> None:
    done = threading.Event()
    run_workload(MARIADB, "shop", seconds, done, seed=1, rows=1000)
    print(f"changed orders for {seconds:g} s")


def check() -> int:
    expected = expected_revenue(MARIADB, "shop")
    kafka, pg = kafka_revenue(KAFKA, "customer-revenue"), postgres_revenue(POSTGRES, "shop")
    print(f"customers: MariaDB {len(expected)}, Kafka {len(kafka)}, PostgreSQL {len(pg)}; "
          f"Kafka {'equal' if kafka == expected else 'DIFFERENT'}, "
          f"PostgreSQL {'equal' if pg == expected else 'DIFFERENT'}")
    return 0 if kafka == expected == pg else 1


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "setup":
        setup()
    elif cmd == "change":
        change(float(sys.argv[2]) if len(sys.argv) > 2 else 10.0)
    else:
        sys.exit(check())
