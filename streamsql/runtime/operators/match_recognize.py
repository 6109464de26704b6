r"""MATCH_RECOGNIZE over event time, as Flink's ``CepOperator`` (times in milliseconds).

Rows wait in keyed state until the watermark passes their rowtime (a row at or before the
operator's watermark when it arrives is late: dropped and counted in ``late_records``, as
``CepOperator`` drops it without a late-data output; a NULL rowtime reads as 0, 1970-01-01
00:00:00, as in Flink 2.3: :mod:`~streamsql.runtime.operators.rowtime_nulls`). At a
watermark ``wm`` each partition with due rows does what ``CepOperator.onEventTime`` does: for
each rowtime ``t <= wm`` in order, advance the automaton's time to ``t`` (WITHIN drops partial
matches), then feed the rows of ``t`` in the further ORDER BY columns' order (else in arrival
order); finally advance the time to ``wm``. A partition with partial matches under WITHIN also
wakes when the oldest would time out, so the matches it held back are emitted at that
watermark as in Flink (whose timer fires at every watermark while partial matches exist).

Each match becomes one output row (ONE ROW PER MATCH): the partition key, then the measures,
evaluated on the match's rows with the CEP context's timestamp (the rowtime being processed,
or the watermark when time advanced) as ``MATCH_ROWTIME()``. Insert-only; output rows are
emitted before the watermark that released them is forwarded.

State layout (``key`` = :func:`~streamsql.state.layout.encode_keys` of the PARTITION BY columns,
``kg`` its key group):

=========================================== ===========================================
``kg + key``                                 :data:`MATCH_KEY`: ``[pending, arrivals,
                                             next_id, partials, completed, rows, timer]``:
                                             the rows not processed yet ``[ts, arrival,
                                             row]``; the arrival counter; the next row id;
                                             the automaton's partial and waiting matches
                                             (:mod:`.match_nfa`, queue array order) as
                                             ``[state, start, events]``; the rows they
                                             reference ``[ts, id, row]``; the timer end
``kg + TIMER_TAG + end(8) + key``            the partition's event-time timer
``WATERMARK_KEY``                            the watermark at the last checkpoint
=========================================== ===========================================
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.core.py_values import py_values
from streamsql.plan.match_recognize import MatchSpec
from streamsql.runtime.operators.match_eval import RowLists, compile_expr
from streamsql.runtime.operators.match_nfa import Nfa, Partial, compile_states
from streamsql.runtime.operators.window_agg import WindowOperatorBase, add_late, rowtimes
from streamsql.state.layout import ValueFormat, encode_keys, with_key_groups

#: A partition's pending rows and automaton (tagged msgpack).
MATCH_KEY = ValueFormat("match-recognize/key", 1)


class MatchRecognizeOperator(WindowOperatorBase):
    """Event-time MATCH_RECOGNIZE per partition key (see module docstring).

    Args:
        spec: the clause.
        output_schema: the partition columns, then the measures.
    """

    state_ttl_missing = None  # Flink's MATCH_RECOGNIZE ignores state retention too (its docs)

    def __init__(self, spec: MatchSpec, output_schema: pa.Schema):
        self.spec = spec
        self.output_schema = output_schema
        self.states, self.start = compile_states(spec.steps)
        self.defines = [compile_expr(d) if d is not None else None for d in spec.defines]
        self.measures = [compile_expr(e) for e in spec.measures]

    # -- elements -----------------------------------------------------------------------------

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Store the batch's rows as pending under their partitions (late rows are dropped)."""
        self._ensure_loaded()
        table = batch.table
        ts, _ = rowtimes(table.column(self.spec.rowtime))  # a NULL reads as 0 (rowtime_nulls.EPOCH)
        keep = np.ones(len(ts), bool) if self.watermark is None else ts > self.watermark
        add_late(self.ctx.metrics, int(len(ts) - keep.sum()))
        if not keep.all():
            idx = np.flatnonzero(keep)
            table, ts = table.take(pa.array(idx)), ts[idx]
        if table.num_rows == 0:
            return []
        rows = list(zip(*(py_values(c) for c in table.columns)))
        keys = with_key_groups(encode_keys([table.column(i) for i in self.spec.partition], table.num_rows))
        by_key: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            by_key.setdefault(k, []).append(i)
        puts: list = []
        deletes: list = []
        for skey, old in zip(by_key, self.ctx.state.get_many(list(by_key))):
            value = MATCH_KEY.decode(old) if old is not None else [[], 0, 0, None, [], [], None]
            for i in by_key[skey]:
                value[0].append([int(ts[i]), value[1], list(rows[i])])
                value[1] += 1
            self._set_timer(skey, value, puts, deletes)
            puts.append((skey, MATCH_KEY.encode(value)))
        self.ctx.state.write(puts, deletes)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Run the partitions the watermark makes due (module docstring), emit their matches, forward it."""
        return self._fire_due_keys(watermark, self._fire_key)

    def _fire_key(self, skey: bytes, raw: bytes, wm: int, emitted: list, puts: list, deletes: list) -> None:
        """Run one partition's rows up to ``wm``; keep its state, or end it when nothing is left."""
        value = MATCH_KEY.decode(raw)
        value[6] = None  # its timer just fired
        self._run(value, wm, emitted)
        self._set_timer(skey, value, puts, deletes)
        if value[0] or len(value[3]) > 1 or value[4]:
            puts.append((skey, MATCH_KEY.encode(value)))
        else:  # nothing pending, no partial match: the partition's state ends
            deletes.append(skey)

    # -- the automaton ------------------------------------------------------------------------

    def _run(self, value: list, wm: int, emitted: list) -> None:
        """Feed a partition's rows up to ``wm`` through its automaton (``CepOperator.onEventTime``)."""
        spec = self.spec
        rows = {(r[0], r[1]): r[2] for r in value[5]}
        nfa = Nfa(self.states, self.start, spec.skip, spec.within, spec.variables,
                  _partials(value[3]) if value[3] is not None else None, _partials(value[4]))
        due = [p for p in value[0] if p[0] <= wm]
        value[0] = [p for p in value[0] if p[0] > wm]
        due.sort(key=lambda p: p[1])
        for index, desc, nulls_first in reversed(spec.order):
            present = [p for p in due if p[2][index] is not None]
            present.sort(key=lambda p, i=index: p[2][i], reverse=desc)
            nulls = [p for p in due if p[2][index] is None]
            due = nulls + present if nulls_first else present + nulls
        due.sort(key=lambda p: p[0])
        holds = self._holds(rows)
        last = None
        for ts, _, row in due:
            if ts != last:
                self._emit(nfa.advance_time(ts), rows, ts, emitted)
                last = ts
            row_id = (ts, value[2])
            value[2] += 1
            rows[row_id] = tuple(row)
            self._emit(nfa.process(row_id, rows[row_id], holds), rows, ts, emitted)
        self._emit(nfa.advance_time(wm), rows, wm, emitted)
        value[3] = _encode(nfa.partials.items)
        value[4] = _encode(nfa.completed.items)
        live = {rid for p in (*nfa.partials.items, *nfa.completed.items) for rid, _ in p.events}
        value[5] = [[rid[0], rid[1], list(r)] for rid, r in rows.items() if rid in live]

    def _holds(self, rows: dict):
        """The condition callback of :class:`~.match_nfa.Nfa`: a variable's DEFINE on a row."""
        defines, names = self.defines, self.spec.variables

        def holds(var: int, p: Partial, row_id: tuple[int, int], row: tuple) -> bool:
            define = defines[var]
            if define is None:
                return True
            env = RowLists([(v, rows[rid]) for rid, v in p.events], row, var, names, row_id[0])
            return define(env) is True
        return holds

    def _emit(self, matches: list[Partial], rows: dict, ts: int, emitted: list) -> None:
        """One output row per match: its partition key, then its measures at CEP time ``ts``."""
        for m in matches:
            events = [(v, rows[rid]) for rid, v in m.events]
            env = RowLists(events, None, None, self.spec.variables, ts)
            first = events[0][1]
            key = tuple(first[i] for i in self.spec.partition)
            emitted.append((ts, key + tuple(f(env) for f in self.measures)))

    def _set_timer(self, skey: bytes, value: list, puts: list, deletes: list) -> None:
        """One timer: the earliest pending rowtime, or when WITHIN ends its oldest partial match."""
        ends = [min(p[0] for p in value[0]) + 1] if value[0] else []
        if self.spec.within and value[3]:
            starts = [p[1] for p in value[3] if p[1] is not None]
            if starts:
                ends.append(min(starts) + self.spec.within + 1)
        end = min(ends) if ends else None
        if end != value[6]:
            if value[6] is not None:
                self.timers.remove(value[6], skey, deletes)
            if end is not None:
                self.timers.add(end, skey, puts)
            value[6] = end

    def _to_table(self, rows: list[tuple]) -> pa.Table:
        """Output rows (Python values) → Arrow."""
        columns = list(zip(*rows))
        arrays = [pa.array([_arrow_value(v) for v in c], type=f.type)
                  for c, f in zip(columns, self.output_schema)]
        return pa.Table.from_arrays(arrays, schema=self.output_schema)


def _arrow_value(v):
    """A measure's value as Arrow takes it (aware datetimes in UTC)."""
    return v.astimezone(UTC) if isinstance(v, datetime) and v.tzinfo is not None else v


def _partials(encoded: list) -> list[Partial]:
    """Partial matches from state: ``[state, start_ts, start_id, [[ts, id, var], ...]]``."""
    return [Partial(s, tuple(((ts, i), v) for ts, i, v in events),
                    None if start_ts is None else (start_ts, start_id))
            for s, start_ts, start_id, events in encoded]


def _encode(partials: list[Partial]) -> list:
    return [[p.state, *(p.start if p.start is not None else (None, None)),
             [[rid[0], rid[1], v] for rid, v in p.events]] for p in partials]
