"""RAND(seed) and RAND_INTEGER(seed, bound) as Flink's code generator computes them.

Flink's ``RandCallGen`` (Flink 2.3):

- a **literal** seed: one ``java.util.Random`` per call site, a member of the generated operator
  created with the seed when the operator opens (so again after a restart: never checkpointed),
  advanced by each row the call is evaluated on — the rows its filter keeps, for a call in a
  projection; only the rows that reach a CASE branch, for a call inside one. A NULL seed gives NULL.
- any **other** seed: ``new java.util.Random(seed)`` per row, of which the call takes the first value.
- a NULL argument gives NULL and draws nothing; a bound <= 0 fails the job with Java's
  "bound must be positive".

Here a literal-seed call is a DuckDB function with state: its arguments are a call-site id
(unique in the process), the seed and the bound. The operator that evaluates it opens a database of
its own (:func:`seeded_connection`) whose functions keep their Randoms for that operator instance
only, with one DuckDB thread (the rows reach the function in their order); so does a VALUES source
each time it opens (a restored job draws the same values again, as Flink's). Evaluated elsewhere (the
process's shared database: a constant folded at planning), one Random per call site serves the whole
process.
"""

from __future__ import annotations

import itertools
import threading

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, connect, register
from streamsql.functions.scalars.java_random import JavaRandom, first_doubles, first_ints
from streamsql.functions.scalars.registry import Call, sql_string, template

RAND_SEEDED = "__streamsql_rand_seeded"
"""The DuckDB function of a literal-seed call: ``(site VARCHAR, seed INTEGER[, bound INTEGER])``."""

_sites = itertools.count()


class Sites:
    """The Randoms of literal-seed call sites, by site id: created by a site's first rows."""

    def __init__(self):
        self._random: dict[str, JavaRandom] = {}
        self._lock = threading.Lock()

    def random(self, site: str, seed: int) -> JavaRandom:
        """The Random of ``site``, ``new Random(seed)`` at its first use."""
        with self._lock:
            r = self._random.get(site)
            if r is None:
                r = self._random[site] = JavaRandom(seed)
            return r


def _doubles(sites: Sites):
    def fn(site: pa.ChunkedArray, seed: pa.ChunkedArray) -> pa.Array:
        n = len(site)
        if n == 0 or seed[0].as_py() is None:
            return pa.nulls(n, pa.float64())
        return pa.array(sites.random(site[0].as_py(), seed[0].as_py()).doubles(n))
    return fn


def _ints(sites: Sites):
    def fn(site: pa.ChunkedArray, seed: pa.ChunkedArray, bound: pa.ChunkedArray) -> pa.Array:
        n = len(site)
        if n == 0 or seed[0].as_py() is None:
            return pa.nulls(n, pa.int32())
        valid = bound.is_valid().to_numpy(zero_copy_only=False)
        values = np.zeros(n, np.int64)
        given = bound.fill_null(1).to_numpy().astype(np.int64)[valid]
        values[valid] = sites.random(site[0].as_py(), seed[0].as_py()).ints(given)
        return pa.array(values, pa.int32(), mask=~valid)
    return fn


def _user_args(values: list) -> list:
    """A literal-seed call's arguments as written: without the call-site id."""
    return values[1:]


def _functions(sites: Sites) -> dict[str, VectorFunction]:
    return {RAND_SEEDED: VectorFunction(RAND_SEEDED, "Function RAND", _doubles(sites), ("VARCHAR", "INTEGER"),
                                        "DOUBLE", deterministic=False, shown=_user_args),
            f"{RAND_SEEDED}_int": VectorFunction(f"{RAND_SEEDED}_int", "Function RAND_INTEGER", _ints(sites),
                                                 ("VARCHAR", "INTEGER", "INTEGER"), "INTEGER",
                                                 deterministic=False, shown=_user_args)}


for _f in _functions(Sites()).values():
    register(_f)


def _first_double(seed: pa.ChunkedArray) -> pa.Array:
    valid = seed.is_valid().to_numpy(zero_copy_only=False)
    return pa.array(first_doubles(seed.fill_null(0).to_numpy().astype(np.int64)), mask=~valid)


def _first_int(seed: pa.ChunkedArray, bound: pa.ChunkedArray) -> pa.Array:
    valid = (seed.is_valid().to_numpy(zero_copy_only=False) & bound.is_valid().to_numpy(zero_copy_only=False))
    values = np.zeros(len(seed), np.int64)
    values[valid] = first_ints(seed.fill_null(0).to_numpy().astype(np.int64)[valid],
                               bound.fill_null(1).to_numpy().astype(np.int64)[valid])
    return pa.array(values, pa.int32(), mask=~valid)


_PER_ROW = register(VectorFunction("__streamsql_rand_per_row", "Function RAND", _first_double, ("INTEGER",),
                                   "DOUBLE", deterministic=False))
_PER_ROW_INT = register(VectorFunction("__streamsql_rand_integer_per_row", "Function RAND_INTEGER",
                                       _first_int, ("INTEGER", "INTEGER"), "INTEGER", deterministic=False))


def seeded(c: Call) -> exp.Expression:
    """RAND(seed) / RAND_INTEGER(seed, bound): the DuckDB expression (see the module docstring).

    Raises:
        FunctionError: for a BIGINT argument, in Flink's words (its code generator has no such call).
    """
    for a in c.args:
        if a.type is not None and a.type.name == "BIGINT":
            shown = ", ".join(str(x.type) if x.type is not None else "NULL" for x in c.args)
            msg = f"Unsupported call: {c.name.upper()}({shown})"
            raise c.fail(msg)
    integer = len(c.args) == 2
    casts = ", ".join(f"CAST({{{i}}} AS INTEGER)" for i in range(len(c.args)))
    if c.args[0].is_literal:
        name = f"{RAND_SEEDED}_int" if integer else RAND_SEEDED
        return template(f"{name}({sql_string(str(next(_sites)))}, {casts})", *c.args)
    name = _PER_ROW_INT.name if integer else _PER_ROW.name
    return template(f"{name}({casts})", *c.args)


def uses_seeded(sql: str) -> bool:
    """Whether DuckDB SQL ``sql`` calls a literal-seed RAND (evaluated on a :func:`seeded_connection`)."""
    return RAND_SEEDED in sql


def seeded_connection() -> duckdb.DuckDBPyConnection:
    """A database of one operator instance's own: its literal-seed Randoms, one DuckDB thread."""
    con = connect(_functions(Sites()))
    con.execute("SET threads = 1")
    return con
