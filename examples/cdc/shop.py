"""The example's databases: ``setup`` creates them, ``change`` changes orders, ``check`` compares.

    python examples/cdc/shop.py setup      # MariaDB shop.orders (1,000 orders), PostgreSQL shop.revenue,
                                           # the Kafka topic customer-revenue (empty); forgets an
                                           # earlier run of revenue.sql (run it where you run this)
    python examples/cdc/shop.py change 10  # 10 s of inserts, updates, key changes and deletes
    python examples/cdc/shop.py check      # Kafka topic and PostgreSQL table vs MariaDB's GROUP BY

On servers others use too, give every command the same ``--name NAME``: the databases are
``shop_NAME``, the topic ``customer-revenue-NAME``, the job ``cdc-revenue-NAME`` with a binlog
``server-id`` of its own, and ``setup`` writes ``revenue-NAME.sql`` (revenue.sql with those
names) into the folder to run instead: ``streamsql run revenue-NAME.sql``.

Servers: ``scripts/mariadb-local.sh start``, ``scripts/postgres-local.sh start``,
``scripts/kafka-local.sh start`` (or STREAMSQL_MARIADB, STREAMSQL_POSTGRES,
STREAMSQL_KAFKA_BOOTSTRAP).
"""

import os
import sys
import threading
import zlib

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
DATABASE = "shop"  # revenue.sql's MariaDB and PostgreSQL database
SERVER_ID = 5501  # revenue.sql's binlog 'server-id'
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "revenue.sql")


class Names:
    """The example's names: revenue.sql's, or with ``--name NAME`` a set of the run's own."""

    def __init__(self, name: str | None = None):
        if name is not None and not name.replace("_", "").isalnum():
            msg = f"--name takes letters, digits and '_' (a database name): {name!r}"
            raise SystemExit(msg)
        suffix = f"_{name}" if name else ""
        self.name = name
        self.database = DATABASE + suffix
        self.topic = TOPIC + (f"-{name}" if name else "")
        self.job = JOB + (f"-{name}" if name else "")
        # MariaDB refuses a second binlog reader with the same server-id: one per name
        self.server_id = SERVER_ID + (1 + zlib.crc32(name.encode()) % 100_000 if name else 0)

    def script(self) -> str:
        """revenue.sql with these names (itself without ``--name``)."""
        with open(SCRIPT) as f:
            text = f.read()
        if not self.name:
            return text
        for old, new in ((f"'{JOB}'", f"'{self.job}'"), (f"'{TOPIC}'", f"'{self.topic}'"),
                         (f"'database-name' = '{DATABASE}'", f"'database-name' = '{self.database}'"),
                         (f":5432/{DATABASE}'", f":5432/{self.database}'"),
                         (f"'server-id' = '{SERVER_ID}'", f"'server-id' = '{self.server_id}'")):
            if old not in text:  # revenue.sql changed: say so rather than share a name
                msg = f"revenue.sql no longer contains {old}; update examples/cdc/shop.py"
                raise SystemExit(msg)
            text = text.replace(old, new)
        return text


def setup(names: Names) -> None:
    db = names.database
    with mysql(MARIADB) as c, c.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {db}")
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(f"USE {db}")
        load_orders(cur, 1000)
    with postgres(POSTGRES) as c:
        c.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        c.execute(f"CREATE DATABASE {db}")
    with postgres(POSTGRES, db) as c:
        c.execute("CREATE TABLE revenue (customer INT PRIMARY KEY, orders BIGINT NOT NULL, "
                  "revenue DECIMAL(38, 2), last_placed TIMESTAMP(6))")
    _fresh_topic(KAFKA, names.topic)
    forgot = _forget_the_job(KAFKA, names.job)
    run = "revenue.sql"
    if names.name:
        run = f"revenue-{names.name}.sql"
        with open(run, "w") as f:
            f.write(names.script())
    print(f"MariaDB {db}.orders: 1000 orders; PostgreSQL {db}.revenue: empty; Kafka topic '{names.topic}': "
          f"empty" + (f"; forgot the earlier run of job '{names.job}' ({forgot})" if forgot else "")
          + (f"; wrote {run}: run it with streamsql run {run}" if names.name else ""))


def _forget_the_job(bootstrap: str, job: str) -> str:
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
    folder = os.path.join(".streamsql", "checkpoints", job)
    if os.path.isdir(folder):
        shutil.rmtree(folder)
        removed.append(folder)
    group = f"streamsql-{job}-0-progress"  # <transactional-id prefix>-<pipeline.name>-<task>-progress
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


def change(names: Names, seconds: float) -> None:
    done = threading.Event()
    run_workload(MARIADB, names.database, seconds, done, seed=1, rows=1000)
    print(f"changed orders for {seconds:g} s")


def check(names: Names, wait: float = 30.0) -> int:
    """Compare both outputs with MariaDB's GROUP BY; the job commits each second, so give it up to
    ``wait`` seconds to catch up with the last changes before calling an output different."""
    import time

    deadline = time.monotonic() + wait
    while True:
        expected = expected_revenue(MARIADB, names.database)
        kafka, pg = kafka_revenue(KAFKA, names.topic), postgres_revenue(POSTGRES, names.database)
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
    name_help = "run the example under names of its own (servers others use too)"
    # before or after the command (`shop.py --name x setup` is as natural to type as `setup --name x`);
    # SUPPRESS keeps a command's default from overwriting a --name given before it
    parser.add_argument("--name", help=name_help)
    for command in sub.choices.values():
        command.add_argument("--name", help=name_help, default=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = Names(args.name)
    if args.cmd != "setup" and not _has_shop(MARIADB, names.database):
        again = " --name " + args.name if args.name else ""
        print(f"MariaDB at {MARIADB} has no database '{names.database}': run `python examples/cdc/shop.py "
              f"setup{again}` first", file=sys.stderr)
        return 1
    if args.cmd == "setup":
        setup(names)
    elif args.cmd == "change":
        change(names, args.seconds)
    else:
        return check(names)
    return 0


def _has_shop(address: str, database: str = DATABASE) -> bool:
    """Whether ``setup`` made the database (``change`` and ``check`` failed with a traceback)."""
    with mysql(address) as c, c.cursor() as cur:
        return bool(cur.execute("SHOW DATABASES LIKE %s", (database,)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
