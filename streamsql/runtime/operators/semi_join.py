r"""Semi and anti joins (IN / EXISTS / NOT IN / NOT EXISTS), as Flink's StreamingSemiAntiJoinOperator.

Input 0 is the outer query's rows (left), input 1 the subquery's (right); the output is left
rows only. A left row is **matched** while at least one right row has its key and satisfies the
residual condition. A semi join shows the left rows that are matched, an anti join those that are
not: a row is emitted (with its own kind) when it arrives visible, retracted when it stops being
visible (a semi join's last match retracted, an anti join's first match arriving) and emitted again
when it becomes visible again. Over insert-only inputs a semi join is insert-only.

**NOT IN** is null-aware, as SQL's three-valued logic and Flink: ``x NOT IN (SELECT y ...)`` holds
only if no ``y`` equals ``x`` and — the subquery being non-empty — neither ``x`` nor any ``y`` is
NULL. So besides the key's matches a left row is also matched when some right row has a NULL key
(for a non-NULL ``x``), or when the right side has any row at all (for a NULL ``x``). Those two
counts live in one operator-wide entry; when one of them becomes zero or non-zero, every left row
in state is looked at again (Flink runs such a join on a single key: every row sees every change).
A NOT IN of a row or a correlated one is not null-aware here: the planner gives it Calcite's
per-column condition as the residual (:mod:`streamsql.plan.subqueries`), with no key columns when
uncorrelated (every row under one empty key).

State: the regular join's (:mod:`streamsql.runtime.operators.join_state`): per side and key one
entry per row, ``row → [count, associations]`` (a left row's associations = its matching right
rows), plus ``RIGHT_COUNTS_KEY`` → :data:`RIGHT_COUNTS` ``[right rows, right rows with a NULL key]``
for NOT IN.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator
from streamsql.runtime.operators.join import JoinBase, table_of
from streamsql.state.layout import RIGHT_COUNTS_KEY, ValueFormat

#: NOT IN: ``[right rows, right rows with a NULL key]``.
RIGHT_COUNTS = ValueFormat("semi-join/right-counts", 1)
_ACCUMULATE = (RowKind.INSERT, RowKind.UPDATE_AFTER)


class SemiAntiJoinOperator(JoinBase, Operator):
    """A semi or anti join (module docstring).

    Args:
        anti: an anti join (NOT EXISTS / NOT IN); else a semi join (EXISTS / IN).
        null_aware: NOT IN's NULL semantics (one key column).
        left_keys, right_keys: the equi-key columns of each input.
        left_schema, right_schema: the inputs' Arrow schemas (the output is ``left_schema``).
        joined_schema: left columns then right columns, the residual's input.
        residual: the non-equi condition as one boolean item over ``joined_schema``, or None.
        insert_only: the output is insert-only (a semi join of insert-only inputs).
    """

    stateful = True
    state_ttl_missing = "a semi or anti join (IN / EXISTS / NOT IN / NOT EXISTS)"

    def __init__(self, anti: bool, null_aware: bool, left_keys: list[int], right_keys: list[int],
                 left_schema: pa.Schema, right_schema: pa.Schema, joined_schema: pa.Schema,
                 residual: BatchQuery | None = None, insert_only: bool = False):
        self._setup("LEFT", left_keys, right_keys, left_schema, right_schema, joined_schema, residual)
        self.anti = anti
        self.null_aware = null_aware
        self.left_schema = left_schema
        self.insert_only = insert_only

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Update the side's rows; emit the left rows whose visibility changed."""
        side = input_index
        kb = self._load(batch, side, (RIGHT_COUNTS_KEY,) if self.null_aware else ())
        if kb is None:
            return []
        rows, kinds, keys, with_nulls, mine = kb.rows, kb.kinds, kb.keys, kb.with_nulls, kb.mine
        counts = RIGHT_COUNTS.decode(kb.extra[0]) if kb.extra and kb.extra[0] is not None else [0, 0]
        before = self._global(counts)
        matches = self._filter(side, rows, [kb.theirs[k] for k in keys])
        out_rows: list[tuple] = []
        out_kinds: list[int] = []
        touched: dict = {}  # the left entries whose associations changed
        for x, kind, k, rk, m in zip(rows, kinds, keys, kb.row_keys, matches):
            add = kind in _ACCUMULATE
            ent = mine[k, rk]
            ent[0] += 1 if add else -1
            if side == 0:
                ent[1] = sum(e[0] for _, e in m)
                if self._visible(ent[1], before[k in with_nulls]):
                    out_rows.append(x)
                    out_kinds.append(kind)
            else:
                if self.null_aware:
                    counts[0] += 1 if add else -1
                    counts[1] += (1 if add else -1) if k in with_nulls else 0
                for y, e in m:  # y: a left row matched by right row x
                    by_all = self.null_aware and before[y[self.keys[0][0]] is None]
                    was = self._visible(e[1], by_all)
                    e[1] += 1 if add else -1
                    now = self._visible(e[1], by_all)
                    if was != now:
                        out_rows += [y] * e[0]
                        out_kinds += [RowKind.INSERT if now else RowKind.DELETE] * e[0]
                    touched[k, e[2]] = (y, e)
        counted = [(RIGHT_COUNTS_KEY, RIGHT_COUNTS.encode(counts))] if self.null_aware and side == 1 else []
        self.join_state.write(kb, touched, counted)
        if self.null_aware and side == 1 and self._global(counts) != before:
            self._revisit(before, self._global(counts), out_rows, out_kinds)
        return self._emit(out_rows, out_kinds)

    def _global(self, counts: list) -> tuple[bool, bool]:
        """Whether a left row is matched whatever its key: (for a non-NULL key, for a NULL key).

        Always (False, False) unless null-aware (``counts`` stays ``[0, 0]``).
        """
        return counts[1] > 0, counts[0] > 0

    def _visible(self, associations: int, matched_by_all: bool) -> bool:
        matched = associations > 0 or matched_by_all
        return not matched if self.anti else matched

    def _revisit(self, before: tuple, after: tuple, out_rows: list, out_kinds: list) -> None:
        """The right side's NULL keys or emptiness changed: re-check every left row without matches."""
        col = self.keys[0][0]
        for x, count, assoc in self.join_state.left_rows():
            null = x[col] is None
            was, now = self._visible(assoc, before[null]), self._visible(assoc, after[null])
            if was != now:
                out_rows += [x] * count
                out_kinds += [RowKind.INSERT if now else RowKind.DELETE] * count

    def _emit(self, rows: list[tuple], kinds: list[int]) -> list[Element]:
        if not rows:
            return []
        kinds_array = None if self.insert_only else np.array(kinds, np.int8)
        return [Batch(table_of(rows, self.left_schema), kinds_array)]
