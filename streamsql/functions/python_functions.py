"""Scalar functions computed in Python over whole Arrow arrays, callable from DuckDB SQL.

Built-ins DuckDB has no function for (SHA-224/384/512, Java's URL encoding, PARSE_URL, ...)
and user-defined Python functions are registered here once per process as a
:class:`VectorFunction`; :func:`connect` opens a DuckDB database with every registered
function created on it (DuckDB's Arrow UDFs: one call per batch, arguments as Arrow arrays).
Opening one costs ~35 ms of CPU, so the planner and the operators that evaluate expressions take
a :func:`cursor` of one database the process shares instead (~0.01 ms): a connection of their own.

A function that raises fails the query; the failure is kept (:func:`take_failure`) so the
operator reports it in StreamSQL's words (the function, the argument values of the failing row,
the exception) instead of DuckDB's text. DuckDB calls the functions from its own worker
threads, so the failure is kept per function name, not per thread.
"""

from __future__ import annotations

import inspect
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.py_values import user_values


@dataclass(frozen=True)
class VectorFunction:
    """A Python function over Arrow arrays, as DuckDB calls it.

    Attributes:
        name: the DuckDB function name (unique in the process).
        label: the name users know it by (in error messages).
        fn: ``fn(*arrays) -> pa.Array`` of the same length (NULLs are passed in: the function
            decides what a NULL argument gives).
        params: the DuckDB types of the arguments.
        returns: the DuckDB type of the result.
        deterministic: False when two calls with the same arguments may differ.
        shown: the values a failing row's message shows, from its argument values (``None``: all
            of them), for a function called with arguments of the engine's own beside the user's.
    """

    name: str
    label: str
    fn: Callable[..., pa.Array]
    params: tuple[str, ...]
    returns: str
    deterministic: bool = True
    shown: Callable[[list], list] | None = None

    def __call__(self, *arrays: pa.ChunkedArray) -> pa.Array:
        """Call :attr:`fn`, keeping a failure for :func:`take_failure` before re-raising it."""
        try:
            return self.fn(*arrays)
        except Exception as e:
            row = _failing_row(self, arrays)
            detail = str(e) if isinstance(e, ResultError) else f"{type(e).__name__}: {e}"
            with _lock:
                _failures.setdefault(self.name, f"{self.label} failed on ({row}): {detail}")
            raise


class ResultError(Exception):
    """A function's result that is not a value of its declared type; the message says so to users."""


def result_array(values: list | pa.Array | pa.ChunkedArray, out: pa.DataType, declared: str) -> pa.Array:
    """``values`` (a function's results) as an Arrow array of type ``out``.

    A TIME result keeps whole milliseconds, cut toward midnight, and any ``tzinfo`` is ignored,
    as PyFlink's ``TimeCoderImpl.time_to_internal`` (``microsecond // 1000``).

    Raises:
        ResultError: naming the first value that is not of the declared type ``declared``
            (an INT result of 10**12, a str for a BIGINT), instead of Arrow's conversion error.
    """
    try:
        if isinstance(values, (pa.Array, pa.ChunkedArray)):
            return _whole_millis(values.cast(out))
        return _whole_millis(pa.array(values, out))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError, TypeError) as e:
        listed = values.to_pylist() if isinstance(values, (pa.Array, pa.ChunkedArray)) else values
        bad = next((v for v in listed if not _converts(v, out)), None)
        shown = f"returned {bad!r}" if bad is not None else f"returned values Arrow cannot convert ({e})"
        msg = f"it {shown}, which is not a value of its result type {declared}"
        raise ResultError(msg) from None


def _whole_millis(arr: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A ``time64[us]`` array (TIME) cut to whole milliseconds; any other array as it is."""
    if not pa.types.is_time64(arr.type):
        return arr
    micros = pc.cast(arr, pa.int64())
    return pc.cast(pc.multiply(pc.divide(micros, 1000), 1000), arr.type)


def _converts(value: object, out: pa.DataType) -> bool:
    try:
        pa.array([value], out)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError, TypeError):
        return False
    return True


_FUNCTIONS: dict[str, VectorFunction] = {}
_failures: dict[str, str] = {}
_lock = threading.Lock()
_registered = [0]  # how many times a function was registered: a planning connection's version
_planning = threading.local()
_shared_db: list = [None, -1, -1]  # the process's shared database, its version, the pid that opened it
_forked: list = []  # databases a forked child inherited: never closed (their threads are the parent's)
_shared_lock = threading.Lock()


def registered_version() -> int:
    """How many times a function was registered in this process (a planning answer's validity)."""
    return _registered[0]


def register(f: VectorFunction) -> VectorFunction:
    """Make ``f`` callable in every connection :func:`connect` opens from now on."""
    _FUNCTIONS[f.name] = f
    _registered[0] += 1
    return f


def shared_database() -> tuple[duckdb.DuckDBPyConnection, int]:
    """The process's shared database (a :func:`connect` connection) and its version.

    Opened again once a function is registered (a database has the functions registered before it
    opened) and in a forked child (the parent's database's threads do not exist there). Use it
    through :func:`cursor`, never directly: it is shared by every thread.
    """
    with _shared_lock:
        db, version, pid = _shared_db
        if db is None or version != _registered[0] or pid != os.getpid():
            if db is not None and pid != os.getpid():
                _forked.append(db)  # closing it would wait for threads that are not in this process
            _shared_db[:] = [connect(), _registered[0], os.getpid()]
        return _shared_db[0], _shared_db[1]


def cursor() -> duckdb.DuckDBPyConnection:
    """A :func:`quiet` connection of its own to the process's shared database (:func:`shared_database`).

    What DuckDB keeps per connection is the cursor's own: its registered Arrow tables (``__in``),
    its variables (``SET VARIABLE``), local settings (TimeZone, the progress bar) and temporary
    objects; so two cursors used by two threads cannot see each other's. What it keeps per
    database is shared: the catalog (the registered functions, which never change once created)
    and global settings such as ``threads`` (memory_limit, ...) — a caller that needs a global
    setting of its own opens a database of its own with :func:`connect`.

    The cursor keeps the database alive: DuckDB crashes the process (a segfault) when a cursor
    calls a Python function after its database's first connection was closed or collected, as it
    is when a function registered later opens a new shared database.
    """
    db, _ = shared_database()
    cur = quiet(db.cursor())
    weakref.finalize(cur, _keep, db)
    return cur


def _keep(db: duckdb.DuckDBPyConnection) -> None:
    """Nothing: holding ``db`` until a cursor of it is collected is the point (:func:`cursor`)."""


def planning_connection() -> duckdb.DuckDBPyConnection:
    """This thread's connection for checking queries at planning time (over empty tables).

    A :func:`cursor` of the shared database, one per thread (its own registered input table),
    opened again when the shared database is. A job's thread plans its operators when the job
    starts and keeps its cursor while it runs.
    """
    con = getattr(_planning, "con", None)
    db, version = shared_database()
    if con is None or _planning.db is not db:
        if con is not None:
            con.close()
        _planning.con, _planning.db = cursor(), db
    return _planning.con


def quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con`` without DuckDB's progress bar.

    DuckDB draws it on the process's stdout (a pipe or a file too) for any query running over 2 s:
    into the results StreamSQL prints there.
    """
    con.execute("SET enable_progress_bar = false")
    return con


def connect(overrides: dict[str, VectorFunction] | None = None) -> duckdb.DuckDBPyConnection:
    """A :func:`quiet` DuckDB connection, to a new in-memory database with every registered function.

    Each costs ~35 ms of CPU (its catalog with the functions), ~4-8 MiB and threads of its own:
    most callers want a :func:`cursor` instead. ``overrides``: functions of this database only, in
    place of the registered ones of the same names (a function with state of its own).
    """
    con = quiet(duckdb.connect())
    for registered in list(_FUNCTIONS.values()):  # a copy: another thread may register one meanwhile
        f = (overrides or {}).get(registered.name, registered)
        con.create_function(f.name, _with_arity(f), list(f.params), f.returns, type="arrow",
                            null_handling="special", side_effects=not f.deterministic)
    return con


class LazyConnection:
    """A class attribute giving each instance its own :func:`cursor`, opened at first use.

    An evaluator or operator that may never run SQL (a projection of plain columns, a GROUP BY
    whose accumulators numpy folds) opens none this way.

    >>> class Evaluator:
    ...     con = LazyConnection()
    >>> e = Evaluator()
    >>> "_lazy_con" in vars(e), e.con.execute("SELECT 1").fetchall(), "_lazy_con" in vars(e)
    (False, [(1,)], True)
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._attr = f"_lazy_{name}"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        con = obj.__dict__.get(self._attr)
        if con is None:
            con = obj.__dict__[self._attr] = cursor()
        return con


def _with_arity(f: VectorFunction) -> Callable[..., pa.Array]:
    """``f`` as a function whose signature has one parameter per argument (DuckDB checks it)."""

    def call(*arrays: pa.ChunkedArray) -> pa.Array:
        return f(*arrays)

    kind = inspect.Parameter.POSITIONAL_ONLY
    call.__signature__ = inspect.Signature([inspect.Parameter(f"a{i}", kind) for i in range(len(f.params))])
    return call


def take_failure(sql: str) -> str | None:
    """The failure of a function that query ``sql`` calls, or None (and forgets it)."""
    with _lock:
        name = next((n for n in _failures if n in sql), None)
        return None if name is None else _failures.pop(name)


def _failing_row(f: VectorFunction, arrays: tuple[pa.ChunkedArray, ...]) -> str:
    """The arguments of the first row on which ``f`` alone fails (all rows' if none does alone)."""
    n = len(arrays[0]) if arrays else 0
    for i in range(n):
        row = [a.slice(i, 1) for a in arrays]
        try:
            f.fn(*row)
        except Exception:
            values = [user_values(a)[0] for a in row]
            return ", ".join(repr(v) for v in (f.shown(values) if f.shown else values))
    return f"{n} rows"


def rowwise(fn: Callable[..., object | None], arrays: tuple[pa.ChunkedArray, ...],
            out: pa.DataType) -> pa.Array:
    """``fn`` applied row by row to the Python values (NULL in, NULL out for any NULL argument)."""
    columns = [user_values(a) for a in arrays]
    return pa.array([None if None in row else fn(*row) for row in zip(*columns)], out)
