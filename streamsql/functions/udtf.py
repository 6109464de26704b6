"""User-defined Python table functions (PyFlink's ``TableFunction`` and ``udtf``).

A table function gives zero or more rows per call: a generator function (or one returning an
iterable), or an object whose ``eval(*args)`` is one. Each item is a row: a tuple or list of the
result columns, or a bare value when there is one column. Its result types are declared with
:func:`udtf` (``result_types``, SQL text) or a ``result_types`` attribute; its argument types,
optionally, with ``input_types`` or annotations. The columns are named ``f0, f1, ...`` (as
Flink names a table function's row fields) unless the query renames them
(``LATERAL TABLE(f(x)) AS T(a, b)``). Queries use it through
:mod:`streamsql.plan.lateral` and the runtime's Correlate operator.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from streamsql.core.errors import ExecutionError, SqlError
from streamsql.core.types import SqlType
from streamsql.functions.udf_types import argument_types, mark

_ids = itertools.count()


class TableFunction:
    """The base of a user table function, with PyFlink's method name (subclassing it is optional)."""

    def eval(self, *args):
        """Yield the rows of one call."""
        raise NotImplementedError


def udtf(
    f=None,
    *,
    result_types: list[str] | str,
    input_types: list[str] | None = None,
    deterministic: bool = True,
    name: str | None = None,
):
    """Declare a table function's SQL types (PyFlink's ``udtf``; types as SQL text).

    Args:
        f: a generator function, or a ``TableFunction`` (instance or class made with no
            argument); omitted when used as a decorator with arguments.
        result_types: the SQL type of each result column (one type: one column).
        input_types: the SQL types of the arguments (None: each call's).
        deterministic: False when the rows may differ for the same arguments.
        name: accepted for PyFlink compatibility (the SQL name is the one it is registered by).
    """
    types = [result_types] if isinstance(result_types, str) else list(result_types)
    return mark(f, {"table": True, "result_types": types, "input_types": input_types,
                    "deterministic": deterministic})


def is_table_function(obj: object) -> bool:
    """True for a table function: declared with :func:`udtf`, a ``TableFunction`` or a generator function."""
    return (
        getattr(obj, "__streamsql_udf__", {}).get("table", False)
        or isinstance(obj, TableFunction)
        or (isinstance(obj, type) and issubclass(obj, TableFunction))
        or inspect.isgeneratorfunction(obj)
    )


@dataclass(frozen=True, eq=False)
class UserTableFunction:
    """A registered table function.

    Attributes:
        name: the SQL name, as declared.
        fn: the callable that gives a call's rows (the function, or the object's ``eval``).
        results: the SQL type of each result column.
        params: the SQL argument types (None: each call's).
        arity: the number of arguments (None: any).
        deterministic: as declared.
        system: a (temporary) system function.
        path: where it came from.
    """

    name: str
    fn: Callable
    results: tuple[SqlType, ...]
    params: tuple[SqlType, ...] | None
    arity: int | None
    deterministic: bool
    system: bool
    path: str
    uid: int

    def rows(self, args: tuple) -> list[tuple]:
        """The result rows of one call with ``args`` (each a tuple of the result columns).

        Raises:
            ExecutionError: the function raised, or gave a row of the wrong width.
        """
        width = len(self.results)
        try:
            out = self.fn(*args)
            rows = (
                []
                if out is None
                else [(r,) if width == 1 and not isinstance(r, (tuple, list)) else tuple(r) for r in out]
            )
        except Exception as e:
            shown = ", ".join(repr(a) for a in args)
            msg = (f"Python table function '{self.name}' ({self.path}) failed on ({shown}): "
                   f"{type(e).__name__}: {e}")
            raise ExecutionError(msg) from None
        for r in rows:
            if len(r) != width:
                msg = (
                    f"Python table function '{self.name}' ({self.path}) gave the row {r!r} of {len(r)} "
                    f"columns; its result_types declare {width}"
                )
                raise ExecutionError(msg)
        return rows


def declare_table_function(
    name: str,
    obj: object,
    system: bool = False,
    path: str | None = None,
) -> UserTableFunction:
    """A :class:`UserTableFunction` of ``obj`` (a generator function, or an object with ``eval``).

    Raises:
        SqlError: when its result types are not declared.
    """
    impl = obj() if isinstance(obj, type) else obj
    declared = getattr(impl, "__streamsql_udf__", {})
    fn = impl.eval if callable(getattr(impl, "eval", None)) else impl
    results = declared.get("result_types") or getattr(impl, "result_types", None)
    if not results:
        msg = (
            f"Function '{name}': declare its result types (udtf(..., result_types=['STRING', 'INT']) from "
            "streamsql.functions.udf)"
        )
        raise SqlError(msg)
    results = [results] if isinstance(results, str) else results
    inputs, arity = argument_types(
        list(inspect.signature(fn).parameters.values()), declared.get("input_types")
    )
    return UserTableFunction(
        name=name,
        fn=fn,
        results=tuple(SqlType.parse(t) for t in results),
        params=tuple(SqlType.parse(t) for t in inputs) if inputs else None,
        arity=arity,
        deterministic=declared.get("deterministic", True),
        system=system,
        path=path or getattr(fn, "__qualname__", repr(fn)),
        uid=next(_ids),
    )
