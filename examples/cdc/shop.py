"""The example's databases: ``setup`` creates them, ``change`` changes orders, ``check`` compares.

    python examples/cdc/shop.py setup      # MariaDB shop.orders (1,000 orders), PostgreSQL shop.revenue,
                                           # the Kafka topic customer-revenue (empty); forgets an
                                           # earlier run of revenue.sql (run it where you run this)
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
TOPIC = "customer-revenue"  # revenue.sql's upsert-kafka sink
JOB = "cdc-revenue"  # revenue.sql's 'pipeline.name'


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
    _fresh_topic(KAFKA, TOPIC)
    forgot = _forget_the_job(KAFKA)
    print(f"MariaDB shop.orders: 1000 orders; PostgreSQL shop.revenue: empty; Kafka topic '{TOPIC}': empty"
          + (f"; forgot the earlier run of job '{JOB}' ({forgot})" if forgot else ""))


def _forget_the_job(bootstrap: str) -> str:
    """Remove what an earlier run of revenue.sql left, so that it starts afresh on the new databases.

    Its checkpoints (``.streamsql/checkpoints/cdc-revenue``, relative to where ``streamsql run``
    runs: this folder, as in the README) would resume the old state and binlog position: counts
    from the old orders plus the new ones. Its Kafka commit point (the group
    ``streamsql-cdc-revenue-0-progress``) alone would make the job refuse to start (a commit
    point naming a checkpoint the folder lacks). docs/checkpointing.md, "Job identity".

    Returns:
        what was removed ("" when nothing was there).
    """
    import shutil

    from confluent_kafka.admin import AdminClient

    removed = []
    folder = os.path.join(".streamsql", "checkpoints", JOB)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
        removed.append(folder)
    group = f"streamsql-{JOB}-0-progress"  # <transactional-id prefix>-<pipeline.name>-<task>-progress
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 4})
    if group in {g.group_id for g in admin.list_consumer_groups().result().valid}:
        admin.delete_consumer_groups([group])[group].result()
        removed.append(f"Kafka group {group}")
    return ", ".join(removed)


def _fresh_topic(bootstrap: str, topic: str) -> None:
    """(Re)create the job's upsert topic, compacted and empty: StreamSQL never creates a topic it
    writes unless the table says 'sink.topic.auto-create', and an old run's records would be
    folded into the check."""
    import time

    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 4})
    if topic in admin.list_topics(timeout=10).topics:
        admin.delete_topics([topic])[topic].result()
    for _ in range(100):  # the deletion completes in the background
        try:
            admin.create_topics([NewTopic(topic, 1, 1, config={"cleanup.policy": "compact"})])[topic].result()
            return
        except Exception as e:
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise
            time.sleep(0.1)
    msg = f"topic '{topic}' is still being deleted; run setup again"
    raise SystemExit(msg)


def change(seconds: float) -> None:
    done = threading.Event()
    run_workload(MARIADB, "shop", seconds, done, seed=1, rows=1000)
    print(f"changed orders for {seconds:g} s")


def check(wait: float = 30.0) -> int:
    """Compare both outputs with MariaDB's GROUP BY; the job commits each second, so give it up to
    ``wait`` seconds to catch up with the last changes before calling an output different."""
    import time

    deadline = time.monotonic() + wait
    while True:
        expected = expected_revenue(MARIADB, "shop")
        kafka, pg = kafka_revenue(KAFKA, TOPIC), postgres_revenue(POSTGRES, "shop")
        if kafka == expected == pg or time.monotonic() > deadline:
            break
        time.sleep(1)
    print(f"customers: MariaDB {len(expected)}, Kafka {len(kafka)}, PostgreSQL {len(pg)}; "
          f"Kafka {'equal' if kafka == expected else 'DIFFERENT'}, "
          f"PostgreSQL {'equal' if pg == expected else 'DIFFERENT'}")
    return 0 if kafka == expected == pg else 1


def main(argv: list[str]) -> int:
    """Run one command; 2 with the usage for anything else (``--help`` ran ``check``)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Run all three from the folder where you run revenue.sql.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("setup", help="create the databases and the topic; forget an earlier run of revenue.sql")
    sub.add_parser("change", help="change orders for SECONDS").add_argument("seconds", nargs="?", type=float,
                                                                            default=10.0)
    sub.add_parser("check", help="compare the Kafka topic and the PostgreSQL table with MariaDB")
    args = parser.parse_args(argv)
    if args.cmd != "setup" and not _has_shop(MARIADB):
        print(f"MariaDB at {MARIADB} has no database 'shop': run `python examples/cdc/shop.py setup` first",
              file=sys.stderr)
        return 1
    if args.cmd == "setup":
        setup()
    elif args.cmd == "change":
        change(args.seconds)
    else:
        return check()
    return 0


def _has_shop(address: str) -> bool:
    """Whether ``setup`` made the database (``change`` and ``check`` failed with a traceback)."""
    with mysql(address) as c, c.cursor() as cur:
        return bool(cur.execute("SHOW DATABASES LIKE 'shop'"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
