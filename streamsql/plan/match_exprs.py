"""DEFINE conditions and MEASURES of MATCH_RECOGNIZE, compiled to a small expression tree.

A pattern condition is evaluated once per row *and* partial match (Flink's CEP evaluates an
``IterativeCondition`` against the rows the partial match has mapped so far), so it cannot be one
batch query; the runtime (:mod:`streamsql.runtime.operators.match_eval`) interprets these trees.
Their meaning is Flink's ``MatchCodeGenerator``:

- ``A.price`` is the last row mapped to ``A``; ``price`` (no variable: Calcite's ``*``) the last
  row of the match. In the DEFINE of ``A`` the lists of ``A`` and ``*`` end with the row being
  classified, so ``A.price`` and ``price`` are its value and ``LAST(A.price, 1)`` the previous ``A``;
- ``FIRST(v.col, n)`` / ``LAST(v.col, n)``: the n-th row of ``v`` from the start / the end
  (NULL when there are not that many);
- an aggregate ``AGG(v.x ...)`` runs over the rows of ``v`` (of the match without a variable);
  its argument may use one variable only; ``COUNT(*)`` counts the rows of the match;
- ``PREV(x, 0)`` / ``NEXT(x, 0)`` are ``x``; any other offset is refused as Flink refuses it
  ("Flink does not support physical offsets within partition.");
- ``MATCH_ROWTIME()`` is the time of the match's emission (the CEP context's timestamp),
  ``MATCH_PROCTIME()`` the wall clock then;
- any other scalar function or operator (``CAST``, ``LIKE``, ``IN``, ``UPPER``, ``ROUND`` ...)
  is evaluated on its operands' values by the same compiled query a Calc runs (Flink's semantics),
  one row at a time (memoized by the operands' values): :meth:`MatchExprCompiler._scalar`.

Each node carries its Flink type, inferred by the function registry over the same expression
with its leaves (row references, aggregates) as typed columns, so arithmetic types (DECIMAL
precision, integer division) are Flink's.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pyarrow as pa
from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.plan.expressions import AGG_TYPES, compile_expression, sql_type_of
from streamsql.plan.query import compile_query
from streamsql.plan.scope import Scope, ScopeColumn, position_of

#: Calls the evaluator runs: sqlglot node → operator name.
CALLS: dict[type[exp.Expression], str] = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%",
    exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=",
    exp.And: "and", exp.Or: "or",
}
_AGGS = {exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max"}


@dataclass(frozen=True)
class MatchExpr:
    """One node of a compiled DEFINE condition or MEASURES expression.

    Attributes:
        op: ``lit`` (``args = (value,)``); ``ref`` (``(variable or None, column index, from
            the first?, offset)``: a value of a row of the variable's list); ``agg`` (``(function,
            variable or None, argument or None)``: an aggregate over the variable's rows);
            ``nav`` (``(variable or None, from the first?, offset, row expression)``:
            ``FIRST``/``LAST`` of an expression); ``scalar`` (``(query, operand...)``: any
            other scalar function or operator, a one-row
            :class:`~streamsql.plan.query.QuerySpec` over its operands' values); ``row``
            (``(column index,)``: a column of the row an aggregate argument or a ``nav``
            expression is evaluated on); ``call`` (``(operator, operand...)``, operators of
            :data:`CALLS` and ``not``, ``neg``, ``is_null``, ``is_not_null``, ``abs``,
            ``coalesce``, ``case`` (condition, value, ... [, else])); ``rowtime`` /
            ``proctime`` (MATCH_ROWTIME(), MATCH_PROCTIME()).
        args: the operands (see ``op``).
        type: the Flink type of the value.
    """

    op: str
    args: tuple
    type: SqlType


Tree = tuple[MatchExpr, exp.Expression]
"""A compiled node and its typing proxy (the expression with its leaves as typed columns)."""


class MatchExprCompiler:
    """Compiles the expressions of one MATCH_RECOGNIZE clause.

    Args:
        scope: the input's columns (resolved by name, without qualifier).
        columns: each input column's position in the input batches, by internal name.
        variables: the pattern variables (case-sensitive, as Flink's).
        rowtime: the input column of the ORDER BY time attribute, for MATCH_ROWTIME().
        sql: the statement text, for positioned errors.
        agg_type: ``(call, function, argument type) -> result type`` (the planner's).
    """

    def __init__(self, scope: Scope, columns: dict[str, int], variables: list[str], rowtime: ScopeColumn,
                 sql: str | None, agg_type):
        self.scope = scope
        self.columns = columns
        self.variables = variables
        self.rowtime = rowtime
        self.sql = sql
        self.agg_type = agg_type
        self._leaves: list[ScopeColumn] = []
        self._current: str | None = None  # the variable whose DEFINE is compiled
        #: Scalar calls over one row, computed for every input row before the match (a Calc):
        #: ``(internal name, DuckDB SQL over the input's columns)``, at input index ``len(columns) + i``.
        self.precomputed: list[tuple[str, str]] = []

    def split_measure(self, node: exp.Expression, leaves: list[tuple[str, MatchExpr]]) -> exp.Expression:
        """A measure as a scalar expression over its *leaves*, for a batch query after the match.

        Each row reference, FIRST/LAST, aggregate and ``MATCH_*()`` call of ``node`` becomes a column
        ``__m<i>``, appended to ``leaves`` with its compiled tree (evaluated per match by the
        operator); what remains (functions, CASE, CAST, arithmetic...) is an ordinary expression
        over those columns, compiled with every scalar function's Flink semantics.

        Raises:
            SqlError: as :meth:`compile`, for a leaf.
        """
        def replace(n: exp.Expression) -> exp.Expression:
            if not _is_leaf(n):
                return n
            name = f"__m{len(leaves)}"
            leaves.append((name, self.compile(n, "MEASURES")))
            column = exp.column(name, quoted=True)
            column.this.meta.update({k: v for k, v in n.meta.items() if k in ("line", "col", "start", "end")})
            return column
        return node.copy().transform(replace, copy=False)

    def compile(self, node: exp.Expression, clause: str, variable: str | None = None) -> MatchExpr:
        """``node`` of ``clause`` (``"DEFINE"`` of ``variable``, or ``"MEASURES"``) as a tree.

        Raises:
            SqlError: a construct the evaluator does not run (positioned, naming it), an unknown
                column or pattern variable, an aggregate over two variables, a physical offset.
        """
        self._current = variable if clause == "DEFINE" else None
        try:
            return self._compile(node, clause, None)[0]
        finally:
            self._current = None

    # -- nodes ------------------------------------------------------------------------------

    def _compile(self, node: exp.Expression, clause: str, row_var: list | None) -> Tree:
        """``(tree, proxy)``: the proxy is ``node`` with its leaves as typed columns, for typing."""
        if isinstance(node, exp.Paren):
            return self._compile(node.this, clause, row_var)
        if isinstance(node, (exp.Literal, exp.Boolean, exp.Null)):
            return MatchExpr("lit", (_literal(node),), self._type(node, node)), node
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            return self._column(node, row_var)
        if isinstance(node, (exp.First, exp.Last)) and row_var is None:
            return self._navigation(node, isinstance(node, exp.First))
        if isinstance(node, tuple(_AGGS)):
            return self._aggregate(node, clause, row_var)
        if isinstance(node, exp.Anonymous):
            return self._function(node, clause, row_var)
        if isinstance(node, exp.Not) and isinstance(node.this, exp.Is):
            inner, proxy = self._compile(node.this.this, clause, row_var)
            proxy = exp.Not(this=exp.Is(this=proxy, expression=exp.Null()))
            return self._call("is_not_null", node, [inner], proxy)
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            inner, proxy = self._compile(node.this, clause, row_var)
            return self._call("is_null", node, [inner], exp.Is(this=proxy, expression=exp.Null()))
        if isinstance(node, (exp.Case, exp.Coalesce, exp.Abs)):
            return self._conditional(node, clause, row_var)
        if isinstance(node, exp.Between):
            low = exp.GTE(this=node.this, expression=node.args["low"])
            high = exp.LTE(this=node.this.copy(), expression=node.args["high"])
            return self._compile(exp.And(this=low, expression=high), clause, row_var)
        if isinstance(node, (exp.Not, exp.Neg)):
            inner, proxy = self._compile(node.this, clause, row_var)
            return self._call("not" if isinstance(node, exp.Not) else "neg", node, [inner],
                              type(node)(this=proxy))
        op = CALLS.get(type(node))
        if op is not None:
            left, lp = self._compile(node.this, clause, row_var)
            right, rp = self._compile(node.expression, clause, row_var)
            return self._call(op, node, [left, right], type(node)(this=lp, expression=rp))
        if isinstance(node, (exp.AggFunc, exp.Window, exp.Subquery, exp.Select, exp.Star, exp.Exists)):
            self._fail(node, f"{node.sql()} is not supported in MATCH_RECOGNIZE's {clause} yet; use columns, "
                             "FIRST/LAST, COUNT/SUM/AVG/MIN/MAX and scalar functions and operators")
        return self._scalar(node, clause, row_var)

    def _scalar(self, node: exp.Expression, clause: str, row_var: list | None) -> Tree:
        """Any other scalar function or operator (``CAST``, ``LIKE``, ``IN``, ``UPPER``, ``POWER`` ...).

        Its value operands are compiled as trees; the call itself is a one-row query over them
        (``op`` ``scalar``), compiled with every scalar function's Flink semantics, as a Calc
        computes it. Literal operands (a LIKE pattern, a CAST's type, a unit) stay in the query.
        """
        row = self._one_row(node, row_var)
        if row is not None:
            for c in node.find_all(exp.Column):  # the variables exist, an aggregate reads one
                self._column(c, row_var)
            tree = self._precompute(node, row)
            return tree, self._leaf(tree.type)
        operands: list[MatchExpr] = []
        leaves: list[ScopeColumn] = []

        def operand(child):
            if not isinstance(child, exp.Expression) or _constant(child):
                return child.copy() if isinstance(child, exp.Expression) else child
            tree, _ = self._compile(child, clause, row_var)
            operands.append(tree)
            column = self._leaf(tree.type)
            leaves.append(self._leaves[-1])
            return column

        args = {k: [operand(c) for c in v] if isinstance(v, list) else operand(v)
                for k, v in node.args.items()}
        proxy = type(node)(**args)
        proxy.meta.update(node.meta)
        t = self._type(proxy, node)
        fields = [c.type.arrow_field(c.internal) for c in leaves] or [pa.field("__one", pa.int8())]
        schema = pa.schema(fields)
        try:
            query = compile_query([("v", compile_expression(proxy, Scope(leaves, self.sql)))], None, schema,
                                  self.sql, {"v": t})
        except SqlError as e:
            line, col, length = position_of(node)
            raise SqlError(e.message, self.sql, line, col, length) from None
        return MatchExpr("scalar", (query, *operands), t), proxy

    def _conditional(self, node: exp.Expression, clause: str, row_var: list | None) -> Tree:
        """``CASE [x] WHEN ... THEN ... [ELSE ...] END``, ``COALESCE(...)``, ``ABS(x)``.

        A simple CASE compares ``x`` with each WHEN value by ``=``.
        """
        if isinstance(node, exp.Abs):
            inner, proxy = self._compile(node.this, clause, row_var)
            return self._call("abs", node, [inner], exp.Abs(this=proxy))
        if isinstance(node, exp.Coalesce):
            parts = [self._compile(x, clause, row_var) for x in [node.this, *node.expressions]]
            proxy = exp.Coalesce(this=parts[0][1], expressions=[p for _, p in parts[1:]])
            return self._call("coalesce", node, [t for t, _ in parts], proxy)
        subject = node.this
        operands, ifs = [], []
        for branch in node.args.get("ifs") or []:
            cond = branch.this if subject is None else exp.EQ(this=subject.copy(), expression=branch.this)
            c, cp = self._compile(cond, clause, row_var)
            v, vp = self._compile(branch.args["true"], clause, row_var)
            operands += [c, v]
            ifs.append(exp.If(this=cp, true=vp))
        default = node.args.get("default")
        proxy = exp.Case(ifs=ifs)
        if default is not None:
            d, dp = self._compile(default, clause, row_var)
            operands.append(d)
            proxy.set("default", dp)
        return self._call("case", node, operands, proxy)

    def _call(self, op: str, node: exp.Expression, operands: list[MatchExpr],
              proxy: exp.Expression) -> Tree:
        return MatchExpr("call", (op, *operands), self._type(proxy, node)), proxy

    def _column(self, node: exp.Column, row_var: list | None) -> Tree:
        """``v.col`` or ``col``: the last row of ``v`` (of the match), or in an aggregate the row."""
        var = node.table or None
        if var is not None and var not in self.variables:
            self._fail(node.args["table"], f"Unknown pattern variable '{var}' in '{node.sql()}'; the "
                                           f"PATTERN defines {', '.join(self.variables)}")
        col = self.scope.resolve(exp.column(node.this.copy()))
        index = self.columns[col.internal]
        if row_var is not None:  # inside an aggregate: a column of the row it runs over
            if row_var and row_var[0] != var:
                used = f"{row_var[0] or 'all rows'} and {var or 'all rows'}"
                msg = f"An aggregate or FIRST/LAST in MATCH_RECOGNIZE may use one pattern variable: {used}"
                self._fail(node.args.get("table") or node, msg)
            row_var[:] = [var]
            return MatchExpr("row", (index,), col.type), self._leaf(col.type)
        t = col.type.with_nullable(True)  # NULL when the variable has no row
        return MatchExpr("ref", (var, index, False, 0), t), self._leaf(t)

    def _navigation(self, node: exp.Expression, first: bool) -> Tree:
        """``FIRST(v.col [, n])`` / ``LAST(v.col [, n])``."""
        arg, offset = node.this, node.args.get("expression")
        name = "FIRST" if first else "LAST"
        n = _offset(offset)
        if n is None:
            self._fail(offset, f"The offset of {name}() must be a non-negative integer literal")
        if isinstance(arg, exp.Column):
            ref, proxy = self._column(arg, None)
            return MatchExpr("ref", (ref.args[0], ref.args[1], first, n), ref.type), proxy
        used: list = []  # an expression over one variable, evaluated on that row (Flink's docs)
        tree, _ = self._compile(arg, "FIRST/LAST", used)
        t = tree.type.with_nullable(True)
        return MatchExpr("nav", (used[0] if used else None, first, n, tree), t), self._leaf(t)

    def _aggregate(self, node: exp.Expression, clause: str, row_var: list | None) -> Tree:
        if row_var is not None:
            self._fail(node, "Aggregates cannot be nested")
        arg = node.this
        if isinstance(arg, exp.Distinct) or isinstance(node, exp.Distinct):
            self._fail(node, "DISTINCT aggregations are not supported in MATCH_RECOGNIZE (as in Flink)")
        if isinstance(node, exp.Count) and (arg is None or isinstance(arg, exp.Star)):  # the match's rows
            out = self.agg_type(node, "count_star", None)
            return MatchExpr("agg", ("count_star", None, None), out), self._leaf(out)
        if arg is None or isinstance(arg, exp.Star) or node.expressions:
            self._fail(node, f"{node.sql()} is not supported in MATCH_RECOGNIZE: an aggregate takes one "
                             "argument")
        used: list = []
        tree, _ = self._compile(arg, clause, used)
        func = _AGGS[type(node)]
        out = self.agg_type(node, func, tree.type)
        return MatchExpr("agg", (func, used[0] if used else None, tree), out), self._leaf(out)

    def _function(self, node: exp.Anonymous, clause: str, row_var: list | None) -> Tree:
        name = node.name.upper()
        args = node.expressions
        if name in ("PREV", "NEXT") and row_var is None:
            if len(args) != 2 or _offset(args[1]) != 0:
                self._fail(node, "Flink does not support physical offsets within partition.")
            return self._compile(args[0], clause, row_var)
        if name == "MATCH_ROWTIME" and clause == "MEASURES" and len(args) <= 1:
            base = self.rowtime.type
            if args:
                base = self.scope.resolve(args[0]).type if isinstance(args[0], exp.Column) else base
            t = SqlType(base.name if base.name == "TIMESTAMP_LTZ" else "TIMESTAMP", 3, nullable=False)
            return MatchExpr("rowtime", (), t), self._leaf(t)
        if name == "MATCH_PROCTIME" and clause == "MEASURES" and not args:
            t = SqlType("TIMESTAMP_LTZ", 3, nullable=False)
            return MatchExpr("proctime", (), t), self._leaf(t)
        if name == "CLASSIFIER":
            self._fail(node, "CLASSIFIER() is not supported (as in Flink's MATCH_RECOGNIZE)")
        if name in _LEAF_CALLS:
            self._fail(node, f"{node.sql()} is not supported in MATCH_RECOGNIZE's {clause}")
        return self._scalar(node, clause, row_var)

    def _one_row(self, node: exp.Expression, row_var: list | None) -> tuple | None:
        """Where a call reads only one row that always exists: ``("row",)`` or ``("ref", variable)``.

        Inside an aggregate's argument or a FIRST/LAST expression the row is the one it runs on; in
        the DEFINE of ``v``, columns of ``v`` or without a variable are the row being classified.
        None when the call reads anything else (another variable's row, FIRST/LAST, an aggregate).
        """
        columns = [n for n in node.walk() if isinstance(n, exp.Column)]
        navs = [n for n in node.walk() if isinstance(n, (exp.First, exp.Last))]
        if not columns or any(isinstance(n, (exp.AggFunc, exp.Anonymous)) and not _scalar_call(n)
                              and not isinstance(n, (exp.First, exp.Last)) for n in node.walk()):
            return None
        if not navs:
            if row_var is not None:
                return ("row",)
            if self._current is not None and all(c.table in ("", self._current) for c in columns):
                return ("ref", None, False, 0)  # the last row of the match: the row being classified
            return None
        # f(LAST(v.x, n), ...): f on that row, when every column is in such a call of the same row and
        # f is NULL on a NULL (the row may not exist: Flink computes f(NULL))
        tolerant = any(isinstance(n, _NULL_TOLERANT) or (isinstance(n, exp.Anonymous) and n.name.upper()
                                                          in _NULL_TOLERANT_NAMES) for n in node.walk())
        if row_var is not None or tolerant:
            return None
        if any(not isinstance(nav.this, exp.Column) for nav in navs) or len(navs) != len(columns):
            return None  # an expression inside FIRST/LAST, or a column outside them
        rows = {(nav.this.table or None, isinstance(nav, exp.First), _offset(nav.args.get("expression")))
                for nav in navs}
        if len(rows) != 1 or None in next(iter(rows))[2:]:
            return None  # several rows, or an offset that is no literal (refused by the navigation)
        return ("ref", *next(iter(rows)))

    def _precompute(self, node: exp.Expression, row: tuple) -> MatchExpr:
        """``node`` (reading one row) as a column computed before the match, and its reference."""
        plain = node.copy()
        for nav in list(plain.find_all(exp.First, exp.Last)):
            nav.replace(nav.this)
        for c in plain.find_all(exp.Column):
            c.set("table", None)
        try:
            t = sql_type_of(plain, self.scope)
            sql = compile_expression(plain, self.scope)
        except SqlError as e:
            line, col, length = position_of(node)
            raise SqlError(e.message, self.sql, line, col, length) from None
        if t is None:
            self._fail(node, f"The type of {node.sql()} is not known; MATCH_RECOGNIZE cannot evaluate it yet")
        index = len(self.columns) + len(self.precomputed)
        name = f"__p{len(self.precomputed)}"
        self.precomputed.append((name, sql))
        if row[0] == "row":
            return MatchExpr("row", (index,), t)
        _, var, first, offset = row
        return MatchExpr("ref", (var, index, first, offset), t.with_nullable(True))

    # -- typing -----------------------------------------------------------------------------

    def _leaf(self, t: SqlType) -> exp.Expression:
        """A column standing for a leaf of type ``t`` (for the registry's typing)."""
        name = f"__leaf{len(self._leaves)}"
        self._leaves.append(ScopeColumn(None, name, name, t))
        return exp.column(name, quoted=True)

    def _type(self, proxy: exp.Expression, node: exp.Expression) -> SqlType:
        """The registry's type of ``proxy`` (Flink's errors, positioned at ``node``)."""
        try:
            t = sql_type_of(proxy, Scope(self._leaves, self.sql))
        except SqlError as e:
            line, col, length = position_of(node)
            raise SqlError(e.message, self.sql, line, col, length) from None
        if t is None:
            self._fail(node, f"The type of {node.sql()} is not known; MATCH_RECOGNIZE cannot evaluate it yet")
        return t

    def _fail(self, node: exp.Expression, message: str):
        line, col, length = position_of(node)
        raise SqlError(message, self.sql, line, col, length)


_LEAF_CALLS = frozenset({"PREV", "NEXT", "MATCH_ROWTIME", "MATCH_PROCTIME", "CLASSIFIER"})


def _is_leaf(n: exp.Expression) -> bool:
    """Whether ``n`` reads the match (its value is computed per match, not by a scalar function)."""
    if isinstance(n, exp.Column):
        return not isinstance(n.this, exp.Star)
    if isinstance(n, (exp.First, exp.Last, *AGG_TYPES, exp.AggFunc)):
        return True  # any other aggregate (or LAG, NTILE ...: sqlglot's aggregates) is refused as one
    return isinstance(n, exp.Anonymous) and n.name.upper() in _LEAF_CALLS


#: Calls whose value on a NULL operand need not be NULL: not computed ahead on a row that may not exist.
_NULL_TOLERANT = (exp.If, exp.Case, exp.Coalesce, exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ, exp.ConcatWs,
                  exp.JSONObject, exp.JSONArray, exp.Nvl2)
_NULL_TOLERANT_NAMES = frozenset({"IFNULL", "NVL", "IF", "IS_NULL", "CONCAT_WS", "JSON_OBJECT", "JSON_ARRAY",
                                  "JSON_STRING", "TYPEOF", "NULLIF", "COALESCE"})


def _scalar_call(n: exp.Expression) -> bool:
    """Whether an ``exp.Anonymous`` node is a scalar function (not PREV, NEXT, MATCH_ROWTIME ...)."""
    return isinstance(n, exp.Anonymous) and n.name.upper() not in _LEAF_CALLS


def _constant(node: exp.Expression) -> bool:
    """Whether ``node`` reads nothing of the match: a literal, a type, a unit, an expression of them."""
    return not any(isinstance(n, (exp.Column, exp.AggFunc, exp.Anonymous, exp.First, exp.Last))
                   for n in node.walk())


def _literal(node: exp.Expression):
    """A literal's Python value: int, Decimal (exact numeric with a point), float, str, bool, None."""
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return node.this
    if node.is_string:
        return node.this
    text = node.this
    if "e" in text.lower():
        return float(text)
    return Decimal(text) if "." in text else int(text)


def _offset(node: exp.Expression | None) -> int | None:
    """A navigation offset: the literal's int (0 without one... see callers), None if not one."""
    if node is None:
        return 0
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    return None
