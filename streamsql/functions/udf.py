"""User-defined Python functions: how they are declared, loaded and called (PyFlink's ``pyflink.table.udf``).

This module is the user-facing one: it offers :func:`udf` (scalar functions, here),
:func:`~streamsql.functions.udaf.udaf` with ``AggregateFunction`` (aggregates,
:mod:`streamsql.functions.udaf`) and :func:`~streamsql.functions.udtf.udtf` with ``TableFunction``
(table functions, :mod:`streamsql.functions.udtf`), so a PyFlink UDF module needs only its imports
changed (and its types written as SQL text). :func:`declare` tells the kinds apart.


A UDF is a Python callable plus its SQL types: the result type (required) and the argument
types (optional: without them, each call's argument types are used). Types come from the
:func:`udf` decorator (``@udf(result_type="BIGINT", input_types=["STRING"])``, as PyFlink's
``udf``) or, failing that, from the annotations (``def f(s: str) -> int``; see
:data:`ANNOTATIONS`). ``func_type="general"`` (the default) calls the function once per row
with Python values (None for NULL); ``func_type="vectorized"`` (PyFlink: ``"pandas"``) calls it
once per batch with one ``pyarrow.Array`` per argument and expects an array (or list) of the
same length back.

Functions are registered as :class:`UserFunction` in the environment's catalog
(``Catalog.functions``) by ``CREATE [TEMPORARY] [SYSTEM] FUNCTION name AS 'module.func'
LANGUAGE PYTHON`` (the module found on the Python path, extended by ``'python.files'``) or
``StreamEnvironment.create_temporary_function(name, fn)``. The binder resolves a call as Flink
does: temporary system functions first, then built-ins, then the other user functions
(:func:`resolve`). Each one is evaluated through :mod:`streamsql.functions.python_functions`;
an exception fails the job naming the function and the failing row's arguments.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.py_values import user_values
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AGGREGATE_DOCS
from streamsql.functions.python_functions import VectorFunction, register, result_array
from streamsql.functions.scalars.calls import BUILT_IN_PTFS
from streamsql.functions.scalars.registry import REGISTRY, Call, ScalarFunction, family_of, template
from streamsql.functions.udaf import AggregateFunction, UserAggregate, declare_aggregate, is_aggregate, udaf
from streamsql.functions.udf_names import remember
from streamsql.functions.udf_types import annotation_type, argument_types
from streamsql.functions.udtf import (
    TableFunction,
    UserTableFunction,
    declare_table_function,
    is_table_function,
    udtf,
)

__all__ = ["AggregateFunction", "TableFunction", "UserAggregate", "UserFunction", "UserTableFunction",
           "declare", "udaf", "udf", "udtf"]

_FUNC_TYPES = {"general": False, "vectorized": True, "pandas": True, "arrow": True}
_ids = itertools.count()


def udf(f: Callable | None = None, *, result_type: str, input_types: list[str] | None = None,
        func_type: str = "general", deterministic: bool = True):
    """Declare a Python function's SQL types (usable as ``@udf(...)`` or ``udf(f, ...)``).

    Args:
        f: the function (omitted when used as a decorator with arguments).
        result_type: the SQL type of the result, e.g. ``"BIGINT"`` or ``"DECIMAL(10, 2)"``.
        input_types: the SQL types of the arguments (None: the types of each call).
        func_type: ``"general"`` (row by row) or ``"vectorized"`` (``pyarrow.Array`` in and out).
        deterministic: False when the function may give different results for the same input.

    Raises:
        ValueError: for an unknown ``func_type``.
    """
    if func_type not in _FUNC_TYPES:
        msg = f"func_type must be one of {', '.join(_FUNC_TYPES)}, not {func_type!r}"
        raise ValueError(msg)

    def declare(fn: Callable) -> Callable:
        fn.__streamsql_udf__ = {"result_type": result_type, "input_types": input_types,
                                "vectorized": _FUNC_TYPES[func_type], "deterministic": deterministic}
        return fn

    return declare(f) if f is not None else declare


@dataclass(frozen=True)
class UserFunction:
    """A registered Python UDF.

    Attributes:
        name: the SQL name, as declared.
        fn: the Python callable.
        result: the SQL result type.
        params: the SQL argument types (None: each call's).
        arity: the number of arguments (None: any).
        vectorized: called per batch with Arrow arrays (else per row with Python values).
        deterministic: as declared.
        system: a (temporary) system function, which shadows a built-in of the same name.
        path: where it came from ('module.func', or the callable's qualified name).
    """

    name: str
    fn: Callable
    result: SqlType
    params: tuple[SqlType, ...] | None
    arity: int | None
    vectorized: bool
    deterministic: bool
    system: bool
    path: str
    uid: int

    def entry(self) -> ScalarFunction:
        """The function as the binder sees it."""
        if self.params is not None:
            signatures = (tuple(family_of(t) for t in self.params),)
        else:
            signatures = (("ANY",) * self.arity,) if self.arity is not None else (("ANY...",),)
        return ScalarFunction(names=(self.name,), group="user", signatures=signatures,
                              result=lambda c: self.result, build=self._build,
                              deterministic=self.deterministic, nulls="as the Python function does")

    def _build(self, c: Call) -> exp.Expression:
        types = self.params or tuple(a.type or SqlType("STRING") for a in c.args)
        duck = tuple("VARCHAR" if t.name == "NULL" else t.duckdb() for t in types)
        prefix = f"__udf_{self.uid}_"
        name = prefix + "_".join(d.split("(")[0].lower() for d in duck)
        where = f"{getattr(self.fn, '__module__', None) or ''}.{getattr(self.fn, '__qualname__', self.path)}"
        remember(prefix, self.name, where)
        register(VectorFunction(name, f"Python function '{self.name}' ({self.path})", self._call, duck,
                                self.result.duckdb(), self.deterministic))
        casts = ", ".join(f"CAST({{{i}}} AS {d})" for i, d in enumerate(duck))
        return template(f"{name}({casts})", *c.args)

    def _call(self, *arrays: pa.ChunkedArray) -> pa.Array:
        out, declared = self.result.to_arrow(), self.result.sql()
        if self.vectorized:
            return result_array(self.fn(*(a.combine_chunks() for a in arrays)), out, declared)
        columns = [user_values(a) for a in arrays]
        return result_array([self.fn(*row) for row in zip(*columns)], out, declared)


def declare(name: str, fn: object, system: bool = False, path: str | None = None,
            ) -> UserFunction | UserAggregate | UserTableFunction:
    """The user function of ``fn``: an aggregate, a table function or a scalar function.

    An object with PyFlink's aggregate methods is an aggregate (:mod:`.udaf`), one declared with
    :func:`udtf`, a ``TableFunction`` or a generator function a table function (:mod:`.udtf`),
    any other callable a scalar function (:func:`declare_scalar`).

    Raises:
        SqlError: see :func:`declare_scalar`, :func:`~.udaf.declare_aggregate` and
            :func:`~.udtf.declare_table_function`.
    """
    if is_aggregate(fn):
        return declare_aggregate(name, fn, system, path)
    if is_table_function(fn):
        return declare_table_function(name, fn, system, path)
    return declare_scalar(name, fn, system, path)


def declare_scalar(name: str, fn: Callable, system: bool = False, path: str | None = None) -> UserFunction:
    """A :class:`UserFunction` of ``fn`` with its types from :func:`udf` or its annotations.

    Raises:
        SqlError: when ``fn`` is not callable, takes no argument, or its result type is not
            declared.
    """
    if not callable(fn):
        msg = f"Function '{name}': {path or fn!r} is not callable"
        raise SqlError(msg)
    declared = getattr(fn, "__streamsql_udf__", {})
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None
    returns = signature.return_annotation if signature else None
    result = declared.get("result_type") or annotation_type(returns)
    if result is None:
        msg = (f"Function '{name}': declare its result type (@udf(result_type='BIGINT') from "
               "streamsql.functions.udf, or a return annotation such as -> int)")
        raise SqlError(msg)
    inputs, arity = argument_types(list(signature.parameters.values()) if signature else [],
                                   declared.get("input_types"))
    if signature is None and not inputs:
        arity = None
    if arity == 0:
        msg = f"Function '{name}': a Python function needs at least one argument"
        raise SqlError(msg)
    return UserFunction(name=name, fn=fn, result=SqlType.parse(result),
                        params=tuple(SqlType.parse(t) for t in inputs) if inputs else None,
                        arity=arity, vectorized=declared.get("vectorized", False),
                        deterministic=declared.get("deterministic", True), system=system,
                        path=path or getattr(fn, "__qualname__", repr(fn)), uid=next(_ids))


def load(path: str, python_files: str | None = None) -> Callable:
    """The callable at ``'package.module.func'``, found on the Python path and ``python_files``.

    ``python_files`` is Flink's ``'python.files'``: comma-separated files (a ``.py`` file's
    folder is put on the path), folders and archives (``.zip``/``.whl``, put on the path).

    Raises:
        SqlError: when the module cannot be imported or has no such attribute.
    """
    for entry in (p.strip() for p in (python_files or "").split(",") if p.strip()):
        where = str(Path(entry).parent if entry.endswith(".py") else Path(entry))
        if where not in sys.path:
            sys.path.insert(0, where)
    module, _, attr = path.rpartition(".")
    if not module:
        msg = f"Function path '{path}' must be 'module.function'"
        raise SqlError(msg)
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as e:
        if (e.name or "").split(".")[0] == "pyflink":
            hint = ("StreamSQL has PyFlink's UDF API without PyFlink: import udf, udaf, udtf, "
                    "AggregateFunction and TableFunction from streamsql.functions.udf instead of "
                    "pyflink.table.udf, and write types as SQL text ('STRING' for DataTypes.STRING()); "
                    "see docs/udf.md")
        else:
            hint = "add it to 'python.files' or the Python path"
        msg = f"Cannot import '{module}' for function '{path}': {e} ({hint})"
        raise SqlError(msg) from None
    except AttributeError:
        msg = f"Module '{module}' has no function '{attr}'"
        raise SqlError(msg) from None


def add(functions: dict[str, object], uf: UserFunction, if_not_exists: bool = False) -> None:
    """Register ``uf`` in a catalog's functions.

    Raises:
        SqlError: when a function of that name exists and ``if_not_exists`` is not set.
    """
    key = uf.name.upper()
    if key in functions:
        if if_not_exists:
            return
        msg = f"Function '{uf.name}' already exists"
        raise SqlError(msg)
    functions[key] = uf


def drop(functions: dict[str, object], name: str, if_exists: bool = False) -> None:
    """Remove a user function.

    Raises:
        SqlError: when there is none of that name and ``if_exists`` is not set.
    """
    if functions.pop(name.upper(), None) is None and not if_exists:
        msg = f"Function '{name}' does not exist"
        raise SqlError(msg)


def resolve(functions: dict[str, object], name: str) -> ScalarFunction | None:
    """The function a call of ``name`` means: a system UDF, else a built-in, else a UDF."""
    uf = functions.get(name)
    if isinstance(uf, UserFunction) and uf.system:
        return uf.entry()
    builtin = REGISTRY.get(name)
    if builtin is not None:
        return builtin
    return uf.entry() if isinstance(uf, UserFunction) else None


#: The built-in functions of OVER windows and rankings (planned by streamsql.plan.over / ranking).
WINDOW_FUNCTIONS = ("ROW_NUMBER", "RANK", "DENSE_RANK", "LAG")


def show(functions: dict[str, object], user_only: bool) -> list[tuple[str]]:
    """Rows of SHOW [USER] FUNCTIONS: built-in and user function names.

    Built-in names are lower case, as Flink lists them: scalars, aggregates, window functions and
    the built-in process table functions (``to_changelog``, ``from_changelog``).
    """
    kinds = (UserFunction, UserAggregate, UserTableFunction)
    names = [f.name for f in functions.values() if isinstance(f, kinds)]
    if not user_only:
        aggregates = [name for doc in AGGREGATE_DOCS for name in doc.names]
        names += [n.lower() for n in (*REGISTRY, *aggregates, *WINDOW_FUNCTIONS, *BUILT_IN_PTFS)]
    return [(n,) for n in sorted(set(names), key=str.lower)]
