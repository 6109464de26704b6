"""Evaluates the DEFINE conditions and MEASURES of MATCH_RECOGNIZE (:mod:`streamsql.plan.match_exprs`).

A tree is compiled once into nested Python closures of one argument, the *environment*: a
:class:`RowLists` (the rows mapped to each variable) for conditions and measures, or one row
(a tuple) for the argument of an aggregate. Values are Flink's: integers wrap at their type's
width as Java's, integer division and ``%`` truncate toward zero, DECIMAL results are rounded
half-up to their type's scale, comparisons and arithmetic with a NULL give NULL, AND/OR/NOT
are three-valued. Aggregates are Flink's over the rows of their variable: COUNT of the non-NULL
values, SUM/MIN/MAX NULL over no value, AVG of integers truncated (Flink's integral AVG divides
the long sum by the count).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext

import pyarrow as pa

from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.py_values import py_values
from streamsql.core.types import SqlType
from streamsql.plan.match_exprs import MatchExpr
from streamsql.runtime.evaluator import BatchQuery

Fn = Callable[[object], object]
_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_EPOCH = datetime(1970, 1, 1)  # noqa: DTZ001 - a TIMESTAMP (no zone) is a naive datetime
_DECIMALS = Context(prec=80)  # exact for DECIMAL(38, s) operands; results are rounded to their type
_COMPARE = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


class RowLists:
    """The rows of a (partial) match per variable, for one evaluation.

    Args:
        events: ``(variable index, row)`` of the mapped rows, in match order.
        current: the row being classified (DEFINE) or None (MEASURES).
        current_var: the variable whose DEFINE is evaluated (its list and ``*``'s end with
            ``current``, as Flink's ``MatchCodeGenerator``).
        names: the variable names, by index.
        timestamp: the CEP context's timestamp in ms (MATCH_ROWTIME()).
    """

    __slots__ = ("_cache", "current", "current_var", "events", "names", "timestamp")

    def __init__(self, events: list[tuple[int, tuple]], current: tuple | None, current_var: int | None,
                 names: tuple[str, ...], timestamp: int = 0):
        self.events = events
        self.current = current
        self.current_var = current_var
        self.names = names
        self.timestamp = timestamp
        self._cache: dict[str | None, list[tuple]] = {}

    def rows(self, var: str | None) -> list[tuple]:
        """The rows of ``var`` (None: of every variable), in match order."""
        found = self._cache.get(var)
        if found is None:
            if var is None:
                found = [r for _, r in self.events]
            else:
                index = self.names.index(var)
                found = [r for v, r in self.events if v == index]
            if self.current is not None and (var is None or self.names.index(var) == self.current_var):
                found.append(self.current)
            self._cache[var] = found
        return found


def compile_expr(e: MatchExpr, rowtime_type: SqlType | None = None) -> Fn:
    """``e`` as a closure over a :class:`RowLists` (or a row, inside an aggregate's argument)."""
    op = e.op
    if op == "lit":
        value = _coerce(e.args[0], e.type)
        return lambda env: value
    if op == "row":
        index = e.args[0]
        return lambda row: row[index]
    if op == "ref":
        return _ref(*e.args)
    if op == "nav":
        return _navigation(*e.args)
    if op == "agg":
        return _aggregate(e)
    if op == "rowtime":
        return _rowtime(e.type)
    if op == "proctime":
        return lambda env: datetime.now(UTC)
    if op == "scalar":
        return _scalar(e)
    return _call(e)


def _pick(rows: list[tuple], first: bool, offset: int) -> tuple | None:
    """The ``offset``-th row from the start (``first``) or the end, or None when there are fewer."""
    i = offset if first else len(rows) - 1 - offset
    return rows[i] if 0 <= i < len(rows) else None


def _ref(var: str | None, index: int, first: bool, offset: int) -> Fn:
    def ref(env: RowLists):
        row = _pick(env.rows(var), first, offset)
        return None if row is None else row[index]
    return ref


def _navigation(var: str | None, first: bool, offset: int, arg: MatchExpr) -> Fn:
    """``FIRST``/``LAST`` of an expression: evaluated on the chosen row of ``var``."""
    value = compile_expr(arg)

    def nav(env: RowLists):
        row = _pick(env.rows(var), first, offset)
        return None if row is None else value(row)
    return nav


def _rowtime(t: SqlType) -> Fn:
    zone = UTC if t.name == "TIMESTAMP_LTZ" else None

    def rowtime(env: RowLists) -> datetime:
        try:
            value = _EPOCH + timedelta(milliseconds=env.timestamp)
        except OverflowError:  # a match released by the end of input's watermark (Long.MAX_VALUE in Flink)
            msg = (f"MATCH_ROWTIME() of a match emitted at the end of input is the final watermark "
                   f"({env.timestamp} ms), which is no TIMESTAMP; take LAST(rowtime) instead")
            raise ExecutionError(msg) from None
        return value.replace(tzinfo=zone) if zone else value
    return rowtime


def _aggregate(e: MatchExpr) -> Fn:
    func, var, arg = e.args
    if func == "count_star":
        return lambda env: len(env.rows(var))
    value = compile_expr(arg)
    t = e.type

    def agg(env: RowLists):
        values = [v for v in map(value, env.rows(var)) if v is not None]
        if func == "count":
            return len(values)
        if not values:
            return None
        if func == "min":
            return min(values)
        if func == "max":
            return max(values)
        with localcontext(_DECIMALS):
            total = sum(values[1:], values[0])
            if func == "sum":
                return _coerce(total, t)
            if t.name in _INT_BITS:
                return _int_divide(total, len(values))
            return _coerce(total / (Decimal(len(values)) if isinstance(total, Decimal) else len(values)), t)
    return agg


#: How many operand tuples a scalar call remembers the value of (then it forgets them all).
SCALAR_MEMO = 4096


def _scalar(e: MatchExpr) -> Fn:
    """Any other scalar function or operator: its one-row query over the operands' values.

    The query is the one a Calc would run (:class:`~streamsql.runtime.evaluator.BatchQuery`, Flink's
    semantics and failure messages); its value is remembered per operand tuple, since a condition
    is evaluated for every partial match a row meets, mostly on the same values.
    """
    query, *operands = e.args
    fns = [compile_expr(o) for o in operands]
    schema = query.input_schema
    memo: dict = {}
    runner: list[BatchQuery] = []

    def scalar(env):
        values = tuple(f(env) for f in fns)
        try:
            return memo[values]
        except KeyError:
            pass
        except TypeError:  # an ARRAY or MAP value: not remembered
            return _run(values)
        value = _run(values)
        if len(memo) >= SCALAR_MEMO:
            memo.clear()
        memo[values] = value
        return value

    def _run(values: tuple):
        if not runner:
            runner.append(BatchQuery(query))
        arrays = ([pa.array([v], f.type) for v, f in zip(values, schema)] if fns
                  else [pa.array([1], pa.int8())])
        out = runner[0].run(Batch(pa.Table.from_arrays(arrays, schema=schema)))
        return py_values(out.table.column(0))[0] if out.num_rows else None

    return scalar


def _call(e: MatchExpr) -> Fn:
    name, *operands = e.args
    fns = [compile_expr(o) for o in operands]
    t = e.type
    if name in _COMPARE:
        compare = _COMPARE[name]
        left, right = fns

        def cmp(env):
            a, b = left(env), right(env)
            return None if a is None or b is None else compare(a, b)
        return cmp
    if name in ("and", "or"):
        return _logic(name == "and", *fns)
    if name == "not":
        inner = fns[0]
        return lambda env: None if (v := inner(env)) is None else not v
    if name == "is_null":
        inner = fns[0]
        return lambda env: inner(env) is None
    if name == "is_not_null":
        inner = fns[0]
        return lambda env: inner(env) is not None
    if name in ("neg", "abs"):
        inner, sign = fns[0], (operator.neg if name == "neg" else abs)
        return lambda env: None if (v := inner(env)) is None else _coerce(sign(v), t)
    if name == "coalesce":
        return lambda env: _coerce(next((v for f in fns if (v := f(env)) is not None), None), t)
    if name == "case":
        return _case(fns, t)
    arith = _ARITHMETIC[name]
    left, right = fns

    def calc(env):
        a, b = left(env), right(env)
        if a is None or b is None:
            return None
        with localcontext(_DECIMALS):
            return arith(_operand(a, t), _operand(b, t), t)
    return calc


def _case(fns: list[Fn], t: SqlType) -> Fn:
    """``CASE``: the value of the first condition that is TRUE, else the ELSE value (NULL without one)."""
    pairs = list(zip(fns[0::2], fns[1::2]))
    default = fns[-1] if len(fns) % 2 else None

    def case(env):
        for condition, value in pairs:
            if condition(env) is True:
                return _coerce(value(env), t)
        return None if default is None else _coerce(default(env), t)
    return case


def _logic(conjunction: bool, left: Fn, right: Fn) -> Fn:
    """Three-valued AND (``conjunction``) or OR, short-circuit as Flink's generated code."""
    def logic(env):
        a = left(env)
        if a is (not conjunction):  # FALSE AND x, TRUE OR x
            return a
        b = right(env)
        if b is (not conjunction):
            return b
        return None if a is None or b is None else conjunction
    return logic


def _operand(v, t: SqlType):
    """An arithmetic operand in the result type's domain (Flink casts both operands to it)."""
    if t.name in ("DOUBLE", "FLOAT"):
        return float(v)
    if t.name == "DECIMAL" and not isinstance(v, Decimal):
        return Decimal(v)
    return v


def _int_divide(a: int, b: int) -> int:
    """Java's integer division: truncated toward zero; a zero divisor fails the job as Java's."""
    if b == 0:
        msg = "Division by zero in MATCH_RECOGNIZE (java.lang.ArithmeticException: / by zero)"
        raise ExecutionError(msg)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _divide(a, b, t: SqlType):
    if t.name in _INT_BITS:
        return _coerce(_int_divide(a, b), t)
    if b == 0:
        if t.name == "DECIMAL":
            msg = "Division by zero in MATCH_RECOGNIZE (DECIMAL division)"
            raise ExecutionError(msg)
        return float("nan") if a == 0 or a != a else (float("inf") if a > 0 else float("-inf"))
    return _coerce(a / b, t)


def _remainder(a, b, t: SqlType):
    if t.name in _INT_BITS:
        q = _int_divide(a, b)
        return _coerce(a - q * b, t)
    if b == 0:
        return float("nan")
    r = abs(a) % abs(b)
    return _coerce(r if a >= 0 else -r, t)


_ARITHMETIC = {
    "+": lambda a, b, t: _coerce(a + b, t),
    "-": lambda a, b, t: _coerce(a - b, t),
    "*": lambda a, b, t: _coerce(a * b, t),
    "/": _divide,
    "%": _remainder,
}


def _coerce(v, t: SqlType):
    """``v`` as a value of ``t``: integers wrapped to its width, DECIMALs rounded to its scale."""
    if v is None:
        return None
    bits = _INT_BITS.get(t.name)
    if bits is not None and isinstance(v, int) and not isinstance(v, bool):
        half = 1 << (bits - 1)
        return ((v + half) % (1 << bits)) - half
    if t.name == "DECIMAL" and isinstance(v, (int, Decimal)) and not isinstance(v, bool):
        unit = Decimal(1).scaleb(-(t.scale or 0))
        return Decimal(v).quantize(unit, rounding=ROUND_HALF_UP, context=_DECIMALS)
    if t.name in ("DOUBLE", "FLOAT") and isinstance(v, (int, Decimal)):
        return float(v)
    return v
