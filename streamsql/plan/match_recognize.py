"""``FROM t MATCH_RECOGNIZE (...)``: row pattern recognition, planned as Flink 2.3's ``StreamExecMatch``.

What is planned (everything else is refused at its position, in Flink's words where Flink
refuses it too):

- ``PARTITION BY`` columns (none: one partition, as Flink's parallelism-1 operator);
- ``ORDER BY`` an ascending time attribute first (Flink: "You must specify either rowtime or
  proctime for order by as the first one.", "Primary sort order of a streaming table must be
  ascending on time."), then any columns, which order the rows of one timestamp (Flink's
  ``EventComparator``). Over a ``PROCTIME()`` attribute rows are matched as they arrive;
- ``MEASURES`` (:mod:`streamsql.plan.match_exprs`), ``ONE ROW PER MATCH`` (ALL ROWS PER MATCH:
  "All rows per match mode is not supported yet.");
- ``AFTER MATCH SKIP PAST LAST ROW``, ``TO NEXT ROW`` (the default, as Flink's), ``TO FIRST v``,
  ``TO LAST v``;
- ``PATTERN`` of unique variables in sequence, each with ``*``, ``+``, ``?``, ``{n}``, ``{n,}``,
  ``{n,m}``, ``{,m}``, greedy or reluctant (``?`` after it), as ``StreamExecMatch``'s
  ``PatternVisitor`` translates them for CEP; refused as there: alternation ("Currently, CEP
  doesn't support branching patterns."), quantified groups ("Group patterns are not supported
  yet."), ``PERMUTE``, a reluctant optional variable, ``{0,m}`` with ``m > 1`` (CEP's ``times(0, m)``:
  "The from should be a positive number greater than 0."), a pattern that can match no row, a
  greedy quantifier last;
- ``WITHIN INTERVAL ...`` (milliseconds);
- ``DEFINE`` conditions (a variable without one matches every row; the condition of a variable
  the PATTERN does not have is checked, then ignored, as Flink ignores it).

The output is insert-only: the partition columns, then the measures (Flink's row type); the
columns are qualified by the clause's alias. The plan is the match (its output: the partition
key, then each value a measure reads from the match: :meth:`~.MatchExprCompiler.split_measure`)
and a Calc that computes the measures over those values::

    Calc (partition columns, measures as scalar expressions over __m0, __m1 ...)
      <- Match (partition key __k0..., leaves __m0...)      insert-only
      <- input
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.core.errors import PlanError, SqlError
from streamsql.core.types import SqlType
from streamsql.plan.expressions import compile_expression, quote
from streamsql.plan.match_exprs import MatchExpr, MatchExprCompiler
from streamsql.plan.nodes import INSERT_ONLY, PlanNode
from streamsql.plan.scope import Scope, ScopeColumn
from streamsql.plan.windows import interval_ms, is_proctime, time_attributes
from streamsql.sql import match_syntax as ms

SKIP_PAST_LAST_ROW = "PAST LAST ROW"
SKIP_TO_NEXT_ROW = "TO NEXT ROW"
SKIP_TO_FIRST = "TO FIRST"
SKIP_TO_LAST = "TO LAST"


@dataclass(frozen=True)
class PatternStep:
    """One variable of the pattern with its quantifier, as Flink's CEP ``Pattern`` holds it.

    Attributes:
        variable: its index in :attr:`MatchSpec.variables`.
        min: the least rows it maps (0: optional, CEP's ``optional()``).
        max: the most rows (None: unbounded, a CEP looping state).
        greedy: CEP's ``greedy()``: set by ``StreamExecMatch`` for a greedy quantifier that is
            neither ``?`` nor ``{n}``.
    """

    variable: int
    min: int
    max: int | None
    greedy: bool


@dataclass(frozen=True)
class MatchSpec:
    """What the MATCH_RECOGNIZE operator runs (times in milliseconds).

    Attributes:
        partition: input column indices of PARTITION BY (the state key).
        rowtime: input column index of the ORDER BY time attribute.
        order: further ORDER BY columns ``(index, descending, nulls_first)``.
        variables: the pattern variables, in pattern order.
        steps: the pattern, one step per variable.
        defines: per variable, its DEFINE condition (None: always true).
        measures: the expression of each measure (their names are the output's).
        skip: the AFTER MATCH SKIP strategy (``SKIP_*``) and its variable index (or None).
        within: the WITHIN interval, or 0.
        proctime: ordered by a ``PROCTIME()`` attribute (rows are matched in arrival order).
    """

    partition: tuple[int, ...]
    rowtime: int
    order: tuple[tuple[int, bool, bool], ...]
    variables: tuple[str, ...]
    steps: tuple[PatternStep, ...]
    defines: tuple[MatchExpr | None, ...]
    measures: tuple[MatchExpr, ...]
    skip: tuple[str, int | None]
    within: int = 0
    proctime: bool = False


@dataclass(eq=False)
class MatchNode(PlanNode):
    """A MATCH_RECOGNIZE (insert-only output: one row per match)."""

    spec: MatchSpec = None  # type: ignore[assignment]
    labels: list[str] = field(default_factory=list)
    out_time_attributes: set = field(default_factory=set)

    kind: ClassVar[str] = "match"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return f"Match({', '.join(self.labels)})"


def plan_match_recognize(planner, src: exp.Expression, match: ms.MatchRecognize) -> tuple[PlanNode, Scope]:
    """Plan ``src MATCH_RECOGNIZE (...)`` (the planner's FROM hook).

    Raises:
        SqlError: a clause, pattern or expression that is refused (see the module docstring).
        PlanError: an updating input.
    """
    node, scope = planner._from(src)
    if node.mode != INSERT_ONLY:
        planner._fail(match, "Match Recognize doesn't support consuming update changes: its input is an "
                             "updating table (a changelog source, a GROUP BY without window, a regular join)",
                      PlanError)
    index = {name: i for i, name in enumerate(node.schema.names)}
    rowtime, order = _order(planner, match, node, scope, index)
    variables, steps = _pattern(planner, match.args["pattern"])
    rows = match.args.get("rows")
    if rows is not None and rows.name.startswith("ALL"):
        planner._fail(rows, "All rows per match mode is not supported yet.")
    skip = _skip(planner, match.args.get("after"), variables)
    within = 0
    if match.args.get("within") is not None:
        try:
            within = interval_ms(match.args["within"], "WITHIN interval", planner)
        except SqlError:  # a MONTH/YEAR interval or no literal: Flink's translateTimeBound refuses it
            planner._fail(match.args["within"], "Only constant intervals with millisecond resolution are "
                                                "supported as time constraints of patterns.", PlanError)
    compiler = MatchExprCompiler(scope, index, variables, rowtime, planner.sql, planner._agg_type)
    defines: list[MatchExpr | None] = [None] * len(variables)
    for d in match.args.get("define") or []:
        condition = compiler.compile(d.this, "DEFINE", d.alias)
        if d.alias in variables:  # Flink ignores the DEFINE of a variable the PATTERN does not have
            defines[variables.index(d.alias)] = condition
    partition = []
    for p in match.args.get("partition_by") or []:
        if not isinstance(p, exp.Column):
            planner._fail(p, "PARTITION BY of MATCH_RECOGNIZE takes columns only")
        partition.append(scope.resolve(p))
    measures: list[tuple[str, exp.Expression]] = []  # name, expression over the leaves
    leaves: list[tuple[str, MatchExpr]] = []
    for m in match.args.get("measures") or []:
        item = m.this
        if not isinstance(item, exp.Alias):
            planner._fail(item, "A measure needs a name: MEASURES expression AS name")
        measures.append((item.alias, compiler.split_measure(item.this, leaves)))
    proctime = is_proctime(node, rowtime.internal)
    if compiler.precomputed:  # scalar calls over one row: a Calc computes them for every row first
        node = planner._calc(node, [(n, quote(n)) for n in node.schema.names] + compiler.precomputed, None)
    if proctime and any(e.op == "rowtime" for _, e in leaves):
        planner._fail(match, "MATCH_ROWTIME() needs MATCH_RECOGNIZE ordered by an event-time attribute; "
                             "use MATCH_PROCTIME()")
    spec = MatchSpec(tuple(index[c.internal] for c in partition), index[rowtime.internal], tuple(order),
                     tuple(variables), tuple(steps), tuple(defines), tuple(e for _, e in leaves), skip,
                     within, proctime)
    keys = [f"__k{i}" for i in range(len(partition))]
    fields = [node.schema.field(index[c.internal]).with_name(k) for k, c in zip(keys, partition)]
    fields += [e.type.arrow_field(name) for name, e in leaves]
    schema = pa.schema(fields)
    times = {name for name, e in leaves if e.op == "rowtime"}
    labels = [f"partitionBy=[{', '.join(c.name for c in partition)}]", f"orderBy=[{rowtime.name} ASC]",
              f"measures=[{', '.join(name for name, _ in measures)}]", "rowsPerMatch=[ONE ROW PER MATCH]",
              f"after=[SKIP {skip[0]}{' ' + variables[skip[1]] if skip[1] is not None else ''}]",
              f"pattern=[{match.args['pattern'].sql()}]"] + ([f"within=[{within} ms]"] if within else [])
    matched = MatchNode([node], schema, INSERT_ONLY, spec=spec, labels=labels, out_time_attributes=times)
    # EXPLAIN's names: the partition columns', and a measure's that is one leaf (Flink's Match outputs them)
    single = {e.name: name for name, e in measures if isinstance(e, exp.Column)}
    matched.display = {**{k: c.name for k, c in zip(keys, partition)},
                       **{leaf: single.get(leaf, f"$f{len(keys) + j}") for j, (leaf, _) in enumerate(leaves)}}
    return _measures(planner, matched, partition, keys, measures, match.args.get("alias"))


def _measures(planner, matched: MatchNode, partition: list[ScopeColumn], keys: list[str],
              measures: list[tuple[str, exp.Expression]], alias: exp.Expression | None
              ) -> tuple[PlanNode, Scope]:
    """The clause's output, ``partition columns, measures``: a Calc over the match's keys and leaves."""
    from streamsql.plan.planner import _scope_of  # late: the planner imports this module

    leaf_scope = Scope([ScopeColumn(None, f.name, f.name, SqlType.of_field(f)) for f in matched.schema],
                       planner.sql, "MATCH_RECOGNIZE")
    items = [(c.name, quote(k)) for c, k in zip(partition, keys)]
    items += [(name, compile_expression(e, leaf_scope)) for name, e in measures]
    calc = planner._calc(matched, items, None)
    qualifier = alias.name if alias is not None and alias.name else None
    return calc, _scope_of(calc, qualifier, planner.sql, "MATCH_RECOGNIZE")


def _order(planner, match: ms.MatchRecognize, node: PlanNode, scope: Scope, index: dict[str, int]
           ) -> tuple[ScopeColumn, list[tuple[int, bool, bool]]]:
    """The ORDER BY time attribute and the further order columns, as ``StreamExecMatch.checkOrderKeys``."""
    order = match.args.get("order")
    items = order.expressions if order is not None else []
    if not items:
        planner._fail(match, "You must specify either rowtime or proctime for order by.", PlanError)
    first = items[0]
    col = scope.resolve(first.this) if isinstance(first.this, exp.Column) else None
    rowtime = col is not None and col.internal in time_attributes(node) and col.type.is_time
    if col is None or not (rowtime or is_proctime(node, col.internal)):
        planner._fail(first, "You must specify either rowtime or proctime for order by as the first one.",
                      PlanError)
    if first.args.get("desc"):
        planner._fail(first, "Primary sort order of a streaming table must be ascending on time.", PlanError)
    rest = []
    for item in items[1:]:
        if not isinstance(item.this, exp.Column):
            planner._fail(item, "ORDER BY of MATCH_RECOGNIZE takes columns only")
        c = scope.resolve(item.this)
        desc = bool(item.args.get("desc"))
        nulls_first = item.args.get("nulls_first")
        rest.append((index[c.internal], desc, bool(nulls_first) if nulls_first is not None else not desc))
    return col, rest


def _pattern(planner, pattern: exp.Expression) -> tuple[list[str], list[PatternStep]]:
    """The variables and steps of ``pattern``, refused as ``StreamExecMatch``'s ``PatternVisitor`` refuses."""
    terms: list[exp.Expression] = []

    def flatten(p: exp.Expression) -> None:
        if isinstance(p, ms.PatternConcat):
            for x in p.expressions:
                flatten(x)
        elif isinstance(p, ms.PatternGroup) and not p.args.get("quantifier"):
            flatten(p.this)
        else:
            terms.append(p)

    flatten(pattern)
    variables: list[str] = []
    steps: list[PatternStep] = []
    for term in terms:
        if isinstance(term, ms.PatternAlternation):
            planner._fail(term, f"Expression not supported: {term.sql()}. Currently, CEP doesn't support "
                                "branching patterns.", PlanError)
        if isinstance(term, ms.PatternUnsupported):
            what = "PERMUTE patterns" if term.this == "PERMUTE" else f"{term.this} in patterns"
            planner._fail(term, f"Currently, CEP doesn't support {what}.", PlanError)
        if isinstance(term, ms.PatternGroup):
            planner._fail(term, f"Expression not supported: {term.sql()} Group patterns are not supported "
                                "yet.", PlanError)
        name = term.name
        if name in variables:
            planner._fail(term, "Pattern variables must be unique. That might change in the future.",
                          PlanError)
        low, high, reluctant = term.args["min"], term.args.get("max"), bool(term.args.get("reluctant"))
        if high is not None and (high < low or high == 0):
            planner._fail(term, f"Invalid quantifier {term.args.get('quantifier')} of {name}")
        optional = low == 0 and high == 1
        if reluctant and optional:
            planner._fail(term, "Reluctant optional variables are not supported yet.", PlanError)
        if low == 0 and high is not None and high > 1:  # StreamExecMatch calls CEP's times(0, m)
            planner._fail(term, f"{name}{term.args.get('quantifier')}: The from should be a positive number "
                                "greater than 0. (Flink's CEP refuses {0,m}; write an optional variable "
                                "per row, or {1,m} in a pattern that allows it)", PlanError)
        greedy = not reluctant and not optional and low != high
        variables.append(name)
        steps.append(PatternStep(len(variables) - 1, low, high, greedy))
    if all(s.min == 0 for s in steps):
        planner._fail(pattern, "Patterns that can produce empty matches are not supported. There must be at "
                               "least one non-optional state.", PlanError)
    if steps[-1].greedy:
        planner._fail(terms[-1], "Greedy quantifiers are not allowed as the last element of a Pattern yet. "
                                 "Finish your pattern with either a simple variable or reluctant quantifier.",
                      PlanError)
    return variables, steps


def _skip(planner, after: ms.MatchSkip | None, variables: list[str]) -> tuple[str, int | None]:
    """The AFTER MATCH SKIP strategy; TO NEXT ROW when absent (Flink 2.3's default, from Calcite)."""
    if after is None:
        return SKIP_TO_NEXT_ROW, None
    variable = after.args.get("variable")
    if variable is None:
        return after.this, None
    if variable.name not in variables:
        has = ", ".join(variables)
        planner._fail(variable, "The pattern name specified in AfterMatchSkipStrategy can not be found in "
                                f"the given Pattern ('{variable.name}'; the PATTERN has {has})", PlanError)
    return after.this, variables.index(variable.name)
