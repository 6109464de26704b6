"""Fixtures for tests against real database servers: MariaDB (mysql-cdc) and PostgreSQL (jdbc).

``mariadb`` uses ``STREAMSQL_MARIADB`` (``host:port``) when set, otherwise runs
``scripts/mariadb-local.sh start``; ``postgres`` the same with ``STREAMSQL_POSTGRES`` and
``scripts/postgres-local.sh``. Both scripts are idempotent and leave the server running after
the session, like the Kafka broker. Each test gets a fresh database (``mariadb_db``,
``postgres_db``), dropped afterwards.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from tests.local_services import local_service

__all__ = ["DB_PASSWORD", "DB_USER", "DbServer", "database_with", "mariadb", "mariadb_db", "postgres",
           "postgres_db"]

#: The fixed test credentials of scripts/mariadb-local.sh and scripts/postgres-local.sh.
DB_USER = "streamsql"
DB_PASSWORD = "streamsql-test-password"


@dataclass
class DbServer:
    """A running server and, for a test, the database it owns."""

    host: str
    port: int
    database: str = ""

    def mysql(self, **kw):
        """A pymysql connection (autocommit) to the database."""
        import pymysql

        return pymysql.connect(host=self.host, port=self.port, user=DB_USER, password=DB_PASSWORD,
                               database=self.database or None, autocommit=True, **kw)

    def pg(self):
        """A psycopg connection (autocommit) to the database."""
        import psycopg

        return psycopg.connect(host=self.host, port=self.port, user=DB_USER, password=DB_PASSWORD,
                               dbname=self.database or "postgres", autocommit=True)


def _start(script: str, env_key: str) -> DbServer:
    host, port = local_service(script, env_key).rsplit(":", 1)
    return DbServer(host, int(port))

@pytest.fixture(scope="session")
def mariadb() -> DbServer:
    """The MariaDB server (row-based binlog), started if needed."""
    return _start("mariadb-local.sh", "STREAMSQL_MARIADB")


@pytest.fixture(scope="session")
def postgres() -> DbServer:
    """The PostgreSQL server, started if needed."""
    return _start("postgres-local.sh", "STREAMSQL_POSTGRES")


@pytest.fixture
def mariadb_db(mariadb: DbServer):
    """A fresh MariaDB database for one test (dropped afterwards)."""
    name = f"t_{uuid.uuid4().hex[:10]}"
    with mariadb.mysql() as c, c.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name}")
    yield DbServer(mariadb.host, mariadb.port, name)
    with mariadb.mysql() as c, c.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.fixture
def postgres_db(postgres: DbServer):
    """A fresh PostgreSQL database for one test (dropped afterwards)."""
    name = f"t_{uuid.uuid4().hex[:10]}"
    with postgres.pg() as c:
        c.execute(f"CREATE DATABASE {name}")
    yield DbServer(postgres.host, postgres.port, name)
    with postgres.pg() as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def database_with(request, kind: str, ddl: str) -> DbServer:
    """A fresh database of ``kind`` (``postgresql`` or ``mariadb``: the jdbc URL's name) after ``ddl``."""
    db = request.getfixturevalue("postgres_db" if kind == "postgresql" else "mariadb_db")
    if kind == "postgresql":
        with db.pg() as c:
            c.execute(ddl)
    else:
        with db.mysql() as c, c.cursor() as cur:
            cur.execute(ddl)
    return db
