"""Showing a query's result while it runs, per ``'sql-client.execution.result-mode'``.

- ``tableau``: rows printed inline as they arrive, with an ``op`` column (+I/-U/+U/-D),
  header first; the query ends with ``Received a total of N rows``;
- ``changelog``: the changelog as a stream of ``+I[a, b]`` lines (as the print sink writes),
  under an ``op[col_a, col_b]`` header;
- ``table``: a full-screen materialized view, updated in place from the changelog; on leaving
  (Q or Ctrl-C) the final table is printed inline with ``N rows in set``.

While rows stream, a status line at the bottom shows rows received, rows/s and the job's last
checkpoint; Ctrl-C stops the query (its job is cancelled) and returns to the prompt. The same
views show ``PRINT TOPIC`` records (no op column, no job).

Slightly over 500 lines on purpose: the three modes share one pump, one status line and one
prompt-toolkit screen protocol (typeahead, Ctrl-C, Q), which read best in one place.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.input.typeahead import store_typeahead
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from streamsql.core.elements import RowKind
from streamsql.output import NULL_TEXT, counted, format_value, tableau

if TYPE_CHECKING:
    from streamsql.shell.app import Shell

    from streamsql.runtime.job import JobHandle

RESULT_MODES = ("tableau", "changelog", "table")


@dataclass
class Stream:
    """Rows to show while they arrive.

    Attributes:
        columns: column names.
        rows: ``(kind, row)`` pairs; ``kind`` is a RowKind, or None for plain records.
        cancel: stops the producer (cancels the job); called on Ctrl-C.
        job: the query's job, for the status line (None for PRINT TOPIC).
        what: the noun for the summary ("rows", "records").
        wide: columns that share the rest of the terminal's width instead of being cut at
            ``'sql-client.display.max-column-width'`` (PRINT TOPIC's ``key`` and ``value``).
        left_text: left-align text columns (records' keys and JSON values read better so).
    """

    columns: list[str]
    rows: Iterable[tuple[RowKind | None, tuple]]
    cancel: Callable[[], None]
    job: JobHandle | None = None
    what: str = "rows"
    wide: tuple[str, ...] = ()
    left_text: bool = False


@dataclass
class Outcome:
    """How showing a stream ended."""

    count: int
    interrupted: bool
    error: BaseException | None


class _Pump:
    """Reads the stream in a background thread into a buffer the view drains."""

    def __init__(self, stream: Stream):
        self.stream = stream
        self.lock = threading.Lock()
        self.pending: list[tuple[RowKind | None, tuple]] = []
        self.count = 0
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.stopping = False
        self._samples: deque[tuple[float, int]] = deque([(time.monotonic(), 0)])
        self.thread = threading.Thread(target=self._run, name="shell-result-pump", daemon=True)

    def start(self) -> _Pump:
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            for item in self.stream.rows:
                with self.lock:
                    self.pending.append(item)
                    self.count += 1
                # An update arrives as a -U/+U pair: once asked to stop, read on to the +U that
                # completes a -U (the stream ends soon after its job is cancelled).
                if self.stopping and item[0] is not RowKind.UPDATE_BEFORE:
                    break
        except BaseException as e:  # shown by the view once it has drained the rows before it
            if not self.stopping:
                self.error = e
        finally:
            self.done.set()

    def take(self) -> tuple[list[tuple[RowKind | None, tuple]], bool]:
        """The rows received since the last call, and whether the stream has ended."""
        done = self.done.is_set()
        with self.lock:
            out, self.pending = self.pending, []
        return out, done

    def rate(self) -> float:
        """Rows per second over about the last two seconds."""
        now = time.monotonic()
        self._samples.append((now, self.count))
        while len(self._samples) > 2 and now - self._samples[0][0] > 2.0:
            self._samples.popleft()
        t0, c0 = self._samples[0]
        return (self.count - c0) / (now - t0) if now > t0 else 0.0

    def stop(self) -> None:
        self.stopping = True
        self.stream.cancel()
        self.done.wait(5)


def status_line(pump: _Pump, job: JobHandle | None, finished: bool, what: str = "rows",
                hint: str = "Ctrl-C to stop") -> str:
    """The status line shown below streaming rows.

    For example ``42 rows received, 10.0 rows/s, watermark 2024-05-01 10:00:05.000, last
    checkpoint #3 (12 ms), RUNNING — Ctrl-C to stop`` (the watermark only for queries over a
    table that declares one).
    """
    parts = [f"{counted(pump.count, what)} received", f"{pump.rate():.1f} {what}/s"]
    wm = getattr(job, "watermark", None)
    if wm is not None:
        parts.append(f"watermark {wm}")
    cp = job.last_checkpoint if job is not None else {}
    if cp and cp.get("checkpoint_id") is not None:
        parts.append(f"last checkpoint #{cp['checkpoint_id']} ({cp.get('duration_ms', '?')} ms)")
    parts.append("FINISHED" if finished else (job.status if job is not None else "RUNNING"))
    return " " + ", ".join(parts) + (f" — {hint}" if hint else "")


# -- formatting ------------------------------------------------------------------------------




def _width_for(v: Any) -> int:
    """A column width that fits ``v`` and, for numbers and times, any later value of its type.

    The header is printed before later rows are known, so the first value decides.
    """
    text = len(format_value(v))
    if isinstance(v, bool):
        return max(text, 5)
    if isinstance(v, int):
        return max(text, 11 if -(2**31) <= v < 2**31 else 20)
    if isinstance(v, float):
        return max(text, 12)
    if isinstance(v, (_dt.date, _dt.time)):
        return max(text, 23)
    return text


def _cell(v: Any, width: int) -> str:
    s = format_value(v).replace("\n", " ")
    return s if len(s) <= width else s[: max(width - 3, 1)] + "..."


class TableauPrinter:
    """Streams a boxed table: the header once (widths from the first rows), then row lines.

    Columns are cut at ``max_width``, except the ``wide`` ones, which share what is left of
    ``total_width`` (the terminal's width: each up to its whole width as long as the later ones
    keep their usual width, the last the rest), or are never cut when ``total_width`` is None
    (output to a pipe or file: nobody's screen to fit). With ``left_text``, columns whose first
    values are text are left-aligned; the rest are right-aligned, as Flink's tableau does.
    ``widths`` (one per column, the op column's first) fixes the widths instead: the header can
    then be printed before any row (:mod:`streamsql.shell.script_query`).
    """

    def __init__(self, columns: list[str], with_op: bool, max_width: int = 30, wide: tuple[str, ...] = (),
                 total_width: int | None = 80, left_text: bool = False, widths: list[int] | None = None):
        self.headers = (["op"] if with_op else []) + list(columns)
        self.fixed = widths  # given widths (a script's, by column type), else fitted to the first rows
        self.with_op = with_op
        self.max_width = max_width
        self.wide = [self.headers.index(c) for c in wide if c in self.headers]
        self.total_width = total_width
        self.left_text = left_text
        self.widths: list[int] | None = None
        self.left: list[bool] = [False] * len(self.headers)

    def _cells(self, kind: RowKind | None, row: tuple) -> list[Any]:
        return ([kind.short] if self.with_op else []) + list(row)

    def header(self, first: list[tuple[RowKind | None, tuple]]) -> str:
        """The boxed header, fixing the column widths from the ``first`` rows (unless given)."""
        if self.fixed is not None:
            self.widths = list(self.fixed)
            return "\n".join([self.border(), self._line(self.headers), self.border()]) + "\n"
        cells = [self._cells(k, r) for k, r in first]
        # Never narrower than <NULL>: a later NULL must not be cut to "<..." (as Flink's tableau
        # widens nullable columns to fit it); the op column is never NULL: 2 wide, as Flink's `| op |`.
        natural = [max([len(h)] + ([] if self.with_op and i == 0 else [len(NULL_TEXT)])
                       + [_width_for(c[i]) for c in cells])
                   for i, h in enumerate(self.headers)]
        self.widths = [min(self.max_width, w) for w in natural]
        if self.total_width is None:
            for i in self.wide:
                self.widths[i] = natural[i]
        elif self.wide:
            others = sum(w for i, w in enumerate(self.widths) if i not in self.wide)
            rest = self.total_width - others - 3 * len(self.widths) - 1  # borders and padding
            for n, i in enumerate(self.wide):  # each up to its whole width, keeping the later ones'
                later = sum(self.widths[j] for j in self.wide[n + 1:])  # usual widths; the last: the rest
                share = rest if n == len(self.wide) - 1 else min(natural[i], rest - later)
                self.widths[i] = max(self.widths[i], share)
                rest -= self.widths[i]
        if self.left_text:
            self.left = [any(isinstance(c[i], str) for c in cells) for i in range(len(self.headers))]
        return "\n".join([self.border(), self._line(self.headers), self.border()]) + "\n"

    def border(self) -> str:
        """A ``+----+----+`` line in the current widths (after :meth:`header`)."""
        assert self.widths is not None
        return "+" + "+".join("-" * (w + 2) for w in self.widths) + "+"

    def _line(self, cells: list[Any]) -> str:
        assert self.widths is not None
        # Into a pipe or file the wide columns are never cut: a later value may be longer than the
        # first ones that set its width (the line is then wider than the border).
        whole = self.wide if self.total_width is None else ()
        texts = [_cell(c, w if i not in whole else len(format_value(c)))
                 for i, (c, w) in enumerate(zip(cells, self.widths))]
        return "|" + "|".join(f" {t:{'<' if left else '>'}{w}} "
                              for t, w, left in zip(texts, self.widths, self.left)) + "|"

    def rows(self, items: list[tuple[RowKind | None, tuple]]) -> str:
        """Row lines for ``items`` (preceded by the header when none was printed yet)."""
        out = "" if self.widths is not None else self.header(items)
        return out + "".join(self._line(self._cells(k, r)) + "\n" for k, r in items)


def changelog_header(columns: list[str], with_op: bool) -> str:
    """The line above changelog rows, in their shape: ``op[id, name]``."""
    return f"{'op' if with_op else ''}[{', '.join(columns)}]"


def changelog_line(kind: RowKind | None, row: tuple) -> str:
    """A changelog row as the print sink writes it: ``+I[1, abc]``."""
    return f"{kind.short if kind is not None else ''}[{', '.join(format_value(v) for v in row)}]"


class MaterializedTable:
    """A query result folded from its changelog: +I/+U add a row, -U/-D remove one.

    :meth:`feed` never leaves the table between the two halves of an update: a -U is held back
    until the change that follows it (its +U) arrives, and both are applied together.
    """

    def __init__(self) -> None:
        self._rows: dict[Any, list] = {}  # key -> [row, count], in first-insert order
        self._held: list[tuple[RowKind | None, tuple]] = []  # trailing -U rows awaiting their +U

    def feed(self, items: Iterable[tuple[RowKind | None, tuple]]) -> None:
        """Apply changes in order, holding back trailing -U rows until what follows them."""
        for kind, row in items:
            if kind is RowKind.UPDATE_BEFORE:
                self._held.append((kind, row))
                continue
            for held in self._held:
                self.apply(*held)
            self._held.clear()
            self.apply(kind, row)

    def finish(self, complete: bool) -> None:
        """The changelog has ended: decide what a trailing held-back -U means.

        When it ran to its end (``complete``), a trailing -U is a retraction in its own right
        (e.g. its +U was filtered out) and is applied; when the query was stopped, it is the
        first half of an update that was cut off, and is dropped: the table stays as it was
        before that update.
        """
        if complete:
            for held in self._held:
                self.apply(*held)
        self._held.clear()

    @staticmethod
    def _key(row: tuple) -> Any:
        try:
            hash(row)
            return row
        except TypeError:
            return repr(row)

    def apply(self, kind: RowKind | None, row: tuple) -> None:
        """Apply one change at once: +I/+U count the row once more, -U/-D once less."""
        key = self._key(row)
        if kind in (None, RowKind.INSERT, RowKind.UPDATE_AFTER):
            self._rows.setdefault(key, [row, 0])[1] += 1
            return
        entry = self._rows.get(key)
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0:
                del self._rows[key]

    def rows(self) -> list[tuple]:
        """The rows now in the table, each as often as it occurs, in first-insert order."""
        return [row for row, n in self._rows.values() for _ in range(n)]

    def __len__(self) -> int:
        return sum(n for _, n in self._rows.values())


# -- the views -------------------------------------------------------------------------------


def show_stream(shell: Shell, stream: Stream, mode: str) -> Outcome:
    """Show ``stream`` in ``mode`` until it ends or the user stops it; print the summary."""
    mode = (mode or "tableau").lower()
    if mode not in RESULT_MODES:
        shell.write(f"[WARNING] Unknown 'sql-client.execution.result-mode' = '{mode}' "
                    f"(one of {', '.join(RESULT_MODES)}); using tableau.\n")
        mode = "tableau"
    with_op = stream.job is not None
    max_width = int_setting(shell.env.config.get("sql-client.display.max-column-width"), 30)
    pump = _Pump(stream).start()
    if mode == "table":
        return _table_view(shell, stream, pump)
    printer = TableauPrinter(stream.columns, with_op, max_width, stream.wide, _terminal_width(shell),
                             stream.left_text)
    headed = []

    def render(items: list[tuple[RowKind | None, tuple]]) -> str:
        if mode == "changelog":
            head = "" if headed else changelog_header(stream.columns, with_op) + "\n"
            headed.append(True)
            return head + "".join(changelog_line(k, r) + "\n" for k, r in items)
        return printer.rows(items)

    outcome = _live(shell, pump, stream, render)
    if mode == "tableau":
        if printer.widths is None:
            shell.write("Empty set\n" if not outcome.interrupted and outcome.error is None else "")
        else:
            shell.write(printer.border() + "\n")
    _summary(shell, stream, outcome)
    return outcome


def show_sorted(shell: Shell, stream: Stream, keys: list) -> Outcome:
    """Fold ``stream`` to its final table (status line, Ctrl-C stops), then print it sorted by ``keys``.

    ``keys``: :class:`~streamsql.shell.ordering.SortKey` s (the query's ORDER BY, see that module).
    """
    from streamsql.shell.ordering import sort_rows

    shell.info("ORDER BY: the result is shown sorted when the query ends (or when you stop it).")
    pump = _Pump(stream).start()
    table = MaterializedTable()

    def fold(items: list) -> str:
        table.feed(items)
        return ""

    outcome = _live(shell, pump, stream, fold)
    table.feed(pump.take()[0])
    table.finish(not outcome.interrupted)
    if outcome.error is not None:
        shell.report(outcome.error)
        return outcome
    rows = sort_rows(table.rows(), keys)
    shell.write(tableau(stream.columns, rows) + "\n" if rows else "Empty set\n")
    what = "the rows received until it was stopped" if outcome.interrupted else "the final table"
    shell.write(f"{counted(len(rows), 'rows')} in set ({what}, sorted)\n")
    return outcome


def _summary(shell: Shell, stream: Stream, outcome: Outcome) -> None:
    if outcome.error is not None:
        shell.report(outcome.error)
        return
    if outcome.interrupted:
        shell.write(f"Query terminated, received a total of {counted(outcome.count, stream.what)}\n")
    else:
        shell.write(f"Received a total of {counted(outcome.count, stream.what)}\n")


def _terminal_width(shell: Shell) -> int | None:
    """The terminal's width; None when the shell writes to a pipe or file (see TableauPrinter)."""
    if shell.output is not None:
        return shell.output.get_size().columns
    if not shell.writes_to_terminal():
        return None
    return shutil.get_terminal_size().columns


def int_setting(value: str | None, default: int) -> int:
    """A width setting's value (at least 4), or ``default`` when unset or not a number."""
    try:
        return max(4, int(value)) if value else default
    except ValueError:
        return default


def _keep_typeahead(kb: KeyBindings) -> None:
    """Keys typed while a view runs are kept for the next prompt instead of being lost."""

    @kb.add(Keys.Any)
    def _save(event) -> None:
        store_typeahead(event.app.input, list(event.key_sequence))


def _live(shell: Shell, pump: _Pump, stream: Stream, render: Callable[[list], str]) -> Outcome:
    """Print rows above a one-line status bar until the stream ends or Ctrl-C."""
    if not shell.interactive:
        return _plain(shell, pump, render)
    state = {"interrupted": False, "shown": 0}
    kb = KeyBindings()

    @kb.add("c-c")
    @kb.add("c-d")
    def _stop(event) -> None:
        state["interrupted"] = True
        event.app.exit()

    _keep_typeahead(kb)
    status = FormattedTextControl(lambda: [("class:status", status_line(pump, stream.job, pump.done.is_set(),
                                                                          stream.what))])
    app: Application = Application(layout=Layout(Window(status, height=1, style="class:status")),
                                   key_bindings=kb, style=shell.style, input=shell.input, output=shell.output,
                                   refresh_interval=0.5, erase_when_done=True)

    async def pump_rows() -> None:
        while True:
            items, done = pump.take()
            if items:
                text = render(items)
                state["shown"] += len(items)
                await run_in_terminal(lambda: shell.write(text))
            if done and not pump.pending:
                app.exit()
                return
            await asyncio.sleep(0.05 if items else 0.1)

    app.run(pre_run=lambda: app.create_background_task(pump_rows()), handle_sigint=False)
    if state["interrupted"]:
        pump.stop()
        return Outcome(state["shown"], True, None)
    return Outcome(state["shown"], False, pump.error)


def _plain(shell: Shell, pump: _Pump, render: Callable[[list], str]) -> Outcome:
    """Without a terminal: print rows as they come; Ctrl-C (SIGINT) stops."""
    shown = 0
    try:
        while True:
            items, done = pump.take()
            if items:
                shell.write(render(items))
                shown += len(items)
            if done and not pump.pending:
                return Outcome(shown, False, pump.error)
            time.sleep(0.05)
    except KeyboardInterrupt:
        pump.stop()
        return Outcome(shown, True, None)


#: Keys that scroll the materialized view, and by how many rows (the offset stays >= 0).
_SCROLL_KEYS = {"down": 1, "up": -1, "pagedown": 20, "pageup": -20}


def _table_view(shell: Shell, stream: Stream, pump: _Pump) -> Outcome:
    """A full-screen materialized view; Q or Ctrl-C returns and prints the final table."""
    table = MaterializedTable()
    state = {"interrupted": False, "offset": 0}

    def fold() -> None:
        items, _ = pump.take()
        table.feed(items)

    if not shell.interactive:
        def fold_items(items: list) -> str:
            table.feed(items)
            return ""

        outcome = _plain(shell, pump, fold_items)
        fold()  # what arrived after the last take (e.g. the +U read after Ctrl-C)
    else:
        kb = KeyBindings()

        @kb.add("c-c")
        @kb.add("q")
        @kb.add("Q")
        def _quit(event) -> None:
            state["interrupted"] = not pump.done.is_set()
            event.app.exit()

        def scroll(rows: int):
            def handler(event) -> None:
                state["offset"] = max(0, state["offset"] + rows)

            return handler

        for key, rows in _SCROLL_KEYS.items():
            kb.add(key)(scroll(rows))

        def body() -> str:
            fold()
            rows = table.rows()
            height = max(1, shell.output.get_size().rows - 6)
            state["offset"] = min(state["offset"], max(0, len(rows) - height))
            off = state["offset"]
            shown = rows[off: off + height]
            more = f"\nrows {off + 1}-{off + len(shown)} of {len(rows)} (Up/Down/PgUp/PgDn scroll)" \
                if len(rows) > len(shown) else f"\n{counted(len(rows), 'rows')}"
            return tableau(stream.columns, shown) + more

        def status() -> list:
            done = pump.done.is_set()
            hint = "Q to return" if done else "Q or Ctrl-C to stop"
            return [("class:status", status_line(pump, stream.job, done, stream.what, hint))]

        layout = Layout(HSplit([Window(FormattedTextControl(body)),
                                Window(FormattedTextControl(status), height=1, style="class:status")]))
        app: Application = Application(layout=layout, key_bindings=kb, style=shell.style, input=shell.input,
                                       output=shell.output, full_screen=True, refresh_interval=0.25)
        app.run(handle_sigint=False)
        if state["interrupted"]:
            pump.stop()  # reads on to the +U of a -U already received
        fold()
        outcome = Outcome(pump.count, state["interrupted"], None if state["interrupted"] else pump.error)
    table.finish(complete=not outcome.interrupted and outcome.error is None)
    if outcome.error is not None:
        shell.report(outcome.error)
        return outcome
    rows = table.rows()
    if rows:
        shell.write(tableau(stream.columns, rows) + f"\n{counted(len(rows), 'rows')} in set\n")
    else:
        shell.write("Empty set\n")
    if outcome.interrupted:
        shell.write(f"Query terminated after {counted(outcome.count, 'changes')}.\n")
    return outcome
