"""Helpers for the mysql-cdc and jdbc tests: DDL for the test servers, waiting for an outcome."""

from __future__ import annotations

import time
import uuid

from tests.db_fixtures import DB_PASSWORD, DB_USER, DbServer
from tests.integration.test_flights import fold_upserts, read_committed


def cdc_options(db: DbServer, table: str, **extra: str) -> str:
    """The WITH options of a mysql-cdc table over ``db.table`` (a unique server-id)."""
    opts = {"connector": "mysql-cdc", "hostname": db.host, "port": str(db.port), "username": DB_USER,
            "password": DB_PASSWORD, "database-name": db.database, "table-name": table,
            "server-id": str(5400 + uuid.uuid4().int % 100000), **extra}
    return ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())


def upsert_kafka_options(bootstrap: str, topic: str) -> str:
    """The WITH options of an upsert-kafka table with JSON key and value."""
    return (f"'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = "
            f"'{bootstrap}', 'key.format' = 'json', 'value.format' = 'json'")


def kafka_table(bootstrap: str, topic: str) -> dict:
    """The committed upsert table of ``topic``: key tuple -> value dict."""
    return fold_upserts(read_committed(bootstrap, topic))


def wait_for(check, timeout_s: float = 60, what: str = "the expected outcome"):
    """Call ``check()`` until it returns a truthy value; that value (AssertionError after the timeout)."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.3)
    msg = f"timed out after {timeout_s}s waiting for {what}; last: {last!r}"
    raise AssertionError(msg)


def execute(db: DbServer, *statements: str, args=None) -> None:
    """Run statements on MariaDB in one transaction."""
    with db.mysql() as c, c.cursor() as cur:
        cur.execute("BEGIN")
        for s in statements:
            cur.execute(s, args)
        cur.execute("COMMIT")
