"""The ``jdbc`` sink: rows into a MySQL/MariaDB or PostgreSQL table, with Flink's option names.

A ``jdbc`` table is also the dimension table of a processing-time lookup join
(:mod:`streamsql.connectors.jdbc_lookup`, options ``'lookup.*'``).

``'url'`` is a JDBC URL — ``jdbc:mysql://host[:port]/db``, ``jdbc:mariadb://...`` (written with
pymysql) or ``jdbc:postgresql://host[:port]/db`` (psycopg) — and ``'table-name'`` the table
(``schema.table`` for PostgreSQL). As Flink's JDBC sink, identifiers are quoted with backquotes
for MySQL and left as written for PostgreSQL.

With a ``PRIMARY KEY`` (upsert mode, as Flink): +I/+U rows are upserted (``INSERT ... ON
DUPLICATE KEY UPDATE`` / ``INSERT ... ON CONFLICT (key) DO UPDATE``), -D and -U rows deleted by
key (as Flink's upsert writer: a -U that no +U of its key follows is a row that left the result).
Rows are buffered and reduced per key (a key's last change wins) and flushed
in one database transaction — at every checkpoint barrier (``pre_commit``), at the end of
input, and earlier when ``'sink.buffer-flush.max-rows'`` keys are buffered or
``'sink.buffer-flush.interval'`` has passed. A failed flush is rolled back and retried up to
``'sink.max-retries'`` times on a new connection. Guarantee: a flush commits before the
checkpoint does, so after a failure the job replays from its last checkpoint and writes the same
changes again; upserts and deletes by key are idempotent, so the table is exact once the replay
has caught up (Flink's "idempotent writes"; EXPLAIN says at-least-once, with this reason).

Without a primary key (append mode): only insert-only results are accepted (planning fails for
an updating one); rows are INSERTed in each flush; rows replayed after a failure are inserted
again (at-least-once).
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from streamsql.connectors.registry import register, validate_options

from streamsql.core.catalog import TableDef
from streamsql.core.config import duration_ms
from streamsql.core.connector import (
    OPT_SINK_PARALLELISM,
    ConnectorContext,
    ConnectorSpec,
    OptionSpec,
    Sink,
    SinkGuarantee,
)
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.py_values import below_micros, user_values
from streamsql.core.secrets import redact, remember

OPTIONS = [
    OptionSpec("connector", required=True, description="'jdbc'"),
    OptionSpec("url", required=True,
               description="jdbc:mysql://, jdbc:mariadb:// or jdbc:postgresql://host:port/db"),
    OptionSpec("table-name", required=True, description="the table to write"),
    OptionSpec("username", description="the database user"),
    OptionSpec("password", description="the user's password"),
    OptionSpec("driver", description="accepted (the driver follows the URL)"),
    OptionSpec("sink.buffer-flush.max-rows", default="100",
               description="flush when this many keys are buffered"),
    OptionSpec("sink.buffer-flush.interval", default="1s", description="flush when this long has passed"),
    OptionSpec("sink.max-retries", default="3", description="retries of a failed flush"),
    OPT_SINK_PARALLELISM,
    OptionSpec("connection.max-retry-timeout", default="60s", description="accepted"),
    # as a lookup join's dimension table (connectors/jdbc_lookup.py; the cache is the runtime's)
    OptionSpec("lookup.cache", default="NONE", description="NONE or PARTIAL: cache looked-up keys"),
    OptionSpec("lookup.partial-cache.max-rows", description="PARTIAL: keys kept (least recently used out)"),
    OptionSpec("lookup.partial-cache.expire-after-write", description="PARTIAL: a key expires this long "
                                                                       "after its lookup"),
    OptionSpec("lookup.partial-cache.expire-after-access", description="PARTIAL: a key expires this long "
                                                                        "after its last use"),
    OptionSpec("lookup.partial-cache.cache-missing-key", default="true",
               description="PARTIAL: cache that a key has no row too"),
    OptionSpec("lookup.max-retries", default="3", description="retries of a failed lookup query"),
]

_UPSERT_REASON = ("jdbc upserts and deletes by primary key in one database transaction per flush, at "
                  "least at every checkpoint; changes replayed after a failure are written again, "
                  "idempotently: the table is exact (effectively exactly-once)")
_APPEND_REASON = ("jdbc without a primary key appends: rows replayed after a failure are inserted again "
                  "(at-least-once)")


def time_of_day(v: dt.timedelta | dt.time) -> dt.time:
    """A database TIME value as a time of day in milliseconds (Flink's TIME).

    pymysql and the binlog give MySQL's TIME as a ``timedelta`` (possibly negative or past a
    day: taken modulo a day), psycopg PostgreSQL's ``time`` as a ``datetime.time``.
    """
    if isinstance(v, dt.time):
        return v.replace(microsecond=v.microsecond // 1000 * 1000)
    ms = (v // dt.timedelta(milliseconds=1)) % 86_400_000
    return dt.time(ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000 * 1000)


@dataclass(frozen=True)
class Target:
    """Where a jdbc table writes: the dialect (``mysql`` or ``postgresql``) and the connection.

    ``server`` is the URL's name of the database (``mysql``, ``mariadb`` or ``postgresql``), for
    messages; ``dialect`` the SQL spoken (``mysql`` for both MySQL and MariaDB).
    """

    dialect: str
    host: str
    port: int
    database: str
    user: str | None
    password: str | None
    table: str
    server: str = ""


def parse_target(table: TableDef) -> Target:
    """The table's URL and credentials, checked.

    Raises:
        ConfigError: for an unknown option or a URL that is not a MySQL/MariaDB/PostgreSQL one.
    """
    validate_options(SPEC, table.options, table.name)
    o = table.options
    remember(o)
    url = o["url"]
    m = re.fullmatch(r"jdbc:(mysql|mariadb|postgresql)://(.+)", url.strip())
    if m is None:
        msg = (f"Table '{table.name}': option 'url' = '{redact(url)}' is not a jdbc:mysql://, "
               "jdbc:mariadb:// or jdbc:postgresql:// URL")
        raise ConfigError(msg)
    kind = "postgresql" if m.group(1) == "postgresql" else "mysql"
    parts = urlsplit("//" + m.group(2))
    database = parts.path.lstrip("/")
    if not parts.hostname or not database:
        msg = (f"Table '{table.name}': option 'url' needs a host and a database: "
               f"jdbc:{m.group(1)}://host:port/db")
        raise ConfigError(msg)
    return Target(kind, parts.hostname, parts.port or (5432 if kind == "postgresql" else 3306), database,
                  o.get("username"), o.get("password"), o["table-name"], m.group(1))


class Dialect:
    """SQL and errors of one database (quoting as Flink's JDBC dialects)."""

    def __init__(self, target: Target, table: TableDef):
        self.t, self.name = target, table.name
        self.cols = table.physical_schema.names
        self.key = list(table.primary_key)
        pg = target.dialect == "postgresql"
        q = (lambda s: s) if pg else (lambda s: "`" + s.replace("`", "``") + "`")
        self.qt = qt = target.table if pg else ".".join(q(p) for p in target.table.split("."))
        cols = ", ".join(q(c) for c in self.cols)
        marks = ", ".join(["%s"] * len(self.cols))
        insert = f"INSERT INTO {qt} ({cols}) VALUES ({marks})"
        rest = [c for c in self.cols if c not in self.key] or self.key
        if pg:
            sets = ", ".join(f"{q(c)} = EXCLUDED.{q(c)}" for c in rest)
            self.upsert = f"{insert} ON CONFLICT ({', '.join(q(k) for k in self.key)}) DO UPDATE SET {sets}"
        else:
            sets = ", ".join(f"{q(c)} = VALUES({q(c)})" for c in rest)
            self.upsert = f"{insert} ON DUPLICATE KEY UPDATE {sets}"
        self.insert = insert
        self.delete = f"DELETE FROM {qt} WHERE " + " AND ".join(f"{q(k)} = %s" for k in self.key)
        self.probe = f"SELECT {cols} FROM {qt} WHERE 1 = 0"

    def connect(self):
        """A connection outside autocommit (one transaction per flush)."""
        t = self.t
        try:
            if t.dialect == "postgresql":
                import psycopg

                return psycopg.connect(host=t.host, port=t.port, dbname=t.database, user=t.user,
                                       password=t.password, connect_timeout=30)
            import pymysql

            return pymysql.connect(host=t.host, port=t.port, database=t.database, user=t.user,
                                   password=t.password, autocommit=False, charset="utf8mb4",
                                   connect_timeout=30)
        except Exception as e:
            raise self.error(e) from None

    def check_table(self, conn) -> None:
        """Run the probe on ``conn``: the table and every declared column exist (nothing is read).

        Raises:
            ConfigError: login, database, table or a column is wrong (see :meth:`error`).
            ExecutionError: another failure.
        """
        try:
            with conn.cursor() as cur:
                cur.execute(self.probe)
        except Exception as e:
            raise self.error(e, conn) from None

    def error(self, e: Exception, conn=None) -> Exception:
        """The error for a failed connection or statement, naming the option to fix; secrets masked.

        Args:
            e: the driver's exception.
            conn: the connection the statement failed on, if it is still open: for an unknown
                column, the table's columns are read on it to name the declared ones it lacks.
        """
        text = redact(str(e).strip())
        where = (f"Table '{self.name}': the {self.t.server or self.t.dialect} table '{self.t.table}' at "
                 f"{self.t.host}:{self.t.port}")
        # pymysql's errors carry the server's errno first (and a generic SQLSTATE: 42S22, 42000
        # ...), psycopg's a precise SQLSTATE
        code = e.args[0] if e.args and isinstance(e.args[0], int) else getattr(e, "sqlstate", None)
        if code in (1045, 1044, "28P01", "28000") or "password authentication failed" in text:
            msg = f"{where}: login refused ({text}); check the options 'username' and 'password'"
            return ConfigError(msg)
        if code in (1049, "3D000"):
            msg = f"{where}: unknown database ({text}); check the option 'url'"
            return ConfigError(msg)
        if code in (1146, "42P01"):
            msg = f"{where} does not exist; check the option 'table-name' (or create the table)"
            return ConfigError(msg)
        if code in (1054, "42703"):
            return ConfigError(self._missing_columns(where, text, conn))
        msg = f"{where}: {text}"
        return ExecutionError(msg)

    def _missing_columns(self, where: str, text: str, conn) -> str:
        """The message for an unknown column: the declared columns the table lacks, and its own."""
        have = self._columns(conn) if conn is not None else None
        if have:
            # names as the statements write them: MySQL's are case-insensitive, PostgreSQL folds
            # an unquoted name to lower case
            pg = self.t.dialect == "postgresql"
            known = set(have) if pg else {c.lower() for c in have}
            missing = [c for c in self.cols if c.lower() not in known]
            if missing:
                names = ", ".join(f"'{c}'" for c in missing)
                return (f"{where} has no column{'s' if len(missing) > 1 else ''} {names}, declared in "
                        f"CREATE TABLE {self.name} (its columns: {', '.join(have)}); declare the "
                        "database's column names, or check the option 'table-name'")
        m = re.search(r"""(?:Unknown column|column) ['"`]?([^'"`\s]+)['"`]?""", text)
        named = f" '{m.group(1)}'" if m else ""
        return (f"{where} has no column{named} of those declared in CREATE TABLE {self.name}; declare the "
                "database's column names, or check the option 'table-name'")

    def _columns(self, conn) -> list[str] | None:
        """The table's columns as the database names them, in its order; None if they cannot be read."""
        try:
            conn.rollback()  # a failed statement aborted the transaction (PostgreSQL)
            with conn.cursor() as cur:
                cur.execute(f"SELECT * FROM {self.qt} WHERE 1 = 0")
                names = [d[0] for d in cur.description or ()]
            conn.rollback()
        except Exception:
            return None
        return names


def close_quietly(conn) -> None:
    """Close a connection (or None), ignoring errors: the server may be gone."""
    if conn is not None:
        try:
            conn.close()
        except Exception:  # noqa: S110 -- the server may be gone
            pass


class JdbcSink(Sink):
    """See module docstring."""

    def __init__(self, ctx: ConnectorContext):
        self.ctx = ctx
        self.target = parse_target(ctx.table)
        self.dialect = Dialect(self.target, ctx.table)
        self.upsert_mode = bool(ctx.table.primary_key)
        self.accepts_updates = self.requires_primary_key = self.upsert_mode
        self.guarantee_reason = _UPSERT_REASON if self.upsert_mode else _APPEND_REASON
        o = ctx.table.options
        self.max_rows = int(o.get("sink.buffer-flush.max-rows", "100"))
        interval = o.get("sink.buffer-flush.interval", "1s")
        self.interval_s = duration_ms(interval, "sink.buffer-flush.interval") / 1000
        self.retries = int(o.get("sink.max-retries", "3"))
        names = ctx.table.physical_schema.names
        self._key_idx = [names.index(k) for k in ctx.table.primary_key]
        self._buffer: dict = {}  # upsert: key -> (kind, row); append: index -> row
        self._conn = None
        self._last_flush = time.monotonic()

    def open(self) -> None:
        """Connect and check that the table and its columns exist."""
        self._conn = self.dialect.connect()
        try:
            self.dialect.check_table(self._conn)
            self._conn.rollback()
        except Exception as e:
            # an open transaction would hold the table's metadata lock (MariaDB) until the job closes
            error = e if isinstance(e, (ConfigError, ExecutionError)) else self.dialect.error(e)
            self._drop_connection()
            raise error from None

    def write(self, batch: Batch) -> None:
        """Buffer the rows (reduced per key in upsert mode); flush when the buffer is full or old."""
        if batch.num_rows == 0:
            return
        cols = [_driver_values(c, n) for c, n in zip(batch.table.columns, batch.table.column_names)]
        rows = list(zip(*cols))
        if self.upsert_mode:
            gone = (RowKind.DELETE, RowKind.UPDATE_BEFORE)
            for kind, row in zip(batch.kind_array(), rows):
                self._buffer[tuple(row[i] for i in self._key_idx)] = (kind in gone, row)
        else:
            for row in rows:
                self._buffer[len(self._buffer)] = (False, row)
        if len(self._buffer) >= self.max_rows or (
                self.interval_s > 0 and time.monotonic() - self._last_flush >= self.interval_s):
            self._flush()

    def _flush(self) -> None:
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        deletes = [tuple(row[i] for i in self._key_idx) for d, row in self._buffer.values() if d]
        writes = [row for d, row in self._buffer.values() if not d]
        for attempt in range(self.retries + 1):
            try:
                if self._conn is None:
                    self._conn = self.dialect.connect()
                with self._conn.cursor() as cur:
                    if deletes:
                        cur.executemany(self.dialect.delete, deletes)
                    if writes:
                        sql = self.dialect.upsert if self.upsert_mode else self.dialect.insert
                        cur.executemany(sql, writes)
                self._conn.commit()
                break
            except ConfigError:
                raise
            except Exception as e:
                self._drop_connection()
                if attempt == self.retries:
                    raise self.dialect.error(e) from None
                time.sleep(min(1.0 * (attempt + 1), 5.0))
        self._buffer = {}

    def _drop_connection(self) -> None:
        close_quietly(self._conn)
        self._conn = None

    def pre_commit(self, checkpoint_id: int) -> None:
        """At a checkpoint barrier: flush the buffer in one transaction."""
        self._flush()

    def finish(self) -> None:
        """End of input: flush."""
        self._flush()

    def close(self) -> None:
        """Close the connection (what was not flushed is replayed from the last checkpoint)."""
        self._drop_connection()


def _check(table: TableDef, config: dict[str, str]) -> None:
    """Check the URL and options; refuse a BITMAP column, which no JDBC dialect of Flink 2.3 maps.

    Raises:
        ConfigError: naming the table (and the column).
    """
    parse_target(table)
    for f in table.physical_schema.fields:
        if f.type.name == "BITMAP":
            msg = (f"Table '{table.name}': the jdbc connector doesn't support type: BITMAP (column "
                   f"'{f.name}'); write BITMAP_TO_BYTES or BITMAP_TO_STRING of it")
            raise ConfigError(msg)


def _create_lookup(ctx: ConnectorContext, key_columns: list[str]):
    from streamsql.connectors.jdbc_lookup import JdbcLookup  # it builds on this module

    return JdbcLookup(ctx, key_columns)


SPEC = register(
    ConnectorSpec(
        name="jdbc",
        options=OPTIONS,
        create_sink=JdbcSink,
        description="a MySQL/MariaDB or PostgreSQL table (upsert by primary key, or append)",
        check_sink=_check,
        check_source=_check,  # read as a lookup join's dimension table
        sink_accepts_updates=lambda table: bool(table.primary_key),
        sink_upserts=lambda table: bool(table.primary_key),  # by key: a -U is a delete (write)
        sink_always_upserts=lambda table: True,  # Flink's JdbcDynamicTableSink: always I/UA/D
        sink_guarantee=lambda table, config: SinkGuarantee(
            reason=_UPSERT_REASON if table.primary_key else _APPEND_REASON),
        create_lookup=_create_lookup,
    )
)


def _driver_values(col, name: str) -> list:
    """A column's Python values for the database driver (a TIMESTAMP(7..9) as a ``datetime``).

    Raises:
        ExecutionError: a TIMESTAMP(7..9) value with digits below the microsecond, which neither a
            PostgreSQL nor a MariaDB timestamp holds: Flink hands the nanoseconds to the JDBC driver,
            which rounds (PgJDBC) or cuts them; refused here rather than either done silently.
    """
    bad = below_micros(col)
    if bad:
        msg = (f"jdbc sink: column '{name}' has {bad} TIMESTAMP(7..9) value(s) with digits below the "
               "microsecond, which the database's timestamp cannot hold; CAST the column to TIMESTAMP(6) "
               "(cut down) in the query")
        raise ExecutionError(msg)
    return user_values(col)
