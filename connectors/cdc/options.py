"""Options of the ``mysql-cdc`` connector (Flink CDC's names) and the server connections.

:func:`connect` opens a pymysql connection with the table's ``hostname`` / ``port`` /
``username`` / ``password`` / ``connect.timeout`` and turns the server's refusals into one
ConfigError naming the option to fix (the password itself is never part of a message: it is
remembered by :mod:`streamsql.core.secrets` and masked wherever text is shown).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from streamsql.core.catalog import TableDef
from streamsql.core.config import duration_ms
from streamsql.core.connector import OptionSpec, choice_option
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.secrets import redact, remember

STARTUP_MODES = ("initial", "latest-offset", "earliest-offset", "timestamp", "specific-offset")

OPTIONS = [
    OptionSpec("connector", required=True, description="'mysql-cdc'"),
    OptionSpec("hostname", required=True, description="the MySQL/MariaDB server's host"),
    OptionSpec("port", default="3306", description="the server's port"),
    OptionSpec("username", required=True, description="a user with SELECT, REPLICATION SLAVE and CLIENT"),
    OptionSpec("password", required=True, description="the user's password"),
    OptionSpec("database-name", required=True, description="database name (a regular expression)"),
    OptionSpec("table-name", required=True, description="table name (a regular expression)"),
    OptionSpec("server-id", description="the replica id this reader uses (a number or a range a-b)"),
    OptionSpec("server-time-zone", description="time zone of TIMESTAMP values read as TIMESTAMP"
               " (default: the machine's)"),
    choice_option("scan.startup.mode", STARTUP_MODES, "where reading starts", "initial"),
    OptionSpec("scan.startup.timestamp-millis", description="for mode 'timestamp': epoch ms"),
    OptionSpec("scan.startup.specific-offset.file", description="for mode 'specific-offset': binlog file"),
    OptionSpec("scan.startup.specific-offset.pos", description="for mode 'specific-offset': position"),
    OptionSpec("scan.startup.specific-offset.gtid-set", description="for mode 'specific-offset': GTID set"),
    OptionSpec("scan.startup.specific-offset.skip-events", description="events to skip after the offset"),
    OptionSpec("scan.startup.specific-offset.skip-rows", description="rows to skip after the offset"),
    OptionSpec("scan.incremental.snapshot.enabled", default="true",
               description="'true' only: the snapshot is always read in checkpointed chunks"),
    OptionSpec("scan.incremental.snapshot.chunk.size", default="8096", description="rows per snapshot chunk"),
    OptionSpec("scan.snapshot.fetch.size", default="1024", description="accepted (rows per fetch)"),
    OptionSpec("heartbeat.interval", default="30s", description="binlog heartbeat interval"),
    OptionSpec("connect.timeout", default="30s", description="connection timeout"),
    OptionSpec("connect.max-retries", default="3", description="accepted (the restart strategy retries)"),
]


@dataclass(frozen=True)
class CdcOptions:
    """The parsed options of one ``mysql-cdc`` table.

    Attributes:
        host, port, user, password: the connection.
        database, table: regular expressions over database and table names (full match).
        server_id: the replica id (the first of a range).
        time_zone: the server time zone name, or None for the machine's.
        mode: ``scan.startup.mode``.
        timestamp_ms: for ``timestamp``.
        offset: ``(file, pos)`` for ``specific-offset``.
        chunk_rows: rows per snapshot chunk.
        heartbeat_s, connect_timeout_s: seconds.
    """

    host: str
    port: int
    user: str
    password: str
    database: str
    table: str
    server_id: int
    time_zone: str | None
    mode: str
    timestamp_ms: int | None
    offset: tuple[str, int] | None
    chunk_rows: int
    heartbeat_s: float
    connect_timeout_s: float


def _int(table: TableDef, key: str, default: str) -> int:
    value = table.options.get(key, default)
    try:
        return int(value)
    except ValueError:
        msg = f"Table '{table.name}': option '{key}' = '{value}' is not a whole number"
        raise ConfigError(msg) from None


def parse_options(table: TableDef) -> CdcOptions:
    """The table's options, checked.

    Raises:
        ConfigError: for a value that is not a number or duration, a startup mode without its
            options, or a GTID set (not supported: give the binlog file and position).
    """
    o = table.options
    remember(o)
    mode = o.get("scan.startup.mode", "initial")
    ts = offset = None
    if mode == "timestamp":
        if "scan.startup.timestamp-millis" not in o:
            msg = (f"Table '{table.name}': 'scan.startup.mode' = 'timestamp' needs "
                   "'scan.startup.timestamp-millis'")
            raise ConfigError(msg)
        ts = _int(table, "scan.startup.timestamp-millis", "0")
    if mode == "specific-offset":
        if "scan.startup.specific-offset.gtid-set" in o:
            msg = (f"Table '{table.name}': 'scan.startup.specific-offset.gtid-set' is not supported; "
                   "set 'scan.startup.specific-offset.file' and 'scan.startup.specific-offset.pos'")
            raise ConfigError(msg)
        if "scan.startup.specific-offset.file" not in o or "scan.startup.specific-offset.pos" not in o:
            msg = (f"Table '{table.name}': 'scan.startup.mode' = 'specific-offset' needs "
                   "'scan.startup.specific-offset.file' and 'scan.startup.specific-offset.pos'")
            raise ConfigError(msg)
        offset = (o["scan.startup.specific-offset.file"],
                  _int(table, "scan.startup.specific-offset.pos", "4"))
    _check_incremental(table)
    for key in ("scan.startup.specific-offset.skip-events", "scan.startup.specific-offset.skip-rows"):
        if key in o:
            msg = f"Table '{table.name}': option '{key}' is not supported"
            raise ConfigError(msg)
    sid = o.get("server-id")
    if sid is None:
        server_id = random.randint(5400, 6400)  # Flink CDC's default range
    else:
        try:
            server_id = int(sid.split("-")[0])
        except ValueError:
            msg = f"Table '{table.name}': option 'server-id' = '{sid}' is not a number or a range 'a-b'"
            raise ConfigError(msg) from None
    return CdcOptions(
        host=o["hostname"], port=_int(table, "port", "3306"), user=o["username"], password=o["password"],
        database=o["database-name"], table=o["table-name"], server_id=server_id,
        time_zone=o.get("server-time-zone"), mode=mode, timestamp_ms=ts, offset=offset,
        chunk_rows=max(1, _int(table, "scan.incremental.snapshot.chunk.size", "8096")),
        heartbeat_s=duration_ms(o.get("heartbeat.interval", "30s"), "heartbeat.interval") / 1000,
        connect_timeout_s=duration_ms(o.get("connect.timeout", "30s"), "connect.timeout") / 1000,
    )


def _check_incremental(table: TableDef) -> None:
    """Refuse ``'scan.incremental.snapshot.enabled' = 'false'`` rather than accept it without effect.

    Flink CDC then takes its legacy snapshot: one reader under a global read lock (FLUSH TABLES
    WITH READ LOCK) and no checkpoint until the snapshot is done. StreamSQL always reads the
    snapshot in checkpointed, lock-free chunks (:mod:`.snapshot`), with the same rows and changes.

    Raises:
        ConfigError: for ``'false'`` or a value that is not a boolean.
    """
    value = table.options.get("scan.incremental.snapshot.enabled", "true")
    if value.strip().lower() == "true":
        return
    if value.strip().lower() == "false":
        msg = (f"Table '{table.name}': 'scan.incremental.snapshot.enabled' = 'false' (Flink CDC's legacy "
               "snapshot under a global read lock, without checkpoints until it ends) is not supported: "
               "StreamSQL always reads the snapshot in checkpointed chunks without locking the tables, "
               "which gives the same rows and changes; remove the option")
    else:
        msg = (f"Table '{table.name}': option 'scan.incremental.snapshot.enabled' = '{value}' must be "
               "'true' or 'false'")
    raise ConfigError(msg)


# MySQL error numbers that name an option to fix.
_ACCESS_DENIED = (1045, 1044, 1698)
_UNKNOWN_DB = 1049


def connection_error(table: str, opts: CdcOptions, e: Exception) -> Exception:
    """The error to raise for a failed connection or statement ``e`` (pymysql's).

    A refused login names ``'username'``/``'password'``; an unreachable server names
    ``'hostname'``/``'port'`` (ExecutionError: it may come back, the restart strategy decides);
    anything else is an ExecutionError with the server's message, secrets masked.
    """
    code = e.args[0] if e.args and isinstance(e.args[0], int) else None
    where = f"Table '{table}': MySQL server {opts.host}:{opts.port}"
    if code in _ACCESS_DENIED:
        msg = (f"{where} refused user '{opts.user}' (access denied): check the options 'username' and "
               "'password'")
        return ConfigError(msg)
    if code == _UNKNOWN_DB:
        msg = f"{where}: unknown database; check the option 'database-name'"
        return ConfigError(msg)
    if code in (2003, 2006, 2013, 2055):
        msg = (f"{where} cannot be reached ({redact(str(e.args[-1]))}); check the options 'hostname' "
               "and 'port', or that the server is running")
        return ExecutionError(msg)
    return ExecutionError(f"{where}: {redact(str(e))}")


def connect(table: str, opts: CdcOptions, **kw):
    """A pymysql connection (autocommit unless ``kw`` says otherwise).

    Raises:
        ConfigError | ExecutionError: see :func:`connection_error`.
    """
    import pymysql

    kw.setdefault("autocommit", True)
    try:
        return pymysql.connect(host=opts.host, port=opts.port, user=opts.user, password=opts.password,
                               connect_timeout=max(1, int(opts.connect_timeout_s)), charset="utf8mb4", **kw)
    except pymysql.MySQLError as e:
        raise connection_error(table, opts, e) from None


def settings(opts: CdcOptions) -> dict:
    """Connection settings for the binlog reader (mysql-replication)."""
    return {"host": opts.host, "port": opts.port, "user": opts.user, "password": opts.password,
            "connect_timeout": max(1, int(opts.connect_timeout_s)), "charset": "utf8mb4"}
