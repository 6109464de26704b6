"""The ``print`` connector (sink only): rows to stdout (or stderr) in Flink's print format.

Lines look like ``+I[1, AB, null]``, or ``ident> +I[...]`` with ``'print-identifier'``. A sink
of more than one subtask starts each line with the 1-based subtask that printed it: ``2> +I[...]``,
``ident:2> +I[...]`` (Flink's ``PrintSinkOutputWriter.open``). Its subtasks are
``'sink.parallelism'`` when set, else those of its input, as Flink's ``CommonExecSink`` derives
them: a job's tasks at ``'parallelism.default'`` > 1 (rows of a Kafka partition are printed by the
task reading it, as Flink's ``getSplitOwner``), one after a global aggregate (or an OVER, ranking
or MATCH_RECOGNIZE without PARTITION BY), which Flink runs at parallelism 1.
When ``'sink.parallelism'`` differs from the input's tasks, each task deals its rows round-robin
over the sink's subtasks, starting at its own index (Flink's ``RebalancePartitioner`` starts at a
random subtask), so which subtask prints a row may differ from Flink's run; how many rows each
prints does not.

Delivery guarantee: at-least-once. Rows are printed as they are written and flushed at each
checkpoint and at the end; after a failure the rows since the last completed checkpoint are
printed again. Accepts updating results (the row kind is printed).

Value rendering follows ``Row.toString()`` of Flink's external types: NULL ``null``, STRING as
is, BOOLEAN ``true``/``false``, DECIMAL as ``BigDecimal.toString()`` with its scale (``10.000000``;
``0E-10`` below 1E-6),
DOUBLE/FLOAT as Java's ``Double.toString`` / ``Float.toString`` (``123.456``, ``1.0``, ``1.0E10``;
:mod:`streamsql.core.float_text`), DATE
``2024-05-01``, TIME as ``LocalTime.toString()`` (``12:00``, ``12:00:01``, ``12:00:00.500``),
TIMESTAMP as ``LocalDateTime.toString()`` (``2024-05-01T10:00``,
``2024-05-01T10:00:01``, ``2024-05-01T10:00:00.001``), TIMESTAMP_LTZ as ``Instant.toString()``
(``2024-05-01T10:00:00Z``), BYTES as ``[1, -2, 3]``, BITMAP as ``{1,2,4294967295}``; composites as
Flink's ``Row``/``List``/``Map`` ``toString()``: a ROW ``+I[1, a]``, an ARRAY ``[1, null]``, a MAP
``{k=1, j=null}`` (their values rendered the same way, nested; a MAP's entries in the order of the
``java.util.HashMap`` Flink prints, :func:`_hash_map_positions`). Formatting is vectorized per column with
Arrow kernels (bytes per value).
"""

from __future__ import annotations

import decimal
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.common import (
    arrow_date_text,
    bool_option,
    combine,
    render_date,
    render_decimal,
    render_time,
    signed_years,
)
from streamsql.connectors.registry import register, validate_options

from streamsql.core import bitmap
from streamsql.core.catalog import TableDef
from streamsql.core.connector import (
    OPT_SINK_PARALLELISM,
    ConnectorContext,
    ConnectorSpec,
    OptionSpec,
    Sink,
    SinkGuarantee,
    flag_option,
)
from streamsql.core.elements import Batch
from streamsql.core.float_text import java_float_text
from streamsql.core.java_hash import HASHED_TYPES, java_hash, reorder
from streamsql.core.types import Schema, SqlType
from streamsql.core.variant_text import flink_texts

_KIND_PREFIX = np.array(["+I[", "-U[", "+U[", "-D["], dtype=object)


def _java_decimal(col: pa.Array) -> pa.Array:
    """``BigDecimal.toString()`` of each value with its scale, as Flink's print sink writes it.

    Plain unless the magnitude is below 1E-6 at a scale above 6: ``0E-10`` for a DECIMAL(38, 10)
    zero, ``1.4250000000000000000000000E-9`` (Flink 2.3 prints these; the general decimal
    arithmetic rule, which Python's ``str(Decimal)`` follows too).
    """
    text = render_decimal(col)
    if col.type.scale <= 6 or len(text) == 0:
        return text
    small = pc.fill_null(pc.match_substring_regex(text, r"^-?0\.0{6}"), False)
    if not pc.any(small).as_py():
        return text
    java = [str(decimal.Decimal(t)) for t in pc.filter(text, small).to_pylist()]
    return pc.replace_with_mask(text, small, pa.array(java, pa.string()))


def _java_bytes(b: bytes) -> str:
    return "[" + ", ".join(str(v - 256 if v > 127 else v) for v in b) + "]"


def _lpad(arr, width: int) -> pa.Array:
    return pc.utf8_lpad(arr.cast(pa.string()), width, "0")


def _local_date_time(arr: pa.Array, zulu: bool) -> pa.Array:
    """``LocalDateTime.toString()`` (``Instant.toString()`` when ``zulu``) of a timestamp column."""
    unit = arr.type.unit
    per_sec = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    naive = arr.cast(pa.timestamp(unit)) if arr.type.tz else arr
    v = pc.fill_null(naive.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    seconds = v // per_sec
    floor_s = signed_years(arrow_date_text(
        pa.array(seconds, pa.int64()).cast(pa.timestamp("s")).cast(pa.string()), seconds, 1
    ))  # yyyy-MM-dd HH:mm:ss (+yyyyy-MM-dd ... past year 9999)
    base = pc.replace_substring(pc.utf8_slice_codeunits(floor_s, 0, -3), " ", "T")
    sec = (v // per_sec) % 60
    nanos = (v % per_sec) * (1_000_000_000 // per_sec)
    ms3 = nanos % 1_000_000 == 0
    us6 = nanos % 1000 == 0
    frac_ms = pc.binary_join_element_wise(".", _lpad(pa.array(nanos // 1_000_000), 3), "")
    frac_us = pc.binary_join_element_wise(".", _lpad(pa.array(nanos // 1000), 6), "")
    frac_ns = pc.binary_join_element_wise(".", _lpad(pa.array(nanos), 9), "")
    frac = pc.if_else(
        pa.array(nanos == 0),
        "",
        pc.if_else(pa.array(ms3), frac_ms, pc.if_else(pa.array(us6), frac_us, frac_ns)),
    )
    secs = pc.binary_join_element_wise(":", _lpad(pa.array(sec), 2), "")
    show_sec = pa.array((sec != 0) | (nanos != 0) | zulu)
    out = pc.binary_join_element_wise(base, pc.if_else(show_sec, secs, ""), frac, "Z" if zulu else "", "")
    return pc.if_else(arr.is_null(), pa.scalar(None, pa.string()), out)


def render_column(col, t: SqlType) -> pa.Array:
    """Flink's print text of every value of ``col`` (NULL → ``null``)."""
    col = combine(col)
    if t.name == "MULTISET":  # printed as its external Map of element to count, as Flink's
        t = t.counted()
    n = t.name
    if t.is_composite:
        text = _render_nested(col, t)
    elif n in ("FLOAT", "DOUBLE"):
        text = java_float_text(col, single=n == "FLOAT")
    elif n == "BYTES":
        text = pa.array([None if b is None else _java_bytes(b) for b in col.to_pylist()], pa.string())
    elif n == "BITMAP":  # Bitmap.toString(), as BITMAP_TO_STRING: {1,2,4294967295}
        text = pa.array([None if b is None else bitmap.text(bitmap.from_bytes(b)) for b in col.to_pylist()],
                        pa.string())
    elif n == "DECIMAL":
        text = _java_decimal(col)
    elif n in ("TIMESTAMP", "TIMESTAMP_LTZ") and pa.types.is_timestamp(col.type):
        text = _local_date_time(col, zulu=n == "TIMESTAMP_LTZ")
    elif n == "DATE":  # LocalDate.toString()
        text = render_date(col)
    elif n == "TIME":  # LocalTime.toString(): 12:00, 12:00:01, 12:00:00.500
        text = render_time(col, None)
    elif n == "VARIANT":  # BinaryVariant.toString(): a number's kind is not shown
        text = flink_texts(col)
    else:
        text = col.cast(pa.string())
    return pc.fill_null(text, "null")


def _render_nested(col: pa.Array, t: SqlType) -> pa.Array:
    """A ROW/ARRAY/MAP column's print text; NULL stays NULL (``render_column`` prints ``null``)."""
    if t.name == "ROW":
        parts = [render_column(col.field(i), ft) for i, ft in enumerate(t.children)]
        body = pc.binary_join_element_wise(*parts, ", ") if parts else pa.array([""] * len(col))
        text = pc.binary_join_element_wise("+I[", body, "]", "")
    else:
        if t.name == "ARRAY":
            items = render_column(col.values, t.children[0])
        else:
            keys, values = render_column(col.keys, t.children[0]), render_column(col.items, t.children[1])
            items = pc.binary_join_element_wise(keys, values, "=")
            if t.children[0].name in HASHED_TYPES:
                items = items.take(_hash_map_positions(col))
        lists = pa.ListArray.from_arrays(col.offsets, items)
        inner = pc.binary_join(lists, ", ")
        opening, closing = ("[", "]") if t.name == "ARRAY" else ("{", "}")
        text = pc.binary_join_element_wise(opening, inner, closing, "")
    return pc.if_else(col.is_null(), pa.scalar(None, pa.string()), text)


def _hash_map_positions(col: pa.MapArray) -> pa.Array:
    """The positions of ``col``'s entries, each map's in the order of the ``HashMap`` Flink prints.

    Flink's print sink turns a MAP into a ``java.util.HashMap`` of its external keys (``String``,
    ``Integer`` ...), filled in the map's own order, and prints that (compat case
    ``map_entry_order``: ``MAP['b', 1, 'a', 2, 'zz', 3]`` prints ``{zz=3, a=2, b=1}``).
    """
    offsets, keys = col.offsets.to_pylist(), col.keys.to_pylist()
    positions = list(range(len(keys)))
    for lo, hi in zip(offsets, offsets[1:]):
        order = reorder(keys[lo:hi], java_hash) if hi - lo > 1 else None
        if order is not None:
            positions[lo:hi] = [lo + i for i in order]
    return pa.array(positions, pa.int64())


def line_prefixes(identifier: str | None, subtasks: np.ndarray | None) -> pa.Array | str:
    """Each line's prefix before the row kind, as Flink's ``PrintSinkOutputWriter.open``.

    Args:
        identifier: ``'print-identifier'`` (None or empty: none).
        subtasks: the 0-based subtask of each line, or None for a sink of one subtask.

    >>> line_prefixes("out", None), line_prefixes(None, None)
    ('out> ', '')
    >>> line_prefixes("out", np.array([0, 1])).to_pylist()
    ['out:1> ', 'out:2> ']
    """
    if subtasks is None:
        return f"{identifier}> " if identifier else ""
    head = f"{identifier}:" if identifier else ""
    numbers = pa.array((subtasks + 1).astype(np.int64)).cast(pa.string())
    return pc.binary_join_element_wise(head, numbers, "> ", "")


def format_rows(batch: Batch, schema: Schema, identifier: str | None = None,
                subtasks: np.ndarray | None = None) -> list[str]:
    """The printed lines of ``batch`` (``[prefix]+I[v1, v2, ...]``, :func:`line_prefixes`)."""
    n = batch.num_rows
    if n == 0:
        return []
    cols = [render_column(c, f.type) for c, f in zip(batch.table.columns, schema.fields)]
    body = pc.binary_join_element_wise(*cols, ", ") if cols else pa.array([""] * n)
    if batch.kinds is None:
        prefix = pa.array(["+I["] * n, pa.string())
    else:
        prefix = pa.array(_KIND_PREFIX[batch.kinds.astype(np.int64)], pa.string())
    head = line_prefixes(identifier, subtasks)
    if len(head):
        prefix = pc.binary_join_element_wise(head, prefix, "")
    return pc.binary_join_element_wise(prefix, body, "]", "").to_pylist()


_REASON = "print writes rows as they arrive; rows after the last checkpoint repeat on recovery"


def _check(table: TableDef, config: dict[str, str]) -> bool:
    """Check the table's options; returns ``'standard-error'``.

    Raises:
        ConfigError: for an unknown option or a bad value.
    """
    validate_options(SPEC, table.options, table.name)
    return bool_option(table.options, "standard-error", False, table.name)


class PrintSink(Sink):
    """See module docstring."""

    accepts_updates = True
    guarantee_reason = _REASON

    def __init__(self, ctx: ConnectorContext):
        table = ctx.table
        self.stderr = _check(table, ctx.config)
        self.schema = table.physical_schema
        self.identifier = table.options.get("print-identifier")
        configured = table.options.get(OPT_SINK_PARALLELISM.key)  # validated by the planner
        #: the sink's subtasks (module docstring); > 1: lines carry the subtask
        inputs = 1 if ctx.single_input else ctx.num_tasks  # Flink's parallelism of the input
        self.subtasks = int(configured) if configured else inputs
        #: True: rows are dealt round-robin over the subtasks (Flink's rebalance); False: this
        #: task's rows are its own subtask's (Flink's forward)
        self.rebalance = self.subtasks != inputs
        self.task = ctx.task_index
        self._next = ctx.task_index  # the round-robin's next subtask (before the modulo)

    def _subtasks_of(self, n: int) -> np.ndarray | None:
        """The 0-based subtask printing each of the next ``n`` rows; None for one subtask."""
        if self.subtasks <= 1:
            return None
        if not self.rebalance:
            return np.full(n, self.task, np.int64)
        out = (self._next + np.arange(n, dtype=np.int64)) % self.subtasks
        self._next = (self._next + n) % self.subtasks
        return out

    def _stream(self):
        return sys.stderr if self.stderr else sys.stdout  # looked up per call (redirection, capture)

    def write(self, batch: Batch) -> None:
        """Write a batch (see :meth:`Sink.write`)."""
        lines = format_rows(batch, self.schema, self.identifier, self._subtasks_of(batch.num_rows))
        if lines:
            self._stream().write("\n".join(lines) + "\n")

    def pre_commit(self, checkpoint_id: int) -> None:
        """Flush at a checkpoint barrier: rows written so far become durable and visible."""
        self._stream().flush()

    def finish(self) -> None:
        """End of input: flush."""
        self._stream().flush()

    def close(self) -> None:
        """Release the open file or stream."""
        try:
            self._stream().flush()
        except ValueError:  # stream already closed
            pass


SPEC = register(
    ConnectorSpec(
        name="print",
        options=[
            OptionSpec("connector", required=True, description="'print'"),
            OptionSpec("print-identifier", description="prefix of every printed line ('ident> ')"),
            flag_option("standard-error", "print to stderr instead of stdout"),
            OPT_SINK_PARALLELISM,
        ],
        create_sink=PrintSink,
        sink_partitioning=True,  # Flink's PrintSink is SupportsPartitioning (prints the rows)
        description="prints rows to stdout as +I[...] (debugging); at-least-once",
        check_sink=_check,
        sink_accepts_updates=lambda table: True,
        sink_guarantee=lambda table, config: SinkGuarantee(reason=_REASON),
    )
)
