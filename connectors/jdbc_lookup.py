"""The ``jdbc`` table as a lookup source: the dimension side of a processing-time lookup join.

``JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d ON o.k = d.id`` reads ``dim`` (a ``jdbc`` table over
PostgreSQL or MySQL/MariaDB, see :mod:`streamsql.connectors.jdbc`) by key, as Flink's JDBC
lookup source: the keys of one input batch are looked up in **one** query
(``SELECT cols FROM t WHERE id IN (...)``, or ``(a, b) IN ((...), ...)`` for several key
columns; at most :data:`MAX_KEYS_PER_QUERY` keys per statement), in autocommit, so every lookup
sees the table as committed at that moment. A failed query is retried on a new connection up to
``'lookup.max-retries'`` times (Flink's default 3), then the job fails naming the table.
Caching (``'lookup.cache'``) is the runtime's (:mod:`streamsql.runtime.operators.lookup_join`).
"""

from __future__ import annotations

import datetime as dt
import time

from streamsql.connectors.jdbc import Dialect, close_quietly, parse_target, time_of_day

from streamsql.core.connector import ConnectorContext, LookupSource
from streamsql.core.errors import ConfigError, ExecutionError

#: Keys per lookup statement (a batch with more runs several statements).
MAX_KEYS_PER_QUERY = 1000


class JdbcLookup(LookupSource):
    """See module docstring.

    Args:
        ctx: the dimension table and the engine configuration.
        key_columns: the columns looked up by (physical columns of the table).
    """

    def __init__(self, ctx: ConnectorContext, key_columns: list[str]):
        self.target = parse_target(ctx.table)
        self.dialect = Dialect(self.target, ctx.table)
        self.retries = int(ctx.table.options.get("lookup.max-retries", "3"))
        pg = self.target.dialect == "postgresql"
        self._quote = (lambda s: s) if pg else (lambda s: "`" + s.replace("`", "``") + "`")
        self._select = self.dialect.probe.replace(" WHERE 1 = 0", "")
        self._keys = [self._quote(k) for k in key_columns]
        self._conn = None

    def open(self) -> None:
        """Connect (autocommit: each lookup reads the committed table) and check the table exists."""
        self._connect()
        self._run(self.dialect.probe, [])

    def _connect(self) -> None:
        self._conn = self.dialect.connect()
        if self.target.dialect == "postgresql":
            self._conn.autocommit = True
        else:
            self._conn.autocommit(True)

    def _statement(self, n: int) -> str:
        if len(self._keys) == 1:
            return f"{self._select} WHERE {self._keys[0]} IN ({', '.join(['%s'] * n)})"
        row = "(" + ", ".join(["%s"] * len(self._keys)) + ")"
        return f"{self._select} WHERE ({', '.join(self._keys)}) IN ({', '.join([row] * n)})"

    def lookup(self, keys: list[tuple]) -> list[tuple]:
        """The rows of ``keys`` (see module docstring)."""
        rows: list[tuple] = []
        for i in range(0, len(keys), MAX_KEYS_PER_QUERY):
            chunk = keys[i:i + MAX_KEYS_PER_QUERY]
            rows += self._run(self._statement(len(chunk)), [v for k in chunk for v in k])
        return rows

    def _run(self, sql: str, params: list) -> list[tuple]:
        attempt = 0
        while True:
            try:
                if self._conn is None:
                    self._connect()
                with self._conn.cursor() as cur:
                    cur.execute(sql, params)
                    return [tuple(time_of_day(v) if isinstance(v, dt.timedelta) else v for v in r)
                            for r in cur.fetchall()]  # a MySQL TIME is a timedelta: its time of day
            except ConfigError:
                raise
            except Exception as e:
                # a failed reconnect's error is already ours, naming the table: not wrapped again;
                # a driver's is read before closing (it may read the table's columns)
                error = e if isinstance(e, ExecutionError) else self.dialect.error(e, self._conn)
                self.close()
                if attempt >= self.retries or isinstance(error, ConfigError):
                    raise error from None
            attempt += 1
            time.sleep(min(0.5 * attempt, 5.0))

    def close(self) -> None:
        """Close the connection."""
        close_quietly(self._conn)
        self._conn = None
