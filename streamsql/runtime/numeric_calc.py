"""Numeric SELECT items and WHERE conditions by numpy instead of DuckDB, where provably DuckDB's answer.

A projection's computed items (:meth:`~streamsql.plan.query.QuerySpec.computed_part`) are
DuckDB SQL text. Each DuckDB query costs ~1.4 ms of fixed work per batch (register, bind,
export: benchmarks/README.md, session 25), two thirds of Nexmark Q1's ``CAST(price * 0.908 AS
DOUBLE)``. :func:`compile_items` reads that text back (sqlglot's DuckDB dialect, so the program
is the very expression DuckDB would run, with the Flink semantics the planner put into it) and
compiles it when every node is one of:

- a column of type BIGINT, INTEGER, DOUBLE or DECIMAL (precision <= 18), or a literal (integer,
  or decimal without exponent: DuckDB types ``0.908`` DECIMAL(4, 3));
- ``+ - *`` of two DECIMAL/integer operands (exact, on int64 unscaled values, the integer being
  a DECIMAL of scale 0 as DuckDB casts it), ``+ - * /`` and unary ``-`` of two DOUBLEs (IEEE,
  as DuckDB: ``x / 0`` is ±inf or NaN);
- ``CAST``/``TRY_CAST`` to BIGINT/INTEGER (from integers), DECIMAL(p, s) (from integers and
  decimals, same or larger scale) and DOUBLE (from any of them).

Integer ``+ - *`` (the planner writes Java's wrap-around through HUGEINT masks) and everything
else is not compiled: DuckDB runs such an item as before. A compiled item is evaluated per
batch by :meth:`NumericItems.run`, which returns None — run DuckDB on this batch — whenever
a value leaves the range where the numpy answer is exact: an int64 overflow of a DECIMAL's
unscaled value, a DECIMAL value beyond 2^53 cast to DOUBLE (below it, ``float(u) / 10.0**s`` is
one IEEE division of exact operands, the correctly rounded value, which is what DuckDB's
``CAST(DECIMAL AS DOUBLE)`` computes; Flink's ``BigDecimal.doubleValue`` too), a rescale that
would round, or a CAST DuckDB would fail (out of the target's range: DuckDB's own error then
names the value). ``TRY_CAST`` out of range is NULL, as DuckDB's. A NULL operand gives NULL.

A WHERE condition (:func:`compile_condition`) compiles the same way when it is made of
comparisons (``= <> < <= > >=``, ``BETWEEN``, ``IN`` a list of numbers) of such expressions,
``%`` of integers (the remainder with the dividend's sign, DuckDB's and Java's), ``IS [NOT]
NULL``, BOOLEAN columns and ``AND``/``OR``/``NOT`` (SQL's three-valued logic); a CASE whose
conditions are constants (the planner's guard of a literal divisor, ``CASE WHEN (123) = 0 THEN
error(...) ELSE (123) END``) is its branch. :meth:`NumericFilter.mask` gives the rows the WHERE
keeps (TRUE; FALSE and NULL are dropped), or None for DuckDB: a divisor of 0 or -1, a NaN
compared (DuckDB orders NaN above every number and equal to itself), or a value outside the
exact domain as above. The runtime (:class:`~streamsql.runtime.evaluator.BatchQuery`) then runs
the SELECT items over the kept rows alone, as DuckDB's WHERE does: Nexmark Q2's ``auction % 123
= 0`` costs 0.013 µs per row instead of DuckDB's 0.26 (benchmarks/README.md, session 28).

Checked against DuckDB on random inputs (NULLs, boundaries, overflow, negative values):
``tests/runtime/test_numeric_calc.py``, ``tests/runtime/test_numeric_filter.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

#: A DECIMAL's unscaled value is exact in float64 up to this magnitude.
_EXACT_DOUBLE = 1 << 53
_INT_RANGE = {"BIGINT": (-(1 << 63), (1 << 63) - 1), "INT": (-(1 << 31), (1 << 31) - 1)}


class _Unsupported(Exception):
    """The expression has a node this compiler does not handle (DuckDB runs it)."""


class _Outside(Exception):
    """A value of this batch leaves the exact domain (DuckDB runs the batch)."""


@dataclass
class _Val:
    """A column's values during evaluation.

    Attributes:
        kind: ``'int'`` (int64 values), ``'dec'`` (int64 unscaled values), ``'double'`` (float64)
            or ``'bool'`` (numpy bool: a condition's TRUE/FALSE).
        data: the values, 0 (False) where NULL.
        valid: True where not NULL (None: no NULL).
        scale: a ``'dec'``'s scale.
    """

    kind: str
    data: np.ndarray
    valid: np.ndarray | None
    scale: int = 0


def _and(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return b
    return a if b is None else a & b


def _type_of(node: exp.DataType) -> tuple:
    """(kind, precision, scale) of a CAST target, or raise :class:`_Unsupported`."""
    t = node.this
    if t == exp.DataType.Type.BIGINT:
        return ("BIGINT", 0, 0)
    if t == exp.DataType.Type.INT:
        return ("INT", 0, 0)
    if t == exp.DataType.Type.DOUBLE:
        return ("DOUBLE", 0, 0)
    if t == exp.DataType.Type.DECIMAL and len(node.expressions) == 2:
        p, s = (int(e.this.this) for e in node.expressions)
        return ("DECIMAL", p, s)
    raise _Unsupported(node.sql("duckdb"))


def _column(arr: pa.ChunkedArray | pa.Array) -> _Val:
    """An input column as a :class:`_Val` (integers, DOUBLE, DECIMAL up to 18 digits)."""
    t = arr.type
    valid = None
    if arr.null_count:
        valid = pc.is_valid(arr).to_numpy(zero_copy_only=False)
    if pa.types.is_integer(t) and t.bit_width in (32, 64) and pa.types.is_signed_integer(t):
        filled = pc.fill_null(arr, 0) if arr.null_count else arr
        return _Val("int", filled.to_numpy().astype(np.int64, copy=False), valid)
    if pa.types.is_float64(t):
        filled = pc.fill_null(arr, 0.0) if arr.null_count else arr
        return _Val("double", filled.to_numpy(), valid)
    if pa.types.is_boolean(t):
        filled = pc.fill_null(arr, False) if arr.null_count else arr
        return _Val("bool", filled.to_numpy(zero_copy_only=False), valid)
    if pa.types.is_decimal128(t) and t.precision <= 18:
        # the unscaled values are the low 64 bits of each 16-byte value (|u| < 10^18 fits)
        chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
        parts = [np.frombuffer(c.buffers()[1], np.int64)[2 * c.offset:2 * (c.offset + len(c)):2]
                 for c in chunks]
        data = np.concatenate([np.zeros(0, np.int64), *parts])  # a copy: NULLs are zeroed below
        if valid is not None:
            data[~valid] = 0
        return _Val("dec", data, valid, t.scale)
    raise _Unsupported(str(t))


def _checked(op, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``op`` of two int64 arrays, raising :class:`_Outside` where the exact result leaves int64."""
    with np.errstate(over="ignore"):
        out = op(a, b)
    # float64 of the same operation is within a relative 2^-52 of the exact value: a result near
    # or past 2^63 in magnitude is refused before the wrapped int64 could be taken for it
    approx = op(a.astype(np.float64), b.astype(np.float64))
    if len(approx) and float(np.abs(approx).max()) >= 2.0 ** 62:
        raise _Outside
    return out


def _pow10(n: int) -> int:
    return 10 ** n


def _beyond(data: np.ndarray, limit: int) -> bool:
    """Whether a value of ``data`` (int64) is beyond ``limit`` in magnitude (not by ``abs``: -2^63)."""
    return len(data) > 0 and (int(data.max()) > limit or int(data.min()) < -limit)


def _rescale(v: _Val, scale: int) -> np.ndarray:
    """``v``'s unscaled values at ``scale`` >= its own (exact, or :class:`_Outside`)."""
    if scale == v.scale:
        return v.data
    if scale - v.scale > 18:
        raise _Outside
    return _checked(np.multiply, v.data, np.full(len(v.data), _pow10(scale - v.scale), np.int64))


def _as_dec(v: _Val) -> _Val:
    """An integer as the DECIMAL of scale 0 DuckDB casts it to; a DECIMAL as it is."""
    return _Val("dec", v.data, v.valid, 0) if v.kind == "int" else v


class _Compiler:
    """Builds ``(kind, program)`` per expression node: ``program(table) -> _Val`` of that kind."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema

    def compile(self, node: exp.Expression) -> tuple[str, int, object]:
        """``(kind, scale, program)`` of ``node``, or raise :class:`_Unsupported`."""
        if isinstance(node, exp.Paren):
            return self.compile(node.this)
        if isinstance(node, exp.Column) and not node.table:
            return self._column(node.name)
        if isinstance(node, exp.Literal) and not node.is_string:
            return self._literal(node.this)
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
            return self._literal(node.this.this, negative=True)  # DuckDB's constant -5, -1.5
        if isinstance(node, exp.Neg):
            kind, _, inner = self.compile(node.this)
            if kind != "double":  # integer negation wraps in the planner's SQL: DuckDB's
                raise _Unsupported
            return kind, 0, lambda table: _negate(inner(table))
        if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
            return self._binary(node)
        if isinstance(node, exp.Mod):
            return self._mod(node)
        if isinstance(node, exp.Case):
            return self.compile(self._case_branch(node))
        if isinstance(node, tuple(_COMPARISONS)) or isinstance(node, (exp.Between, exp.In)):
            return "bool", 0, comparison(self, node)
        if isinstance(node, (exp.And, exp.Or, exp.Not, exp.Is, exp.Boolean)):
            return "bool", 0, logic(self, node)
        if isinstance(node, exp.Cast):  # TryCast is a Cast
            target = _type_of(node.to)
            kind, scale, inner = self.compile(node.this)
            lenient = isinstance(node, exp.TryCast) or bool(node.args.get("safe"))
            if kind == "double" and target[0] != "DOUBLE":
                raise _Unsupported  # DOUBLE to an exact type rounds
            if kind == "dec" and target[0] in _INT_RANGE:
                raise _Unsupported  # DECIMAL to an integer rounds
            if target[0] == "DECIMAL" and target[2] < scale:
                raise _Unsupported  # a DECIMAL to a smaller scale rounds
            out = {"DOUBLE": "double", "DECIMAL": "dec"}.get(target[0], "int")
            return out, target[2], lambda table: _cast(inner(table), target, lenient)
        raise _Unsupported(type(node).__name__)

    def _column(self, name: str) -> tuple[str, int, object]:
        if name not in self.schema.names:
            raise _Unsupported(name)
        i = self.schema.get_field_index(name)
        empty = _column(pa.array([], self.schema.field(i).type))  # raises for other types
        return empty.kind, empty.scale, lambda table: _column(table.column(i))

    @staticmethod
    def _literal(text: str, negative: bool = False) -> tuple[str, int, object]:
        if not all(c.isdigit() or c == "." for c in text) or text.count(".") > 1:
            raise _Unsupported(text)  # an exponent: a DOUBLE literal, not compiled
        whole, _, frac = text.partition(".")
        unscaled, scale = int(whole + frac or "0"), len(frac)
        if unscaled >= 1 << 62:
            raise _Unsupported(text)
        unscaled = -unscaled if negative else unscaled
        kind = "dec" if "." in text else "int"

        def literal(table: pa.Table) -> _Val:
            return _Val(kind, np.full(table.num_rows, unscaled, np.int64), None, scale)

        return kind, scale, literal

    def _binary(self, node: exp.Binary) -> tuple[str, int, object]:
        (ka, sa, left), (kb, sb, right) = self.compile(node.this), self.compile(node.expression)
        op = {exp.Add: np.add, exp.Sub: np.subtract, exp.Mul: np.multiply, exp.Div: np.divide}[type(node)]
        if ka == "double" and kb == "double":
            def double(table: pa.Table) -> _Val:
                a, b = left(table), right(table)
                with np.errstate(all="ignore"):  # IEEE, as DuckDB: x / 0 is ±inf or NaN
                    return _Val("double", op(a.data, b.data), _and(a.valid, b.valid))
            return "double", 0, double
        if "double" in (ka, kb) or op is np.divide or (ka == "int" and kb == "int"):
            raise _Unsupported  # mixed kinds, decimal division, integer wrap-around

        def decimal(table: pa.Table) -> _Val:
            a, b = _as_dec(left(table)), _as_dec(right(table))
            valid = _and(a.valid, b.valid)
            if op is np.multiply:
                return _Val("dec", _checked(op, a.data, b.data), valid, a.scale + b.scale)
            scale = max(a.scale, b.scale)
            return _Val("dec", _checked(op, _rescale(a, scale), _rescale(b, scale)), valid, scale)

        return "dec", sa + sb if op is np.multiply else max(sa, sb), decimal


    def _mod(self, node: exp.Mod) -> tuple[str, int, object]:
        """``a % b`` of two integers: the remainder with the dividend's sign (DuckDB's, Java's)."""
        (ka, _, left), (kb, _, right) = self.compile(node.this), self.compile(node.expression)
        if ka != "int" or kb != "int":
            raise _Unsupported  # a DECIMAL or DOUBLE remainder
        def mod(table: pa.Table) -> _Val:
            a, b = left(table), right(table)
            valid = _and(a.valid, b.valid)
            live = b.data if valid is None else b.data[valid]
            if len(live) and bool(((live == 0) | (live == -1)).any()):
                raise _Outside  # x % 0 (DuckDB: NULL) and MIN % -1: DuckDB's answer
            with np.errstate(all="ignore"):
                return _Val("int", np.fmod(a.data, np.where(b.data == 0, 1, b.data)), valid)
        return "int", 0, mod

    def _case_branch(self, node: exp.Case) -> exp.Expression:
        """The branch a CASE whose WHEN conditions are all constant takes.

        The planner guards a literal divisor so: ``CASE WHEN (123) = 0 THEN error(...) ELSE (123) END``.
        """
        if node.this is not None:
            raise _Unsupported  # CASE x WHEN ...
        one = pa.Table.from_arrays([pa.array([0], pa.int8())], names=["_"])  # pa.table(dict) imports pandas
        for branch in node.args.get("ifs") or []:
            cond = branch.this
            if cond.find(exp.Column) is not None:
                raise _Unsupported  # decided per row: DuckDB
            kind, _, program = self.compile(cond)
            try:
                v = program(one)
            except _Outside:
                raise _Unsupported from None
            if kind != "bool":
                raise _Unsupported
            if bool(v.data[0]) and (v.valid is None or bool(v.valid[0])):
                return branch.args["true"]
        default = node.args.get("default")
        if default is None:
            raise _Unsupported  # NULL: not compiled
        return default


#: DuckDB's comparison nodes and numpy's operators for them.
_COMPARISONS = {exp.EQ: np.equal, exp.NEQ: np.not_equal, exp.GT: np.greater, exp.GTE: np.greater_equal,
                exp.LT: np.less, exp.LTE: np.less_equal}


def comparison(compiler: _Compiler, node: exp.Expression):
    """The program of a comparison, ``BETWEEN`` or ``IN`` (a list of values): a ``'bool'`` :class:`_Val`.

    Integers and DECIMALs compare exactly (at the larger scale, as DuckDB casts them to one
    DECIMAL); two DOUBLEs as IEEE numbers, except that a batch holding a NaN is DuckDB's (which
    orders NaN above every number and equal to itself). A DOUBLE against an exact number is not
    compiled. A NULL operand gives NULL (False with ``valid`` False).
    """
    if isinstance(node, exp.Between):
        if node.args.get("symmetric"):
            raise _Unsupported
        low = exp.GTE(this=node.this, expression=node.args["low"])
        high = exp.LTE(this=node.this.copy(), expression=node.args["high"])
        return compiler.compile(exp.And(this=low, expression=high))[2]
    if isinstance(node, exp.In):
        if any(node.args.get(k) for k in ("query", "unnest", "field")) or not node.expressions:
            raise _Unsupported
        either = None
        for value in node.expressions:  # x IN (a, b) is x = a OR x = b, NULLs included
            eq = exp.EQ(this=node.this.copy(), expression=value.copy())
            either = eq if either is None else exp.Or(this=either, expression=eq)
        return compiler.compile(either)[2]
    op = _COMPARISONS[type(node)]
    (ka, _, left), (kb, _, right) = compiler.compile(node.this), compiler.compile(node.expression)
    double = ka == "double" and kb == "double"
    if not double and ({ka, kb} & {"double", "bool"}):
        raise _Unsupported  # mixed DOUBLE and exact operands, booleans

    def compare(table: pa.Table) -> _Val:
        a, b = left(table), right(table)
        valid = _and(a.valid, b.valid)
        if double:
            if bool(np.isnan(a.data).any()) or bool(np.isnan(b.data).any()):
                raise _Outside
            x, y = a.data, b.data
        else:
            a, b = _as_dec(a), _as_dec(b)
            scale = max(a.scale, b.scale)
            x, y = _rescale(a, scale), _rescale(b, scale)
        data = op(x, y)
        return _Val("bool", data if valid is None else data & valid, valid)

    return compare


def logic(compiler: _Compiler, node: exp.Expression):
    """The program of ``AND``, ``OR``, ``NOT``, ``IS [NOT] NULL`` or TRUE/FALSE: SQL's three-valued logic.

    ``a AND b`` is FALSE where either is FALSE, TRUE where both are TRUE, else NULL; ``a OR b``
    TRUE where either is TRUE, FALSE where both are FALSE, else NULL; ``NOT NULL`` is NULL.
    """
    if isinstance(node, exp.Boolean):
        value = bool(node.this)
        return lambda table: _Val("bool", np.full(table.num_rows, value), None)
    if isinstance(node, exp.Is):
        if not isinstance(node.expression, exp.Null):
            raise _Unsupported  # IS TRUE, IS DISTINCT FROM ...
        _, _, inner = compiler.compile(node.this)

        def is_null(table: pa.Table) -> _Val:
            v = inner(table)
            return _Val("bool", np.zeros(len(v.data), bool) if v.valid is None else ~v.valid, None)

        return is_null
    kinds = [compiler.compile(x) for x in (node.this, node.expression) if x is not None]
    if any(k != "bool" for k, _, _ in kinds):
        raise _Unsupported
    if isinstance(node, exp.Not):
        inner = kinds[0][2]

        def negated(table: pa.Table) -> _Val:
            v = inner(table)
            return _Val("bool", ~v.data if v.valid is None else ~v.data & v.valid, v.valid)

        return negated
    (_, _, left), (_, _, right) = kinds
    both = isinstance(node, exp.And)

    def connective(table: pa.Table) -> _Val:
        a, b = left(table), right(table)
        data = a.data & b.data if both else a.data | b.data
        if a.valid is None and b.valid is None:
            return _Val("bool", data, None)
        true = np.ones(len(data), bool)
        av, bv = (true if v is None else v for v in (a.valid, b.valid))
        # the data are False where NULL: a known FALSE decides AND, a TRUE decides OR
        decided = (av & ~a.data) | (bv & ~b.data) if both else a.data | b.data
        return _Val("bool", data, (av & bv) | decided)

    return connective


def _negate(v: _Val) -> _Val:
    return _Val("double", -v.data, v.valid)


def _cast(v: _Val, target: tuple, lenient: bool) -> _Val:
    """CAST (``lenient``: TRY_CAST) of ``v`` to ``target`` = (kind, precision, scale)."""
    kind, precision, scale = target
    if kind == "DOUBLE":
        if v.kind == "double":
            return v
        if _beyond(v.data, _EXACT_DOUBLE):
            raise _Outside
        data = v.data.astype(np.float64)
        return _Val("double", data / (10.0 ** v.scale) if v.kind == "dec" else data, v.valid)
    if kind in _INT_RANGE:
        lo, hi = _INT_RANGE[kind]
        if len(v.data) and (int(v.data.min()) < lo or int(v.data.max()) > hi):
            raise _Outside  # DuckDB fails the cast (or TRY_CAST's NULL): DuckDB's answer
        return _Val("int", v.data, v.valid)
    d = _as_dec(v)
    data = _rescale(d, scale)
    valid = v.valid
    if precision <= 18:
        over = (data >= _pow10(precision)) | (data <= -_pow10(precision))
        if over.any():
            if not lenient:
                raise _Outside  # DuckDB's error, naming the value
            valid = ~over if valid is None else valid & ~over
            data = np.where(over, 0, data)
    return _Val("dec", data, valid, scale)


def _to_arrow(v: _Val, target: pa.DataType) -> pa.Array:
    """``v`` as an Arrow array of ``target`` (the type DuckDB gives the item), or :class:`_Outside`."""
    mask = None if v.valid is None else ~v.valid
    if v.kind == "double" and pa.types.is_float64(target):
        return pa.array(v.data, pa.float64(), mask=mask)
    if v.kind == "int" and pa.types.is_integer(target):
        return pa.array(v.data, pa.int64(), mask=mask).cast(target)  # in range: checked by the CAST
    if v.kind in ("int", "dec") and pa.types.is_decimal128(target) and target.scale == v.scale:
        if target.precision <= 18 and _beyond(v.data, _pow10(target.precision) - 1):
            raise _Outside
        words = np.empty((len(v.data), 2), np.int64)
        words[:, 0] = v.data
        words[:, 1] = v.data >> 63  # sign extension into the high word
        validity = None if mask is None else pa.array(v.valid).buffers()[1]
        return pa.Array.from_buffers(target, len(v.data), [validity, pa.py_buffer(words)],
                                     null_count=-1 if mask is not None else 0)
    raise _Outside


class NumericItems:
    """Compiled SELECT items (no WHERE): :meth:`run` gives their columns, or None for DuckDB."""

    def __init__(self, programs: list, types: list[pa.DataType]):
        self._programs = programs
        self._types = types

    def run(self, table: pa.Table) -> list[pa.Array] | None:
        """The items' columns over ``table`` in DuckDB's result types, or None: run DuckDB."""
        try:
            return [_to_arrow(p(table), t) for p, t in zip(self._programs, self._types)]
        except _Outside:
            return None


class NumericFilter:
    """A compiled WHERE condition: :meth:`mask` gives the rows it keeps, or None for DuckDB."""

    def __init__(self, program):
        self._program = program

    def mask(self, table: pa.Table) -> np.ndarray | None:
        """Where the condition is TRUE over ``table`` (numpy bool, one per row), or None: run DuckDB."""
        try:
            v = self._program(table)
        except _Outside:
            return None
        return v.data  # False where NULL: WHERE keeps the TRUE rows only


def compile_condition(condition: str, input_schema: pa.Schema) -> NumericFilter | None:
    """Compile a WHERE ``condition`` (DuckDB SQL over ``input_schema``), or None if it does not compile.

    Comparisons of integer, DECIMAL and DOUBLE expressions (as :func:`compile_items` compiles
    them, plus ``%`` of integers by a constant guarded divisor), ``BETWEEN``, ``IN`` a list of
    numbers, ``IS [NOT] NULL``, ``AND``/``OR``/``NOT`` of them and BOOLEAN columns.
    """
    try:
        kind, _, program = _Compiler(input_schema).compile(sqlglot.parse_one(condition, read="duckdb"))
    except (_Unsupported, _Outside, sqlglot.errors.SqlglotError, RecursionError):
        return None
    return NumericFilter(program) if kind == "bool" else None


def compile_items(items: list[tuple[str, str]], input_schema: pa.Schema,
                  duckdb_schema: pa.Schema | None) -> NumericItems | None:
    """Compile ``items`` ((name, DuckDB SQL) pairs over ``input_schema``), or None if one does not compile.

    ``duckdb_schema`` is the Arrow schema DuckDB gives the items (the planner's check); None
    (unknown) compiles nothing.
    """
    if duckdb_schema is None or not items:
        return None
    compiler = _Compiler(input_schema)
    programs = []
    types = [duckdb_schema.field(i).type for i in range(len(items))]
    for (_, sql), t in zip(items, types):
        try:
            kind, scale, program = compiler.compile(sqlglot.parse_one(sql, read="duckdb"))
        except (_Unsupported, sqlglot.errors.SqlglotError, RecursionError):
            # RecursionError: sqlglot's parser is recursive, and the planner's SQL for nested integer
            # arithmetic (Java's wrap-around spelled out) can be deeper than Python's stack allows
            return None
        if not _fits(kind, scale, t):  # our reading of DuckDB's types differs: DuckDB's, always
            return None
        programs.append(program)
    return NumericItems(programs, types)


def _fits(kind: str, scale: int, t: pa.DataType) -> bool:
    """Whether a value of ``kind`` and ``scale`` is written as DuckDB's result type ``t`` unchanged."""
    if kind == "double":
        return pa.types.is_float64(t)
    if pa.types.is_decimal128(t):
        return t.scale == scale
    return kind == "int" and pa.types.is_integer(t)
