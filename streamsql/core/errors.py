"""The exception hierarchy: one root, subclasses grouped by who is at fault.

- :class:`SqlError` — the statement is wrong (syntax, unknown table/column, type); carries
  line, column and a caret excerpt, as sqlglot's ParseError does.
- :class:`PlanError` — the statement is valid SQL but cannot run as asked (e.g. an updating
  result into an append-only sink); positioned like SqlError when the planner knows where.
  Both derive from :class:`StatementError`, which holds the position.
- :class:`ConfigError` — a bad connector or engine option.
- :class:`BadRecordError` — input data that cannot be decoded; names topic/partition/offset
  (or file/line).
- :class:`ExecutionError` — the environment failed at run time (broker, disk, a job failure).
- :class:`InternalError` — our bug.

The CLI and shell print ``str(error)``; no user ever sees a bare traceback unless they ask
for it (``SET 'sql-client.verbose' = 'true'``).
"""

from __future__ import annotations

from streamsql.core.secrets import mask_pairs, mask_spans, mask_values, secret_spans, unknown_in


class StreamSQLError(Exception):
    """Root of every error StreamSQL raises on purpose."""


class StatementError(StreamSQLError):
    """An error about a statement, positioned at the offending token when known.

    ``str(error)`` is the message, then (with a position) ``(line L, column C)``, the
    statement's line and a caret under the token. Catch this to re-position either kind of
    statement error inside a script (see ``streamsql.sql.parser.error_in_script``).

    Attributes:
        message: what is wrong, without position.
        sql: the statement text (may be None).
        line: 1-based line of the offending token (None if unknown).
        col: 1-based column.
        length: how many characters the caret underlines.
    """

    def __init__(self, message: str, sql: str | None = None, line: int | None = None, col: int | None = None,
                 length: int = 1):
        self.message = message
        self.sql = sql
        self.line = line
        self.col = col
        self.length = max(1, length)
        super().__init__(self._render())

    def _render(self) -> str:
        # a hidden option's value however written (on another line, unterminated, not a literal)
        # is masked in the excerpt and wherever the message quotes it (secrets.secret_spans)
        # (in the message only the sensitive keys' values: an unknown key's 'json' would garble it)
        spans = secret_spans(self.sql, self._unknown())
        message = mask_values(self.message, self.sql, secret_spans(self.sql)) if spans else self.message
        if self.line is None or self.sql is None:
            return message
        line, col = mask_spans(self.sql, spans, self.line, max(self.col, 1))
        text, col = self._excerpt(line, col)
        caret = " " * (col - 1) + "^" * self.length
        # A multi-line message (e.g. the query and sink schemas) keeps its details after the
        # excerpt, so the position stays next to the sentence it belongs to.
        head, _, details = message.partition("\n")
        tail = f"\n{details}" if details else ""
        return f"{head} (line {self.line}, column {self.col})\n  {text}\n  {caret}{tail}"

    def _unknown(self) -> frozenset[str]:
        """The statement's option keys no connector of it knows (their values may be secrets)."""
        return unknown_in(self.sql)

    def _excerpt(self, text: str, col: int) -> tuple[str, int]:
        """The offending line as the excerpt shows it, and the caret's column in it.

        All of it here, with the hidden options' values masked (:func:`~.secrets.mask_pairs`:
        the caret moved with them): the sensitive keys' and those no connector named in the
        statement knows (:func:`~.secrets.unknown_in`: a misspelt key may hold a secret); a
        subclass may mask more.
        """
        text, moved = mask_pairs(text, unknown_in(self.sql), col=col)
        return text, moved or col

    def with_offset(self, sql: str, line_offset: int, file: str | None = None) -> StatementError:
        """Return the same error (same class) positioned inside a larger script.

        Args:
            sql: the whole script text.
            line_offset: lines that precede this statement in the script (0-based count).
            file: the script's path, prefixed to the message when given.
        """
        msg = f"{file}: {self.message}" if file else self.message
        line = None if self.line is None else self.line + line_offset
        return type(self)(msg, sql, line, self.col, self.length)


class OptionWarning(StatementError):
    """A warning about a WITH option (positioned at its key), its excerpt masking unknown keys' values.

    The key is one its connector does not know (``'properties.sasl.passwd' = 'hunter2'``, a
    misspelt key), so its value may be a secret: the excerpt shows the values of ``unknown`` (the
    table's keys its connector does not know, this one included) and of the sensitive options as
    ``'******'`` (:func:`~.secrets.mask_pairs`, the caret moved to stay under the key); the other
    options (``'connector' = 'kafka'``) are shown. Masked again when re-positioned in a script
    (:meth:`with_offset` keeps the class and the keys).
    """

    def __init__(self, message: str, sql: str | None = None, line: int | None = None, col: int | None = None,
                 length: int = 1, unknown: frozenset[str] = frozenset()):
        self.unknown = unknown
        super().__init__(message, sql, line, col, length)

    def _unknown(self) -> frozenset[str]:
        return self.unknown | unknown_in(self.sql)

    def _excerpt(self, text: str, col: int) -> tuple[str, int]:
        text, moved = mask_pairs(text, self._unknown(), col)
        return text, moved or col

    def with_offset(self, sql: str, line_offset: int, file: str | None = None) -> StatementError:
        """As :meth:`StatementError.with_offset`, keeping the keys to mask."""
        moved = super().with_offset(sql, line_offset, file)
        return OptionWarning(moved.message, moved.sql, moved.line, moved.col, moved.length, self.unknown)


class SqlError(StatementError):
    """A statement that cannot be parsed or bound (see :class:`StatementError` for the position)."""


class PlanError(StatementError):
    """A valid statement that cannot be planned as asked (positioned when the planner knows where)."""


class ConfigError(StreamSQLError):
    """A bad connector, format or engine option (unknown key, bad value, missing option).

    Attributes:
        table: the table whose WITH option is wrong, when one is (else None).
        option: that option's key; with ``table``, the environment points the error at the key
            in the table's CREATE statement (:class:`OptionError`).
        column: a metadata column of ``table`` whose key is wrong; the environment points the
            error at the key (``METADATA FROM 'key'``) in the CREATE statement.
    """

    table: str | None = None
    option: str | None = None
    column: str | None = None

    def __init__(self, message: str, *, table: str | None = None, option: str | None = None,
                 column: str | None = None):
        self.table = table
        self.option = option
        self.column = column
        super().__init__(message)


class OptionError(StatementError, ConfigError):
    """A :class:`ConfigError` about one WITH option, positioned at its key in the CREATE TABLE.

    ``sql`` is the CREATE statement's text (not the statement that opened the table), so a
    script re-positions it at that statement.
    """


class JobSetupError(ConfigError):
    """Options of one job that cannot run together, found as the job starts.

    E.g. exactly-once Kafka sinks (one transaction) with different ``'sink.progress-topic'`` values:
    restarting cannot help, so the job fails at once instead of under its restart strategy.
    """


class BadRecordError(StreamSQLError):
    """A record that cannot be decoded under the table's format options.

    The message names where the record is: ``topic[partition]@offset`` or ``file:line``.
    """


class ExecutionError(StreamSQLError):
    """A failure at run time caused by the environment or by a job."""


class LostCheckpointError(ExecutionError):
    """A committed checkpoint's files are gone: restarting cannot bring them back.

    Deleted, or kept in the memory of a process that died (``'jobmanager'`` storage): the job fails
    at once instead of restarting for ever (a drain of a restore from the job's folder hung there).
    """


class FencedError(ExecutionError):
    """Another instance took over this job's (or task's) commit point: it must stop, not retry.

    Kafka: a producer with the same transactional id ran ``init_transactions`` since. Retrying
    would fence the newer instance in turn.
    """


class JobRunningError(ExecutionError):
    """Another run of the job, from another checkpoint folder, uses its Kafka transactional ids.

    Found before this run fences them (its liveness mark, :mod:`streamsql.connectors.kafka.liveness`):
    starting would fail the running job, and retrying would not make it stop, so this run fails
    at once instead of under its restart strategy.
    """


class InternalError(StreamSQLError):
    """A bug in StreamSQL. Please report it with the statement that triggered it."""


def os_error_text(e: BaseException) -> str:
    """An OSError as users read it: ``Read-only file system: '/x'`` (no ``[Errno 30]``, no class name).

    Any other exception (an ``except (OSError, ValueError)`` handler's) gives its text.
    """
    if not isinstance(e, OSError) or not e.strerror:
        return str(e)
    if e.filename is None:
        return e.strerror
    other = f" -> '{e.filename2}'" if e.filename2 is not None else ""
    return f"{e.strerror}: '{e.filename}'{other}"


def user_text(e: BaseException) -> str:
    """What users are told about any exception — never a Python class name.

    A StreamSQL error as is, an OSError as :func:`os_error_text`, anything else as an internal
    error (the stack trace is shown on request: ``--verbose``, ``'sql-client.verbose'``).
    """
    if isinstance(e, StreamSQLError):
        return str(e)
    if isinstance(e, OSError):
        return os_error_text(e)
    if isinstance(e, MemoryError):
        return "out of memory"
    return f"Internal error (a bug in StreamSQL; please report it): {e or 'no details'}"
