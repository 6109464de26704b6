"""FIRST_VALUE, LAST_VALUE, LISTAGG and LAG: built-in aggregates whose result depends on the rows' order.

They run on the mechanism of Python aggregates (:class:`~streamsql.functions.udaf.PythonAggregate`):
an accumulator object per key, kept in keyed state with the key's other accumulators, folded
from the input rows *in arrival order* (``accumulate`` for +I/+U, ``retract`` for -U/-D), as
Flink's GroupAggFunction calls its aggregate functions per row. Each is an object with PyFlink's
methods (``create_accumulator``, ``accumulate``, ``retract``, ``get_value``) whose accumulator
is a list state can store; they are registered in
:data:`streamsql.functions.aggregates.FUNCTIONS` as built-ins (not user functions).

Semantics, as Flink's (flink-table-runtime ``functions/aggregate``):

- ``FIRST_VALUE(x)`` / ``LAST_VALUE(x)`` ignore NULLs and keep the argument's type. Over
  insert-only input the accumulator is the first (last) non-NULL value (FirstValueAggFunction,
  LastValueAggFunction). Over a changelog (``*_retract``, as FirstValueWithRetractAggFunction
  and LastValueWithRetractAggFunction) it is every present non-NULL value in arrival order:
  Flink orders values by arrival time, and a retraction removes the *earliest* occurrence of
  the value (``valueToOrderMap.get(v).get(0)``), so the result is the first (last) value still
  present; retracting a value not present changes nothing.
- ``LISTAGG(x [, separator])`` concatenates the non-NULL values in arrival order with the
  separator (default ``','``; the last accumulated row's separator is used, as Flink's
  ListAggWsWithRetractAggFunction keeps ``acc.delimiter``), STRING, NULL without a value; a
  retraction removes the first occurrence of the value (``ListView.remove``). Its accumulator is
  ``[separator, [values...]]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamsql.core.errors import PlanError
from streamsql.core.types import SqlType
from streamsql.functions.udaf import PythonAggregate


class FirstValue:
    """``FIRST_VALUE(x)`` over insert-only input: the accumulator holds the first non-NULL value."""

    def create_accumulator(self) -> list:
        """``[]``, then ``[first value]``."""
        return []

    def accumulate(self, acc: list, value) -> None:
        """Keep ``value`` if it is the first non-NULL one."""
        if value is not None and not acc:
            acc.append(value)

    def get_value(self, acc: list):
        """The first non-NULL value, or NULL."""
        return acc[0] if acc else None


class LastValue(FirstValue):
    """``LAST_VALUE(x)`` over insert-only input: the accumulator holds the last non-NULL value."""

    def accumulate(self, acc: list, value) -> None:
        """Replace the value by ``value`` when it is not NULL."""
        if value is not None:
            acc[:] = [value]


class FirstValueWithRetract(FirstValue):
    """``FIRST_VALUE(x)`` over a changelog: the accumulator holds the present values in arrival order."""

    def accumulate(self, acc: list, value) -> None:
        """Append a non-NULL ``value``."""
        if value is not None:
            acc.append(value)

    def retract(self, acc: list, value) -> None:
        """Remove the earliest occurrence of ``value`` (none: nothing changes)."""
        if value is not None and value in acc:
            acc.remove(value)


class LastValueWithRetract(FirstValueWithRetract):
    """``LAST_VALUE(x)`` over a changelog (as :class:`FirstValueWithRetract`; the result is the last)."""

    def get_value(self, acc: list):
        """The last present value, or NULL."""
        return acc[-1] if acc else None


class ListAgg:
    """``LISTAGG(x, separator)``: the accumulator is ``[separator, [values in arrival order]]``."""

    def create_accumulator(self) -> list:
        """Flink's default separator and no value."""
        return [",", []]

    def accumulate(self, acc: list, value, separator) -> None:
        """Append a non-NULL ``value``; its row's separator becomes the separator."""
        if value is not None:
            acc[0] = separator
            acc[1].append(value)

    def retract(self, acc: list, value, separator) -> None:
        """Remove the first occurrence of a non-NULL ``value``; its row's separator becomes the separator."""
        if value is not None:
            acc[0] = separator
            if value in acc[1]:
                acc[1].remove(value)

    def merge(self, acc: list, others: list) -> None:
        """Append the values of each of ``others`` that has some; its separator becomes the separator.

        As Flink's ListAggWsWithRetractAggFunction.merge (sessions merged, in their order).
        """
        for other in others:
            if other[1]:
                acc[0] = other[0]
                acc[1].extend(other[1])

    def get_value(self, acc: list):
        """The values joined by the separator; NULL without a value or with a NULL separator."""
        separator, values = acc
        if not values or separator is None:
            return None
        return separator.join(values)


class ListAggDistinct(ListAgg):
    """``LISTAGG(DISTINCT x, separator)``: the accumulator is ``[separator, [[value, count], ...]]``."""

    def accumulate(self, acc: list, value, separator) -> None:
        """Count a non-NULL ``value``; a new one is appended and its row's separator becomes the separator."""
        if value is None:
            return
        for entry in acc[1]:
            if entry[0] == value:
                entry[1] += 1
                return
        acc[0] = separator
        acc[1].append([value, 1])

    def retract(self, acc: list, value, separator) -> None:
        """Count a non-NULL ``value`` down; at zero it leaves, and its row's separator is kept."""
        if value is None:
            return
        for n, entry in enumerate(acc[1]):
            if entry[0] == value:
                entry[1] -= 1
                if entry[1] <= 0:
                    acc[0] = separator
                    del acc[1][n]
                return

    def merge(self, acc: list, others: list) -> None:
        """Add the counts of each of ``others``; a value new to ``acc`` is appended (sessions merged)."""
        for other in others:
            for value, count in other[1]:
                for entry in acc[1]:
                    if entry[0] == value:
                        entry[1] += count
                        break
                else:
                    acc[0] = other[0]
                    acc[1].append([value, count])

    def get_value(self, acc: list):
        """The distinct values joined by the separator; NULL without a value or with a NULL separator."""
        separator, entries = acc
        if not entries or separator is None:
            return None
        return separator.join(entry[0] for entry in entries)


class ListAggChar(ListAgg):
    """``LISTAGG(x)`` of a ``CHAR(n) NOT NULL`` argument: '' where no value counts (a FILTER no row passes).

    Calcite types LISTAGG as its argument (``ReturnTypes.ARG0_NULLABLE``: NOT NULL whatever the FILTER),
    so Flink 2.3 writes its function's NULL into a NOT NULL CHAR result, read back as ''
    (``LISTAGG('a') FILTER (WHERE FALSE)`` is '', and not NULL: ``IS NULL`` is FALSE; recorded in
    ``difffuzz_regressions.txt``). A STRING NOT NULL argument fails Flink's job instead
    ("Column 'EXPR$1' is NOT NULL, however, a null value is being written into it"): not followed.
    """

    def get_value(self, acc: list):
        """As :class:`ListAgg`'s, '' for its NULL."""
        value = super().get_value(acc)
        return "" if value is None else value


class ListAggDistinctChar(ListAggDistinct):
    """``LISTAGG(DISTINCT x)`` of a CHAR(n) NOT NULL argument: '' where none counts (:class:`ListAggChar`)."""

    def get_value(self, acc: list):
        """As :class:`ListAggDistinct`'s, '' for its NULL."""
        value = super().get_value(acc)
        return "" if value is None else value


@dataclass(frozen=True)
class BuiltInAggregate:
    """What :class:`PythonAggregate` needs of its function, for a built-in.

    Attributes:
        name: the SQL name (in error messages).
        impl: the aggregate object (:class:`FirstValue`, ...).
        arity: the number of argument columns.
    """

    name: str
    impl: object
    arity: int

    def label(self) -> str:
        """The function as error messages name it."""
        return f"Aggregate function {self.name}"


def _argument_type(arg: SqlType | None) -> SqlType:
    """FIRST_VALUE/LAST_VALUE: the argument's type, nullable (NULL without a value)."""
    return arg.with_nullable(True)


def _string(arg: SqlType | None) -> SqlType:
    """LISTAGG: STRING.

    Raises:
        PlanError: an argument that is not a character string.
    """
    if arg is None or arg.name != "STRING":
        msg = f"LISTAGG needs a STRING argument, got {arg}: CAST it to STRING"
        raise PlanError(msg)
    return SqlType("STRING")


class Lag:
    """``LAG(x [, offset [, default]]) OVER (...)``: the value ``offset`` rows before as Flink's LAG.

    The accumulator is ``[offset, default, [the last offset + 1 values]]`` (the current row's
    last, NULLs included); the result is the first of them once there are ``offset + 1``, else
    ``default`` (NULL when not given). Only in an OVER window; no retraction (Flink refuses a
    frame on LAG, and LEAD on a stream).
    """

    def create_accumulator(self) -> list:
        """``[1, None, []]``."""
        return [1, None, []]

    def accumulate(self, acc: list, value, offset, default) -> None:
        """Append ``value``; keep the last ``offset + 1``."""
        acc[0], acc[1] = offset, default
        buffer = acc[2]
        buffer.append(value)
        if len(buffer) > offset + 1:
            del buffer[0]

    def get_value(self, acc: list):
        """The value ``offset`` rows before the last accumulated one, else the default."""
        offset, default, buffer = acc
        return buffer[0] if len(buffer) == offset + 1 else default


def register_builtin(func: str, name: str, impl: object, arity: int, result_type) -> type[PythonAggregate]:
    """The :class:`PythonAggregate` class of a built-in row-wise aggregate (``func``: its AggSpec.func)."""
    function = BuiltInAggregate(name, impl, arity)
    return type(f"BuiltIn_{func}", (PythonAggregate,),
                {"func": func, "function": function, "result_type": staticmethod(result_type)})


ORDERED_FUNCTIONS = (
    register_builtin("first_value", "FIRST_VALUE", FirstValue(), 1, _argument_type),
    register_builtin("first_value_retract", "FIRST_VALUE", FirstValueWithRetract(), 1, _argument_type),
    register_builtin("last_value", "LAST_VALUE", LastValue(), 1, _argument_type),
    register_builtin("last_value_retract", "LAST_VALUE", LastValueWithRetract(), 1, _argument_type),
    register_builtin("listagg", "LISTAGG", ListAgg(), 2, _string),
    register_builtin("listagg_distinct", "LISTAGG", ListAggDistinct(), 2, _string),
    register_builtin("listagg_char", "LISTAGG", ListAggChar(), 2, _string),
    register_builtin("listagg_distinct_char", "LISTAGG", ListAggDistinctChar(), 2, _string),
    register_builtin("lag", "LAG", Lag(), 3, _argument_type),
)
"""The aggregate classes, by their ``AggSpec.func`` (``*_retract``: over a changelog)."""
