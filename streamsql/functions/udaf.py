"""User-defined Python aggregate functions (PyFlink's ``AggregateFunction`` and ``udaf``).

A user aggregate is an object with PyFlink's methods: ``create_accumulator()`` (a new,
mutable accumulator), ``accumulate(acc, *args)`` and, to run over a changelog,
``retract(acc, *args)`` (both change ``acc`` in place), ``merge(acc, accs)`` (fold the
accumulators ``accs`` into ``acc``) and ``get_value(acc)`` (the result). Its result type comes
from :func:`udaf` (``result_type``), ``get_result_type()`` returning SQL text, or the return
annotation of ``get_value``; its argument types, optionally, from ``input_types`` or the
annotations of ``accumulate`` after the accumulator.

In a GROUP BY the accumulator is one item of the key's accumulator list (after the row count,
see :mod:`streamsql.functions.accumulators`), folded from the batch's rows *in their order*:
``accumulate`` for +I/+U rows, ``retract`` for -U/-D rows (Flink's GroupAggFunction calls them
per row in the same way), so it is checkpointed, restored and evicted with the other
accumulators of the key. Reading state never runs code, so an accumulator must be what the
state's msgpack encoding stores: a list, tuple or dict of SQL values (PyFlink's ROW, ARRAY and
MAP accumulator types); anything else is refused when the function is declared, or fails the job
naming the function when it is written.

Each declared function is a subclass of :class:`PythonAggregate` registered in
:data:`streamsql.functions.aggregates.FUNCTIONS` under ``udaf_<id>_<name>`` (once per process,
as scalar UDFs register their DuckDB functions: a worker re-declares it by running the script).
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa

from streamsql.core.errors import ExecutionError, SqlError
from streamsql.core.py_values import user_values
from streamsql.core.types import SqlType
from streamsql.functions.aggregate_function import AggregateFunction as Aggregate
from streamsql.functions.udf_names import remember
from streamsql.functions.udf_types import annotation_type, argument_types, mark
from streamsql.state.layout import encode_value

_ids = itertools.count()


class AggregateFunction:
    """The base of a user aggregate, with PyFlink's method names (subclassing it is optional).

    Implement ``create_accumulator``, ``accumulate`` and ``get_value``; ``retract`` to be used
    over a changelog (a GROUP BY of an updating input); ``merge`` is part of PyFlink's contract.
    """

    def create_accumulator(self):
        """A new accumulator (a list, tuple or dict of SQL values)."""
        raise NotImplementedError

    def accumulate(self, accumulator, *args) -> None:
        """Add one row's arguments to ``accumulator`` (in place)."""
        raise NotImplementedError

    def get_value(self, accumulator):
        """The result of ``accumulator``."""
        raise NotImplementedError

    def get_result_type(self) -> str | None:
        """The SQL type of the result (e.g. ``"BIGINT"``), or None when declared elsewhere."""
        return None


def udaf(
    f=None,
    *,
    result_type: str | None = None,
    input_types: list[str] | None = None,
    accumulator_type: str | None = None,
    func_type: str = "general",
    deterministic: bool = True,
    name: str | None = None,
):
    """Declare a user aggregate's SQL types (PyFlink's ``udaf``; types as SQL text).

    Args:
        f: the aggregate (an instance, or a class made with no argument); omitted when used as a
            class decorator with arguments.
        result_type: the SQL type of the result.
        input_types: the SQL types of the arguments (None: each call's).
        accumulator_type: accepted for PyFlink compatibility (the accumulator is stored as it is).
        func_type: ``"general"`` only (PyFlink's ``"pandas"`` aggregates run in batch and window
            aggregations only; not supported here).
        deterministic: False when the result may differ for the same rows.
        name: accepted for PyFlink compatibility (the SQL name is the one it is registered by).

    Raises:
        ValueError: for a ``func_type`` other than ``"general"``.
    """
    if func_type != "general":
        msg = f"func_type={func_type!r}: only 'general' aggregate functions are supported"
        raise ValueError(msg)

    return mark(f, {"result_type": result_type, "input_types": input_types, "deterministic": deterministic})


def is_aggregate(obj: object) -> bool:
    """True for a user aggregate (an instance or class with PyFlink's aggregate methods)."""
    return all(callable(getattr(obj, m, None)) for m in ("create_accumulator", "accumulate", "get_value"))


@dataclass(frozen=True, eq=False)
class UserAggregate:
    """A registered user aggregate.

    ``name``, ``result``, ``params``, ``arity``, ``deterministic``, ``system`` and ``path`` mean
    what they mean for a scalar function (:class:`streamsql.functions.udf.UserFunction`);
    ``impl`` is the aggregate object and ``func`` its key in
    :data:`~streamsql.functions.aggregates.FUNCTIONS` (an ``AggSpec.func``).
    """

    name: str
    impl: object
    result: SqlType
    params: tuple[SqlType, ...] | None
    arity: int | None
    deterministic: bool
    system: bool
    path: str
    func: str

    @property
    def retracts(self) -> bool:
        """True when it implements ``retract`` (needed over a changelog)."""
        return callable(getattr(self.impl, "retract", None))

    @property
    def merges(self) -> bool:
        """True when it implements ``merge`` (needed to merge sessions)."""
        return callable(getattr(self.impl, "merge", None))

    def label(self) -> str:
        """The function as error messages name it."""
        return f"Python aggregate function '{self.name}' ({self.path})"


def declare_aggregate(name: str, obj: object, system: bool = False, path: str | None = None) -> UserAggregate:
    """A :class:`UserAggregate` of ``obj`` (an instance or class), registered for planning.

    Raises:
        SqlError: when its result type is not declared, or its first accumulator cannot be
            stored in state.
    """
    impl = obj() if isinstance(obj, type) else obj
    declared = getattr(impl, "__streamsql_udf__", {})
    get_result = getattr(impl, "get_result_type", None)
    result = declared.get("result_type") or (get_result() if callable(get_result) else None)
    if not isinstance(result, str):
        result = annotation_type(inspect.signature(impl.get_value).return_annotation)
    if result is None:
        msg = (
            f"Function '{name}': declare its result type (udaf(..., result_type='BIGINT') from "
            "streamsql.functions.udf, get_result_type() returning SQL text, or a return annotation "
            "of get_value)"
        )
        raise SqlError(msg)
    params = list(inspect.signature(impl.accumulate).parameters.values())[1:]  # after the accumulator
    inputs, arity = argument_types(params, declared.get("input_types"))
    path = path or f"{type(impl).__module__}.{type(impl).__qualname__}"
    if arity is None:
        msg = (f"Function '{name}': an aggregate with accumulate(acc, *args) needs input_types "
               "(udaf(..., input_types=[...]))")
        raise SqlError(msg)
    ua = UserAggregate(
        name=name,
        impl=impl,
        result=SqlType.parse(result),
        params=tuple(SqlType.parse(t) for t in inputs) if inputs else None,
        arity=arity,
        deterministic=declared.get("deterministic", True),
        system=system,
        path=path,
        func=f"udaf_{next(_ids)}_{name.lower()}",
    )
    remember(ua.func[:-len(name)], name, path)
    _storable(ua, impl.create_accumulator(), "its accumulator")
    # imported here: aggregates imports the built-in row-wise aggregates, which subclass PythonAggregate
    from streamsql.functions.aggregates import FUNCTIONS

    FUNCTIONS[ua.func] = type(
        f"PythonAggregate_{ua.func}",
        (PythonAggregate,),
        {"func": ua.func, "function": ua, "result_type": staticmethod(lambda arg: ua.result)},
    )
    return ua


def _storable(ua: UserAggregate, acc: object, what: str) -> None:
    """Raise when ``acc`` cannot be stored in state.

    Raises:
        SqlError: naming the function and what it returned.
    """
    try:
        encode_value([acc])
    except TypeError as e:
        msg = (
            f"{ua.label()}: {what} {acc!r} cannot be stored in state ({e}); an accumulator must be a "
            "list, tuple or dict of SQL values (e.g. [0, 0] for a sum and a count)"
        )
        raise SqlError(msg) from None


class PythonAggregate(Aggregate):
    """One call of a user aggregate (see module docstring).

    ``spec.arg`` is the first of its ``arity`` consecutive argument columns (None: no argument):
    :meth:`bind` finds them. In a GROUP BY (the object form) the rows are folded
    one by one (:meth:`fold_rows`). In a window aggregate, whose slices combine DuckDB partial
    states, the partial state is the list of the rows' arguments (a struct per row; the window's
    rows, not an accumulator, are kept), and the result accumulates them into a new accumulator
    when the window fires (:meth:`finish`).
    """

    rowwise = True
    function: ClassVar[UserAggregate]

    def bind(self, names: list[str]) -> None:
        """Find the argument columns among the input's ``names``: :attr:`arg_indexes`, :attr:`arg_columns`."""
        first = self.spec.arg
        self.arg_indexes = [] if first is None else list(range(first, first + self.function.arity))
        self.arg_columns = ['"' + names[i].replace('"', '""') + '"' for i in self.arg_indexes]

    def partial(self, sign: str | None) -> list[str]:
        """The list of the rows' arguments (insert-only: windows)."""
        fields = ", ".join(f"a{k} := {c}" for k, c in enumerate(self.arg_columns))
        return [f"list(struct_pack({fields}))" if fields else "list(true)"]

    def combine(self) -> list[str]:
        """The lists concatenated."""
        return [f"flatten(list({self.columns[0]}))"]

    def finish(self, parts):
        """Per group, a new accumulator that accumulated every row of its list, then its result.

        Raises:
            ExecutionError: the function raised.
        """
        accumulate, out = self.function.impl.accumulate, []
        for rows in user_values(parts[0]):
            acc = self.create()
            for row in rows:
                args = tuple(row.values()) if isinstance(row, dict) else ()
                try:
                    accumulate(acc, *args)
                except Exception as e:
                    self._fail("accumulate", args, e)
            out.append(self.result(acc))
        return pa.array(out, self.out_type)

    def create(self):
        """A new accumulator from ``create_accumulator()``."""
        return self._call("create_accumulator", ())

    def fold(self, accs, slot, parts) -> None:
        """Nothing: see :meth:`fold_rows`."""

    def fold_rows(self, accs: list[list], slot: int, columns: list[list], rows: list[int], signs,
                  origin: Callable[[int], str] | None = None) -> None:
        """Accumulate (sign +1) or retract (-1) row i's arguments into ``accs[rows[i]][slot]``, in order.

        Args:
            accs: the accumulator lists of the batch's keys.
            slot: this state's position in them.
            columns: the argument columns of the batch's rows (Python values).
            rows: per row, the index of its key in ``accs``.
            signs: per row, +1 or -1.
            origin: where row ``n`` was read from (``Batch.origin``), or None.

        Raises:
            ExecutionError: the function raised (naming it, the method, the row's arguments and
                the record).
        """
        impl = self.function.impl
        accumulate, retract = impl.accumulate, getattr(impl, "retract", None)
        arguments = zip(*columns) if columns else itertools.repeat(())
        for n, (i, args, sign) in enumerate(zip(rows, arguments, signs)):
            try:
                (accumulate if sign > 0 else retract)(accs[i][slot], *args)
            except Exception as e:
                self._fail("accumulate" if sign > 0 else "retract", args, e, origin(n) if origin else None)

    def merge(self, a, b):
        """``merge(a, [b])``, then ``a``."""
        self._call("merge", (a, [b]))
        return a

    def result(self, acc):
        """``get_value(acc)``."""
        return self._call("get_value", (acc,))

    def _call(self, method: str, args: tuple):
        try:
            return getattr(self.function.impl, method)(*args)
        except Exception as e:
            self._fail(method, args, e)

    def _fail(self, method: str, args: tuple, e: Exception, record: str | None = None):
        shown = ", ".join(repr(a) for a in args)
        msg = f"{self.function.label()} failed in {method} on ({shown}): {type(e).__name__}: {e}"
        if record is not None:
            msg += f" (record {record})"
        raise ExecutionError(msg) from None
