"""A query's result in a script (``streamsql run FILE``, ``shell -f FILE``), as Flink's SQL client ``-f``.

Flink 2.3's SQL client runs a file's query only in the ``tableau`` result mode (its
``CliClient``: a query of a non-interactive run in ``table`` or ``changelog`` mode fails the
statement, and the file stops there); in that mode it prints the rows as they arrive
(``CliTableauResultView.printStreamingResults``):

- the header first, before any row, in column widths taken from the column *types*
  (``TableauStyle.columnWidthsByType``: :func:`type_widths`), with the ``op`` column first;
- each row as it arrives (a cell longer than its column cut to ``...``);
- at the end the bottom border (only when a row came) and ``Received a total of N rows (S.SS
  seconds)`` (``row`` for 0 or 1, as Flink writes it; the seconds since the rows were asked for);
- Ctrl-C (SIGINT) ends the query: ``Query terminated, received a total of N rows (S.SS seconds)``
  and its job is cancelled. What then depends on the terminal, as in Flink's client: without one (input from a
  file or pipe, a CI job, ``kill -INT``) the signal ends the whole client (exit 130: the JVM's
  default for SIGINT, jline has no terminal to take it), so the run ends (130, its jobs cancelled);
  in a terminal jline's handler only cancels the query (``CliTableauResultView``) and the script
  goes on with its next statement. SIGTERM always ends the whole run (exit 143).

``scripts/flink_sql_client.py`` records what Flink's client prints for these (compared in
``tests/shell/test_script_query.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from typing import TYPE_CHECKING, TextIO

from streamsql.shell.results import TableauPrinter

from streamsql.core.errors import SqlError
from streamsql.core.interrupts import INTERRUPTED, exit_code
from streamsql.output import shown_changelog

if TYPE_CHECKING:
    from streamsql.core.config import Config
    from streamsql.core.types import SqlType
    from streamsql.table_result import TableResult

MODE_KEY = "sql-client.execution.result-mode"
#: The signals that interrupt a script (Ctrl-C, kill, a failed job's notice): held while a row is shown.
_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGUSR1}

#: Flink 2.3's SQL client's words for a query of a ``-f`` script in another result mode than tableau.
NOT_TABLEAU = ("In non-interactive mode, it only supports to use TABLEAU as value of "
               "sql-client.execution.result-mode when execute query. Please add "
               "'SET sql-client.execution.result-mode=TABLEAU;' in the sql file.")

#: Widths of the types Flink sizes by type (TableauStyle.columnWidthsByType); the rest get the max width.
_FIXED = {"TINYINT": 4, "SMALLINT": 6, "INT": 11, "BIGINT": 20, "BOOLEAN": 5, "DATE": 10}


def check_result_mode(config: Config, sql: str) -> None:
    """Refuse a script's query unless the result mode is ``tableau``, as Flink's SQL client ``-f``.

    Raises:
        SqlError: at the statement's start, in Flink's words (:data:`NOT_TABLEAU`).
    """
    mode = (config.get(MODE_KEY) or "tableau").strip().lower()
    if mode != "tableau":
        start = len(sql) - len(sql.lstrip())
        head = sql[start:].split(None, 1)[0] if sql.strip() else ""
        raise SqlError(NOT_TABLEAU, sql, 1 + sql.count("\n", 0, start),
                       start - (sql.rfind("\n", 0, start) + 1) + 1, max(1, len(head)))


def _timestamp_width(precision: int) -> int:
    return 19 if precision == 0 else 23 if precision <= 3 else 26 if precision <= 6 else 29


def type_width(t: SqlType | None, max_width: int) -> int:
    """A column's width by its type, as Flink's ``TableauStyle.columnWidthsByType`` (before names and NULL).

    Integers their digits and a sign, DECIMAL(p) p + 2, BOOLEAN 5, DATE 10, TIME(p) 8 (+ p + 1),
    TIMESTAMP[_LTZ](p) 19, 23, 26 or 29 by p; every other type (strings, floats, composites)
    ``max_width`` ('sql-client.display.max-column-width').
    """
    if t is None:
        return max_width
    if t.name in _FIXED:
        return _FIXED[t.name]
    if t.name == "DECIMAL":
        return (t.precision or 10) + 2
    if t.name == "TIME":
        return 8 if not t.precision else t.precision + 9
    if t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _timestamp_width(6 if t.precision is None else t.precision)
    return max_width


def type_widths(columns: list[str], types: list[SqlType], max_width: int) -> list[int]:
    """The widths of a streaming tableau, the op column's (2) first: each at least its name and ``<NULL>``."""
    kinds = list(types) + [None] * (len(columns) - len(types))
    return [2] + [max(len(name), type_width(t, max_width), len("<NULL>")) for name, t in zip(columns, kinds)]


def _rows(n: int) -> str:
    return f"{n} {'rows' if n > 1 else 'row'}"  # Flink's getRowTerm: "0 row", "1 row", "2 rows"


def print_query(result: TableResult, out: TextIO, max_width: int = 30, go_on: bool = False) -> None:
    """Print a query's changelog as it arrives, in Flink's streaming tableau (see the module doc).

    A Ctrl-C (SIGINT) ends the query (its job cancelled) and, with ``go_on`` (the run has a
    terminal), returns: the script goes on.

    Raises:
        KeyboardInterrupt: a Ctrl-C without ``go_on``, SIGTERM, or the signal ``streamsql run``
            sends itself when a job fails.
        Exception: the query's own failure.
    """
    printer = TableauPrinter(result.columns, True, max_width, total_width=None,
                             widths=type_widths(result.columns, result.column_types, max_width))
    out.write(printer.header([]))
    out.flush()
    count, start = 0, time.monotonic()
    guard = _RowGuard()
    try:
        with guard:
            for item in shown_changelog(result.collect(), result.column_types, result.time_zone):
                line = printer.rows([item])
                # a row is shown and counted together: "received a total of N" is the rows shown
                with guard.row():
                    out.write(line)
                    out.flush()
                    count += 1
    except KeyboardInterrupt:
        if not _ctrl_c():
            raise
    except Exception:
        if not _ctrl_c():  # DuckDB may turn the Ctrl-C into an error of its own (core.interrupts)
            raise
    else:
        out.write((printer.border() + "\n" if count else "") + f"Received a total of {_rows(count)} "
                  f"({time.monotonic() - start:.2f} seconds)\n")
        out.flush()
        return
    if result.job is not None:
        result.job.cancel()
    seconds = time.monotonic() - start
    out.write(f"Query terminated, received a total of {_rows(count)} ({seconds:.2f} seconds)\n")
    out.flush()
    if not go_on:
        raise KeyboardInterrupt  # the run ends (130), as Flink's client without a terminal
    INTERRUPTED.clear()  # taken: the script goes on


class _RowGuard:
    """Handles a signal of ``_HELD`` that arrives while a row is written and counted after that row.

    Blocking the signals on this thread (``pthread_sigmask``) is not enough: the process's other
    threads (the job's, librdkafka's, DuckDB's) may take the signal, and Python then runs its
    handler in the main thread between any two bytecodes, e.g. between a row's write and its count
    (seen under load: 4 rows shown, "received a total of 3 rows"). The handlers are wrapped only on
    the main thread (the only one ``signal.signal`` works on); elsewhere rows are not guarded.
    """

    def __init__(self) -> None:
        self._busy = False
        self._pending: list[tuple[int, object]] = []
        self._previous: dict[int, object] = {}

    def __enter__(self) -> _RowGuard:
        if threading.current_thread() is threading.main_thread():
            for s in _HELD:
                self._previous[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for s, handler in self._previous.items():
            signal.signal(s, handler)

    @contextlib.contextmanager
    def row(self):
        self._busy = True
        try:
            yield
        finally:
            self._busy = False
            pending, self._pending = self._pending, []
            for signum, frame in pending:
                self._call(signum, frame)

    def _handle(self, signum: int, frame) -> None:
        if self._busy:
            self._pending.append((signum, frame))
        else:
            self._call(signum, frame)

    def _call(self, signum: int, frame) -> None:
        handler = self._previous[signum]
        if callable(handler):
            handler(signum, frame)
        elif handler == signal.SIG_DFL:  # the default action (SIGTERM: end the process), as unwrapped
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)


def _ctrl_c() -> bool:
    """Whether the interruption is a Ctrl-C (SIGINT), which ends only the query."""
    return INTERRUPTED.is_set() and exit_code() == 130
