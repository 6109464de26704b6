"""Planning the calls of user-defined Python aggregates and table functions.

**Aggregates.** :func:`mark_python_aggregates` turns each call ``f(args)`` whose name is a user
aggregate (:class:`~streamsql.functions.udaf.UserAggregate`) into a
:class:`~streamsql.plan.expressions.PythonAggCall`, so the GROUP BY planner treats it as any
aggregate; :func:`python_agg_call` gives its ``AggSpec`` function and argument expressions (cast to
the declared input types). Over an updating input, and in a bounded OVER frame, it needs
``retract``; in a SESSION window ``merge`` (as Flink), else it is refused at the call's position.

**Table functions.** ``FROM t, LATERAL TABLE(f(args)) [AS T(c1, ...)]``, the same with ``CROSS
JOIN``, and ``LEFT JOIN LATERAL TABLE(...) [AS T(...)] ON TRUE`` (Flink's forms) plan as a
:class:`CorrelateNode` over ``t`` (Flink's Correlate): each input row is joined with the rows
the function gives for it; with LEFT JOIN a row for which it gives none is kept with NULLs. The
function's columns are named by the alias (else ``f0, f1, ...``) and qualified by the alias
name (else the function's). A LATERAL TABLE mixed with other joins in one FROM is refused:
join in a subquery first. ``CROSS JOIN UNNEST`` is planned elsewhere (composite types).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.functions.udaf import UserAggregate
from streamsql.functions.udtf import UserTableFunction
from streamsql.plan.expressions import PythonAggCall, compile_expression, quote
from streamsql.plan.nodes import INSERT_ONLY, PlanNode, explain_attr
from streamsql.plan.scope import Scope, ScopeColumn
from streamsql.sql.dialect import Flink


def mark_python_aggregates(q: exp.Expression, functions: dict[str, object]) -> exp.Expression:
    """``q`` with every call of a user aggregate as a :class:`PythonAggCall` (``q`` itself if none)."""
    if not any(isinstance(f, UserAggregate) for f in functions.values()):
        return q

    def mark(n: exp.Expression) -> exp.Expression:
        if type(n) is exp.Anonymous and isinstance(functions.get(n.name.upper()), UserAggregate):
            call = PythonAggCall(this=n.this, expressions=n.expressions)
            call.meta.update(n.meta)
            return call
        return n

    return q.transform(mark)


def python_agg_call(planner, call: PythonAggCall, mode: str) -> tuple[str, list[exp.Expression]]:
    """``(AggSpec function, argument expressions)`` of a user aggregate's call.

    Raises:
        SqlError: a wrong number of arguments; no ``retract`` over an updating input or in a
            bounded OVER frame (positioned at the call).
    """
    ua: UserAggregate = planner.catalog.functions[call.name.upper()]
    args = list(call.expressions)
    if ua.arity is not None and len(args) != ua.arity:
        planner._fail(
            call, f"Python aggregate function '{ua.name}' takes {ua.arity} argument(s), got {len(args)}"
        )
    if mode != INSERT_ONLY and not ua.retracts:
        planner._fail(
            call,
            f"Function '{ua.name}' ({ua.path}) does not implement at least one method named "
            "'retract', which it needs over an updating input (a changelog source, a GROUP BY, "
            "a regular join) and in a bounded OVER frame: add retract(accumulator, *args)",
        )
    if ua.params is not None:
        args = [_cast(a, t) for a, t in zip(args, ua.params)]
    return ua.func, args


def reject_unmerged_python_aggregates(planner, calls, where: str) -> None:
    """Refuse user aggregates without ``merge`` among ``calls`` (aggregate call nodes) of a ``where``.

    Raises:
        SqlError: at the first one.
    """
    for c in calls:
        if isinstance(c, PythonAggCall) and not planner.catalog.functions[c.name.upper()].merges:
            planner._fail(
                c,
                f"Python aggregate function '{c.name}' needs 'merge' in {where} (sessions are merged, as "
                "in Flink): add merge(accumulator, accumulators)",
            )


def _cast(arg: exp.Expression, t) -> exp.Expression:
    return exp.Cast(this=arg, to=exp.DataType.build(str(t), dialect=Flink))


# -- LATERAL TABLE -----------------------------------------------------------------------------


@dataclass(eq=False)
class CorrelateNode(PlanNode):
    """Joins each input row with the rows a table function gives for it (Flink's Correlate).

    Attributes:
        function: the table function.
        args: the input columns of its arguments.
        keep: the first ``keep`` input columns are passed on (then the function's columns).
        left: a row the function gives no row for is kept with NULLs (LEFT JOIN ... ON TRUE).
        call: the call as written, for EXPLAIN.
    """

    function: UserTableFunction = None  # type: ignore[assignment]
    args: list[int] = None  # type: ignore[assignment]
    keep: int = 0
    left: bool = False
    call: str = ""

    kind: ClassVar[str] = "correlate"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (
            f"Correlate(invocation=[{self.call}], joinType=[{'LEFT' if self.left else 'INNER'}]"
            f"{explain_attr('select', ', '.join(self.schema.names))})"
        )


def plan_lateral(planner, src: exp.Expression, joins: list[exp.Join] | None, where):
    """``(node, scope, where)`` of a FROM whose joins are all LATERAL TABLE calls, else None.

    Raises:
        SqlError: a LATERAL TABLE among other joins; not a table function; a join condition
            other than ON TRUE; a wrong number of arguments or of column aliases.
    """
    if not joins or not any(isinstance(j.this, exp.Lateral) for j in joins):
        return None
    other = next((j for j in joins if not isinstance(j.this, exp.Lateral)), None)
    if other is not None:
        planner._fail(
            other,
            "A join cannot be combined with LATERAL TABLE in one FROM yet; join in a subquery "
            "first, e.g. FROM (SELECT ... FROM a JOIN b ON ...) AS t, LATERAL TABLE(f(t.x))",
        )
    node, scope = planner._from(src)
    for j in joins:
        node, scope = _correlate(planner, node, scope, j)
    return node, scope, where


def _correlate(planner, node: PlanNode, scope: Scope, join: exp.Join) -> tuple[PlanNode, Scope]:
    lateral = join.this
    rows = lateral.this
    call = rows.this if isinstance(rows, exp.TableFromRows) else None
    if type(call) is not exp.Anonymous:
        planner._fail(
            lateral,
            "LATERAL needs TABLE(f(...)) of a Python table function (CREATE FUNCTION ... "
            "LANGUAGE PYTHON); for a subquery, use a join",
        )
    tf = planner.catalog.functions.get(call.name.upper())
    if not isinstance(tf, UserTableFunction):
        planner._fail(call, f"No table function named '{call.name}' (declare one with udtf, see docs/udf.md)")
    left = join.side == "LEFT"
    on = join.args.get("on")
    if (
        (join.side and not left)
        or (left and not (isinstance(on, exp.Boolean) and on.this))
        or (not left and on is not None and not (isinstance(on, exp.Boolean) and on.this))
    ):
        planner._fail(
            join,
            "A table function is joined with CROSS JOIN LATERAL TABLE(...) (or a comma), or "
            "LEFT JOIN LATERAL TABLE(...) ON TRUE",
        )
    args = list(call.expressions)
    if tf.arity is not None and len(args) != tf.arity:
        planner._fail(
            call, f"Python table function '{tf.name}' takes {tf.arity} argument(s), got {len(args)}"
        )
    if tf.params is not None:
        args = [_cast(a, t) for a, t in zip(args, tf.params)]
    alias = lateral.args.get("alias")
    names = (
        [c.name for c in alias.columns]
        if alias is not None and alias.columns
        else [f"f{i}" for i in range(len(tf.results))]
    )
    if len(names) != len(tf.results):
        planner._fail(
            alias,
            f"Table function '{tf.name}' gives {len(tf.results)} column(s); the alias names {len(names)}",
        )
    first = len(node.schema)
    pre = [(n, quote(n)) for n in node.schema.names]
    pre += [(f"__targ{first}_{i}", compile_expression(a, scope)) for i, a in enumerate(args)]
    pre_node = planner._calc(node, pre, None)
    internal = [f"__tcol{first}_{i}" for i in range(len(names))]
    schema = pa.schema(list(node.schema) + [pa.field(n, t.to_arrow()) for n, t in zip(internal, tf.results)])
    out = CorrelateNode(
        [pre_node],
        schema,
        node.mode,
        function=tf,
        args=list(range(first, len(pre))),
        keep=first,
        left=left,
        call=call.sql(),
    )
    qualifier = (alias.name if alias is not None and alias.name else tf.name).lower()
    columns = scope.columns + [
        ScopeColumn(qualifier, n, i, t) for n, i, t in zip(names, internal, tf.results)
    ]
    return out, Scope(columns, planner.sql, scope.what)
