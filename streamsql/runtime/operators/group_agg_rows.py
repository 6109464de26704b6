"""Where a GROUP BY's batch fold differs from Flink's row-by-row GroupAggFunction, and how to cut it.

Flink's GroupAggFunction (no mini-batch) takes one row at a time: it folds the row into the key's
accumulators, and emits the new result unless its generated ``RecordEqualiser`` finds it equal to
the one before (:func:`results_equal`); a retraction that leaves the key no row deletes the
accumulators (``-D``), so the key's next row starts from new ones (``+I``). A GROUP BY here folds
a batch's rows of a key first and compares once per batch, which gives Flink's table except in two
cases, found per batch by :func:`flink_parts`:

- **a zero's sign hidden by the equaliser.** The equaliser compares DOUBLE/FLOAT fields with
  Java's ``==`` (-0.0 equals 0.0): after ``SUM`` went from -0.0 to 0.0 within a batch, Flink's
  last row still shows -0.0 (its state holds 0.0). Only a row whose value is a zero can flip a
  result's sign while it stays equal (``AggregateFunction.zero_sign_rows``): the keys with such a
  row and more than one row in the batch are folded one row per batch;
- **a key emptied and started again within a batch.** Flink's new accumulators forget what the
  retracted rows left (a DOUBLE sum's rounding residue, a NaN or an infinity, also in a floating
  ``SUM(DISTINCT x)``'s running sum; ``SUM`` of a lone -0.0 is -0.0 again); where a state keeps
  such a residue (``AggregateFunction.residue``) a key whose row count (from state, then row by
  row) reaches 0 before its last row of the batch is cut there: the rows up to its last such
  point are folded in one batch (the key ends deleted), the rest in the next (from new
  accumulators).

Every other batch is folded whole, as before: one extra check of the floating arguments of an
insert-only batch, and of a changelog batch's row counts where a residue can matter.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch
from streamsql.functions.accumulators import Aggregates
from streamsql.state.layout import encode_keys


def results_equal(old: tuple, new: tuple) -> bool:
    """Flink's ``RecordEqualiser`` over two aggregate results (``EqualiserCodeGenerator``).

    A primitive field (DOUBLE, FLOAT, ...) compares with Java's ``==``: -0.0 equals 0.0 and NaN
    equals nothing, not even NaN (so an unchanged NaN result is emitted again, as Flink does); NULL
    equals only NULL; any other value by its equality.
    """
    for a, b in zip(old, new):
        if isinstance(a, float) and isinstance(b, float):
            if not float(a) == float(b):  # noqa: SIM201 - NaN: not equal, as Java's ==
                return False
        elif a != b:
            return False
    return True


def flink_parts(batch: Batch, num_keys: int, aggregates: Aggregates,
                old_counts: Callable[[pa.Table, np.ndarray], np.ndarray]) -> list[Batch] | None:
    """The batches to fold in turn instead of ``batch`` so that the result is Flink's (module docstring).

    Args:
        batch: the input batch (``num_keys`` key columns first).
        num_keys: the number of key columns.
        aggregates: the operator's calls (row count first).
        old_counts: ``(distinct keys' rows as a table, their row indexes)`` → each key's row count
            in state (0 without state), read without changing the state.

    Returns:
        None when ``batch`` folded whole is Flink's answer, else the batches (row order kept
        within each key).
    """
    n = batch.num_rows
    if n < 2:
        return None
    flips = _flip_rows(batch.table, aggregates)
    retracting = not batch.insert_only and any(s.residue for s in aggregates.states)
    if flips is None and not retracting:
        return None
    keys = encode_keys(batch.table.columns[:num_keys], n) if num_keys else [b""] * n
    ids: dict[bytes, int] = {}  # key ids in order of first row
    kid = np.fromiter((ids.setdefault(k, len(ids)) for k in keys), np.int64, n)
    nkeys = len(ids)
    first = np.full(nkeys, n, np.int64)
    np.minimum.at(first, kid, np.arange(n))
    rows_per_key = np.bincount(kid, minlength=nkeys)
    single = np.zeros(nkeys, bool)
    if flips is not None:
        single[kid[flips]] = True
        single &= rows_per_key > 1
    cut = np.full(nkeys, -1, np.int64)  # per key: its last row where the count reaches 0
    signs = batch.signs()
    if retracting and (signs < 0).any():
        counts = old_counts(batch.table.take(pa.array(first)), first)
        order = np.argsort(kid, kind="stable")
        running = np.cumsum(signs[order].astype(np.int64))
        starts = np.cumsum(rows_per_key) - rows_per_key  # each key's first position in `order`
        before = np.where(starts > 0, running[starts - 1], 0)
        running += np.repeat(counts - before, rows_per_key)
        last = np.zeros(n, bool)
        last[starts + rows_per_key - 1] = True
        zero = np.flatnonzero((running == 0) & ~last)
        np.maximum.at(cut, kid[order[zero]], order[zero])
    if not single.any() and (cut < 0).all():
        return None
    row = np.arange(n)
    rest = ~single[kid]
    head = rest & (row <= cut[kid])
    tail = rest & (row > cut[kid]) & (cut[kid] >= 0)
    whole = rest & ~head & ~tail
    parts = [np.flatnonzero(head | whole), np.flatnonzero(tail)]
    parts += [np.array([i]) for i in np.flatnonzero(~rest)]
    return [_take(batch, p) for p in parts if len(p)]


def _flip_rows(table: pa.Table, aggregates: Aggregates) -> np.ndarray | None:
    """Rows whose value may flip the sign of a zero result (``zero_sign_rows`` of any state), or None."""
    out = None
    for s in aggregates.states:
        if s.spec.arg is None:
            continue
        rows = s.zero_sign_rows(table.column(s.spec.arg))
        if rows is not None and rows.any():
            out = rows if out is None else out | rows
    return out


def _take(batch: Batch, rows: np.ndarray) -> Batch:
    """The rows ``rows`` of ``batch`` (in that order), with their kinds."""
    kinds = batch.kinds[rows] if batch.kinds is not None else None
    origin = batch.origin
    at = (lambda i: origin(int(rows[i]))) if origin is not None else None
    return Batch(batch.table.take(pa.array(rows)), kinds, origin=at)
