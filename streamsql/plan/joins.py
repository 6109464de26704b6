"""Joins in FROM: regular equi-joins and event-time interval joins, as Flink plans them.

Called from :meth:`~streamsql.plan.planner.Planner._select` by one hook,
:func:`plan_joins`, for ``FROM a, b [, ...] WHERE ...`` and ``FROM a [INNER|LEFT|RIGHT|FULL
[OUTER]] JOIN b ON ...``. Joins are planned left-deep, in FROM order. For each join:

1. the condition is split into conjuncts: the ``ON`` conjuncts, plus — for an inner (or comma)
   join not followed by a RIGHT or FULL join — the ``WHERE`` conjuncts that only name columns
   of the tables joined so far (the rest of WHERE stays a filter after all joins);
2. ``left_expr = right_expr`` conjuncts, one side over each input, are the **equi-keys**
   (key expressions that are not plain columns, or whose types differ, are computed into extra
   columns of the input by a Calc); a join without one is an error, as in Flink;
3. with insert-only inputs, comparisons between the **time attributes** of the two inputs with
   constant interval offsets (``s.ts > o.ts - INTERVAL '1' HOUR``, ``o.ts >= s.ts``,
   ``s.ts BETWEEN o.ts - INTERVAL '5' MINUTE AND o.ts``) are rearranged into
   ``lower <= o.ts - s.ts <= upper`` (ms; a strict bound moves by 1 ms). With both a lower and
   an upper bound the join is an :class:`IntervalJoinNode` (insert-only output, state cleaned
   up by the watermark); otherwise those comparisons are ordinary conditions;
   Two window TVF outputs joined on ``window_start`` and ``window_end`` (both among the keys)
   are a :class:`WindowJoinNode` instead (insert-only);
4. conjuncts over one input only are pushed below the join as a filter of that input (for an
   outer join only on its NULL-supplying side); the remaining conjuncts are a filter after the
   join (inner), or the join's residual condition (outer joins: a pair matches only if it holds).

Output columns: the left columns, then the right columns; a right column whose name is taken
gets a numeric suffix (``id`` → ``id0``), as Flink names them. ``o.id`` / ``s.id`` and table
aliases resolve through the join's scope, ``SELECT *`` lists all of them.

Changelog mode: an interval join and an inner join of insert-only inputs are insert-only; any
other regular join is a retract changelog (see :mod:`streamsql.runtime.operators.join`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions import python_functions
from streamsql.functions.scalars.operand_types import join_key_error, pair_kind
from streamsql.functions.scalars.registry import cast_value
from streamsql.plan.expressions import compile_expression, flink_text, quote, resolve_columns, sql_type_of
from streamsql.plan.lookup import jdbc_pushable, plan_lookup_join
from streamsql.plan.nodes import INSERT_ONLY, RETRACT, PlanNode, ScanNode
from streamsql.plan.query import compile_query
from streamsql.plan.scope import Scope, ScopeColumn
from streamsql.plan.state_ttl_hint import note_join
from streamsql.plan.temporal import (
    TemporalJoinNode,
    check_temporal,
    keeps_update_before,
    temporal_version,
    versioned_side,
)
from streamsql.plan.unnest import is_unnest, plan_unnest
from streamsql.plan.window_join import window_join_ends, window_join_proctime, window_start_keys
from streamsql.plan.windows import interval_ms, time_attributes

#: Join types (``JoinNode.join_type``).
INNER, LEFT, RIGHT, FULL = "INNER", "LEFT", "RIGHT", "FULL"
#: Semi and anti joins (``SemiJoinNode``), planned from IN / EXISTS subqueries (plan/subqueries.py).
SEMI, ANTI = "SEMI", "ANTI"
_FLINK_NAMES = {INNER: "InnerJoin", LEFT: "LeftOuterJoin", RIGHT: "RightOuterJoin", FULL: "FullOuterJoin",
                SEMI: "LeftSemiJoin", ANTI: "LeftAntiJoin"}
NO_EQUALITY = "a streaming join needs an equality condition between the two inputs"


# -- plan nodes -------------------------------------------------------------------------------------


@dataclass(eq=False)
class JoinNode(PlanNode):
    """A regular equi-join (Flink's ``Join``): keeps every row of both sides in state.

    Attributes:
        join_type: INNER, LEFT, RIGHT or FULL.
        left_keys, right_keys: key column indexes in each input's schema.
        residual: DuckDB SQL of the non-equi ON condition over the output columns (outer joins).
        condition: the join condition, for EXPLAIN.
        state_ttl_ms: the state TTL of each side's rows from a STATE_TTL hint (ms; 0: never),
            None for the job's ``'table.exec.state.ttl'`` (:mod:`streamsql.plan.state_ttl_hint`).
        null_safe_keys: positions in the key lists compared by ``IS NOT DISTINCT FROM`` (NULL
            matches NULL, as Flink's join key with filterNulls false); regular joins only.
    """

    join_type: str = INNER
    left_keys: list[int] = field(default_factory=list)
    right_keys: list[int] = field(default_factory=list)
    residual: str | None = None
    condition: str = ""
    state_ttl_ms: tuple[int | None, int | None] = (None, None)
    null_safe_keys: tuple[int, ...] = ()

    kind: ClassVar[str] = "join"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"Join(joinType=[{_FLINK_NAMES[self.join_type]}], where=[{self.condition}], "
                f"select=[{', '.join(self.schema.names)}], changelog=[{self.mode}])")


@dataclass(eq=False)
class SemiJoinNode(JoinNode):
    """A semi or anti join (Flink's ``Join`` with joinType LeftSemiJoin / LeftAntiJoin): left rows only.

    Attributes:
        joined_schema: left then right columns, the residual condition's input.
        null_aware: NOT IN's three-valued logic (a NULL on either side is no "not in").
    """

    joined_schema: pa.Schema = None  # type: ignore[assignment]
    null_aware: bool = False

    kind: ClassVar[str] = "semi-join"
    stateful: ClassVar[bool] = True


@dataclass(eq=False)
class WindowJoinNode(JoinNode):
    """A window join (Flink's ``WindowJoin``, plan/window_join.py): insert-only, each window joined once.

    Attributes:
        left_end, right_end: the window_end column of each input.
        zone: the zone the windows' bounds are local to (``WindowSpec.zone``), or None.
    """

    left_end: int = 0
    right_end: int = 0
    zone: str | None = None

    kind: ClassVar[str] = "window-join"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"WindowJoin(joinType=[{_FLINK_NAMES[self.join_type]}], where=[{self.condition}], "
                f"select=[{', '.join(self.schema.names)}])")


@dataclass(eq=False)
class IntervalJoinNode(JoinNode):
    """An event-time interval join (Flink's ``IntervalJoin``): ``lower <= l.ts - r.ts <= upper``.

    Attributes:
        left_time, right_time: the time attribute column index in each input.
        lower, upper: inclusive bounds in ms.
        out_time_attributes: output columns that stay time attributes (both inputs': the output
            watermark is held back).
    """

    left_time: int = 0
    right_time: int = 0
    lower: int = 0
    upper: int = 0
    out_time_attributes: set = field(default_factory=set)

    kind: ClassVar[str] = "interval-join"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"IntervalJoin(joinType=[{_FLINK_NAMES[self.join_type]}], windowBounds=[isRowTime=true, "
                f"leftLowerBound={self.lower}, leftUpperBound={self.upper}, leftTimeIndex={self.left_time}, "
                f"rightTimeIndex={self.right_time}], where=[{self.condition}], "
                f"select=[{', '.join(self.schema.names)}])")


# -- planning ---------------------------------------------------------------------------------------


@dataclass
class _Side:
    node: PlanNode
    scope: Scope


def plan_joins(planner, first: exp.Expression, joins: list[exp.Join],
               where: exp.Expression | None) -> tuple[PlanNode, Scope, exp.Expression | None]:
    """Plan ``FROM first <joins>`` (the ``_select`` hook).

    Args:
        planner: the :class:`~streamsql.plan.planner.Planner`.
        first: the first FROM item.
        joins: the sqlglot ``Join`` nodes that follow it.
        where: the WHERE condition, or None.

    Returns:
        ``(node, scope, rest)``: the joined input, its scope, and the part of WHERE not used by
        the joins (to be applied after them), or None.

    Raises:
        SqlError: a join without an equality condition between its inputs, USING / NATURAL joins,
            unknown or ambiguous columns.
    """
    node, scope = planner._from(first)
    pending = conjuncts(where)
    types = [INNER if is_unnest(j) else _join_type(planner, j) for j in joins]
    for i, (j, jt) in enumerate(zip(joins, types)):
        if (unnested := plan_unnest(planner, j, node, scope)) is not None:  # UNNEST hook (plan/unnest.py)
            node, scope = unnested
            continue
        table, as_of = temporal_version(planner, j)
        right, right_scope = planner._from(table)
        conds = conjuncts(j.args.get("on"))
        if jt == INNER and all(t in (INNER, LEFT) for t in types[i + 1:]):
            combined, _ = _combine(node, scope, right, right_scope, planner.sql)
            usable = []
            for c in pending:
                try:
                    resolve_columns(c, combined)
                except SqlError:
                    continue  # names a table joined later (or is wrong: reported after the joins)
                usable.append(c)
            pending = [c for c in pending if not any(c is u for u in usable)]
            conds += usable
        node, scope = plan_join(planner, j, jt, node, scope, right, right_scope, conds, as_of)
    return node, scope, conjunction(pending)


def _join_type(planner, j: exp.Join) -> str:
    if j.args.get("using"):
        planner._fail(j, "JOIN ... USING is not supported yet; write the condition with ON")
    if j.args.get("method") or (j.kind or "").upper() in ("NATURAL",):
        planner._fail(j, "NATURAL JOIN is not supported; write the condition with ON")
    kind = (j.kind or "").upper()
    if kind in ("SEMI", "ANTI"):
        planner._fail(j, f"{kind} JOIN is not supported yet")
    side = (j.side or "").upper()
    if side in (LEFT, RIGHT, FULL):
        if j.args.get("on") is None:
            planner._fail(j, f"{side} JOIN needs an ON condition")
        return side
    return INNER


def conjuncts(e: exp.Expression | None) -> list[exp.Expression]:
    """The AND-ed parts of ``e`` (none for None)."""
    if e is None:
        return []
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return conjuncts(e.this) + conjuncts(e.expression)
    return [e]


def conjunction(conds) -> exp.Expression | None:
    """The AND of ``conds`` (None for none)."""
    out = None
    for c in conds:
        out = c if out is None else exp.and_(out, c)
    return out


def _unparen(e: exp.Expression) -> exp.Expression:
    while isinstance(e, exp.Paren):
        e = e.this
    return e


def _rename(right: PlanNode, taken: set[str]) -> dict[str, str]:
    """Right column → output name: kept unless taken (case-insensitively), else ``name0``, ..."""
    out = {}
    for name in right.schema.names:
        new, i = name, 0
        while new.lower() in taken:
            new, i = f"{name}{i}", i + 1
        taken.add(new.lower())
        out[name] = new
    return out


def _combine(left: PlanNode, ls: Scope, right: PlanNode, rs: Scope, sql) -> tuple[Scope, dict[str, str]]:
    rename = _rename(right, {n.lower() for n in left.schema.names})
    cols = [c.derived() for c in ls.columns] + [replace(c.derived(), internal=rename[c.internal])
                                                for c in rs.columns]
    return Scope(cols, sql, "join"), rename


def _sides(e: exp.Expression, combined: Scope, left_names: set[str]) -> set[int]:
    """Which inputs (0 left, 1 right) the columns of ``e`` come from."""
    out = set()
    for col in e.find_all(exp.Column):
        if isinstance(col.this, exp.Star):
            continue
        out.add(0 if combined.resolve_path(col)[0].internal in left_names else 1)
    return out


def plan_join(planner, j: exp.Expression, jt: str, left: PlanNode, ls: Scope, right: PlanNode, rs: Scope,
              conds: list[exp.Expression], as_of: exp.Expression | None = None,
              null_aware: bool = False, keyless: bool = False) -> tuple[PlanNode, Scope]:
    """Plan one join of ``left`` and ``right`` on the conjuncts ``conds`` (module docstring).

    Args:
        planner: the planner.
        j: the JOIN (or the subquery of a semi/anti join), for error positions.
        jt: INNER, LEFT, RIGHT, FULL, SEMI or ANTI.
        left: the left input.
        ls: its scope.
        right: the right input.
        rs: its scope.
        conds: the join's conjuncts (resolving against both scopes).
        as_of: a temporal join's ``FOR SYSTEM_TIME AS OF`` expression, else None.
        null_aware: a NOT IN anti join.
        keyless: a semi/anti join may have no equality (NOT IN's null-aware conditions): then it has
            no key, and every left row meets every right row on one task, as Flink's.

    Returns:
        The join's node and the scope of its output (a semi/anti join's is ``ls``).

    Raises:
        SqlError: no equality between the inputs, keys of incomparable types, a bad temporal join.
    """
    combined, _ = _combine(left, ls, right, rs, planner.sql)
    left_names = set(left.schema.names)
    sides = [_sides(c, combined, left_names) for c in conds]
    # a temporal join's versions are never filtered below it (a probe row would match an older one)
    # (nor a condition on the left of an anti join: a left row failing it is not matched, so shown)
    lo, ro = jt in (LEFT, FULL, ANTI), jt in (RIGHT, FULL) or as_of is not None

    # 1. equi-keys
    keys: list[tuple[exp.Expression, exp.Expression]] = []
    null_safe: list[tuple[exp.Expression, exp.Expression, exp.Expression]] = []  # (l, r, condition)
    rest: list[tuple[exp.Expression, set[int]]] = []
    for c, s in zip(conds, sides):
        u = _unparen(c)
        both = _null_safe_operands(u) or ((u.this, u.expression) if isinstance(u, exp.EQ) else None)
        if both is not None and s == {0, 1}:
            a, b = (_sides(x, combined, left_names) for x in both)
            pair = both if a == {0} and b == {1} else both[::-1] if a == {1} and b == {0} else None
            if pair is not None and isinstance(u, exp.EQ):
                keys.append(pair)
                continue
            lst, rst = (sql_type_of(pair[0], ls), sql_type_of(pair[1], rs)) if pair else (None, None)
            if pair is not None and lst and rst and lst.name != rst.name:
                if isinstance(u, exp.NullSafeEQ):  # Flink 2.3 casts neither side of a NULL-safe key
                    planner._fail(u, f"Join: Equality join predicate on incompatible types: {pair[0].sql()} "
                                     f"is {lst}, {pair[1].sql()} is {rst}")
                pair = None  # Flink keeps the OR form a condition then (CAST(k AS BIGINT) = k0 OR ...)
            if pair is not None:
                null_safe.append((*pair, c))
        rest.append((c, s))
    # IS NOT DISTINCT FROM becomes a NULL-matching key of a regular join (Flink's filterNulls false).
    # Where another plan may come of it (semi/anti, temporal; a window or interval join of
    # insert-only inputs with `=` keys) it stays a condition, which gives the same rows.
    if null_safe and jt not in (SEMI, ANTI) and as_of is None and \
            not (keys and left.mode == INSERT_ONLY and right.mode == INSERT_ONLY):
        used = [c for _, _, c in null_safe]
        rest = [(c, s) for c, s in rest if not any(c is u for u in used)]
        null_safe_at = tuple(range(len(keys), len(keys) + len(null_safe)))
        keys += [(le, re_) for le, re_, _ in null_safe]
    else:
        null_safe_at = ()
    # a regular join without an equality runs keyless: every left row meets every right row on one
    # task, as Flink's (its exchange is `single`): a condition over both inputs (query fuzz v4) or
    # none (`a, b`, CROSS JOIN, `ON TRUE`, conditions on one input only)
    theta = jt in (INNER, LEFT, RIGHT, FULL) and as_of is None
    if not keys and not (keyless and jt in (SEMI, ANTI)) and not theta:
        planner._fail(j, f"{NO_EQUALITY} (e.g. ON a.id = b.id); found none in: "
                         f"{' AND '.join(c.sql() for c in conds) or 'no condition'}")

    # 2. pushdown of one-input conditions (not onto an outer join's preserved side)
    push: tuple[list, list] = ([], [])
    keep = []
    for c, s in rest:
        if s == {0} and not lo:
            push[0].append(c)
        elif s == {1} and not ro:
            push[1].append(c)
        else:
            keep.append((c, s))
    # key expressions and casts
    lkeys, rkeys = [], []
    lextra, rextra = [], []
    taken = {n.lower() for n in list(left.schema.names) + list(right.schema.names)}
    for n, (le, re_) in enumerate(keys):
        lsql, rsql = compile_expression(le, ls), compile_expression(re_, rs)
        lst, rst = sql_type_of(le, ls), sql_type_of(re_, rs)
        refused = join_key_error(lst, rst)
        if refused is not None:
            planner._fail(le, refused)
        kind = pair_kind(lst, rst)
        lt, rt = ls.type_of(lsql), rs.type_of(rsql)
        if kind is not None:  # a TIMESTAMP with a TIMESTAMP_LTZ: one kind, moved in the session zone
            target = SqlType(kind, max(lst.precision or 0, rst.precision or 0))
            lsql, rsql = cast_value(lsql, lst, target), cast_value(rsql, rst, target)
        elif lt and rt and lt != rt:
            common = _supertype(lt, rt)
            if common is None:
                planner._fail(le, f"Cannot join on {le.sql()} = {re_.sql()}: types {lt} and {rt} are "
                                  f"not comparable")
            lsql = lsql if lt == common else f"CAST({lsql} AS {common})"
            rsql = rsql if rt == common else f"CAST({rsql} AS {common})"
        lkeys.append(_key_column(lsql, left, lextra, taken))
        rkeys.append(_key_column(rsql, right, rextra, taken))
    left = _prepare(planner, left, ls, push[0], lextra)
    right = _prepare(planner, right, rs, push[1], rextra)
    lki = [left.schema.get_field_index(k) for k in lkeys]
    rki = [right.schema.get_field_index(k) for k in rkeys]

    # output schema and scope (extra key columns are in the schema but not in the scope)
    rename = _rename(right, {n.lower() for n in left.schema.names})
    out_schema = pa.schema(list(left.schema) + [pa.field(rename[f.name], f.type) for f in right.schema])
    scope = Scope([c.derived() for c in ls.columns]
                  + [replace(c.derived(), internal=rename[c.internal]) for c in rs.columns],
                  planner.sql, "join")
    pairs = [(flink_text(quote(lsch)), flink_text(quote(rename[rsch]))) for lsch, rsch in zip(lkeys, rkeys)]
    cond_text = " AND ".join([f"IS NOT DISTINCT FROM({a}, {b})" if n in null_safe_at else f"({a} = {b})"
                              for n, (a, b) in enumerate(pairs)])

    if jt in (SEMI, ANTI):
        residual = _residual(planner, keep, scope, out_schema)
        cond_text = " AND ".join(filter(None, [cond_text, residual and f"({residual})"]))
        insert_only = jt == SEMI and left.mode == INSERT_ONLY and right.mode == INSERT_ONLY
        node = SemiJoinNode([left, right], left.schema, INSERT_ONLY if insert_only else RETRACT, join_type=jt,
                            left_keys=lki, right_keys=rki, residual=residual, condition=cond_text,
                            joined_schema=out_schema, null_aware=null_aware)
        if lextra:  # drop the computed key columns again
            extra = {name for name, _ in lextra}
            node = planner._calc(node, [(n, quote(n)) for n in left.schema.names if n not in extra], None)
        return node, ls
    if as_of is not None:
        residual = _residual(planner, keep, scope, out_schema)
        cond_text += f" AND ({residual})" if residual else ""
        # the conditions Flink's JDBC lookup puts in its query: a row failing them is a miss (LOOKUP retry)
        pushed = [(c, s) for c, s in keep if s == {1} and jdbc_pushable(c, lambda x: sql_type_of(x, rs))]
        dim_filter = _residual(planner, pushed, rs, right.schema)
        lookup = plan_lookup_join(planner, j, jt, as_of, left, ls, right, lki, rki, out_schema, residual,
                                  cond_text, dim_filter)
        if lookup is not None:  # AS OF a PROCTIME() column
            return lookup, scope
        right_cols = [rs.resolve(_unparen(r)).internal for _, r in keys
                      if isinstance(_unparen(r), exp.Column)]
        versioned_side(right)
        left_time, right_time = check_temporal(planner, j, jt, as_of, left, ls, right, right_cols)
        node = TemporalJoinNode([left, right], out_schema, left.mode, join_type=jt, left_keys=lki,
                                right_keys=rki, left_time=left_time, right_time=right_time, residual=residual,
                                condition=cond_text, out_time_attributes=time_attributes(left),
                                ignore_deletes=_scanned_connector(right) == "upsert-kafka",
                                keep_update_before=keeps_update_before(right))
        return node, scope

    # 3. window_start and window_end of two window TVFs among the keys → window join;
    #    bounds between the time attributes → interval join
    window_ends = window_join_ends(left, right, lkeys, rkeys)
    if window_ends is not None and window_join_proctime(left):  # Flink 2.3's StreamExecWindowJoin's words
        planner._fail(j, "Processing time Window Join is not supported yet.")
    if window_ends is not None and null_safe_at:  # window bounds compared NULL-safe only: refused as before
        planner._fail(null_safe[0][2], "IS NOT DISTINCT FROM as a key of a window join is not supported "
                                       "(compare window_start and window_end with `=`)")
    bounds = None
    if left.mode == INSERT_ONLY and right.mode == INSERT_ONLY and window_ends is None:
        bounds = _time_bounds(planner, keep, scope, left, right, rename)
    if bounds is not None:
        lower, upper, lt_name, rt_name, used = bounds
        keep = [(c, s) for c, s in keep if not any(c is u for u in used)]
        if null_safe_at:  # only keys NULL-safe: no `=` key to plan the interval join on as before
            planner._fail(null_safe[0][2], "IS NOT DISTINCT FROM as the only key of an interval join is not "
                                           "supported (add an `=` key between the inputs)")
        kinds = [SqlType.of_field(n.schema.field(name)) for n, name in ((left, lt_name), (right, rt_name))]
        if kinds[0].name != kinds[1].name:  # Flink 2.3 does not bring one to the other's kind here
            planner._fail(j, "Interval join with rowtime attribute requires same rowtime types, but the "
                             f"types are {kinds[0]} *ROWTIME* and {kinds[1]} *ROWTIME*.")
    residual = None
    post = None
    if keep:
        sql = _residual(planner, keep, scope, out_schema)
        cond_text = " AND ".join(filter(None, [cond_text, f"({sql})"]))
        if jt == INNER:
            post = sql
        else:
            residual = sql
    if window_ends is not None:
        starts = window_start_keys(left, right, lkeys, rkeys)
        pairs = [(a, b) for a, b, ln, rn in zip(lki, rki, lkeys, rkeys) if (ln, rn) != starts]
        node = WindowJoinNode([left, right], out_schema, INSERT_ONLY, join_type=jt,
                              left_keys=[a for a, _ in pairs], right_keys=[b for _, b in pairs],
                              left_end=window_ends[0], right_end=window_ends[1],
                              zone=window_ends[2], residual=residual, condition=cond_text)
    elif bounds is not None:
        attrs = time_attributes(left) | {rename[a] for a in time_attributes(right)}
        node = IntervalJoinNode([left, right], out_schema, INSERT_ONLY, join_type=jt, left_keys=lki,
                                right_keys=rki, residual=residual, condition=cond_text,
                                left_time=left.schema.get_field_index(lt_name),
                                right_time=right.schema.get_field_index(rt_name), lower=lower, upper=upper,
                                out_time_attributes=attrs)
    else:
        insert_only = jt == INNER and left.mode == INSERT_ONLY and right.mode == INSERT_ONLY
        mode = INSERT_ONLY if insert_only else RETRACT
        node = JoinNode([left, right], out_schema, mode, join_type=jt, left_keys=lki, right_keys=rki,
                        residual=residual, condition=cond_text or "true", null_safe_keys=null_safe_at)
        note_join(planner, node, ls, rs)  # STATE_TTL hint hook (plan/state_ttl_hint.py)
    if post is not None:
        node = planner._calc(node, [(n, quote(n)) for n in node.schema.names], post)
    return node, scope


def _null_safe_operands(e: exp.Expression) -> tuple[exp.Expression, exp.Expression] | None:
    """The operands of a NULL-safe equality, as Flink's planner reads one into a join key.

    Returns:
        ``(a, b)`` for ``a IS NOT DISTINCT FROM b`` or ``a = b OR (a IS NULL AND b IS NULL)`` (either
        order throughout; operands compared as written), else None.
    """
    if isinstance(e, exp.NullSafeEQ):
        return e.this, e.expression
    if not isinstance(e, exp.Or):
        return None
    for eq, nulls in ((e.this, e.expression), (e.expression, e.this)):
        eq, nulls = _unparen(eq), _unparen(nulls)
        if not (isinstance(eq, exp.EQ) and isinstance(nulls, exp.And)):
            continue
        tested = []
        for t in (_unparen(nulls.this), _unparen(nulls.expression)):
            if isinstance(t, exp.Is) and isinstance(t.expression, exp.Null):
                tested.append(t.this)
        a, b = eq.this, eq.expression
        if len(tested) == 2 and (tested in ([a, b], [b, a])):
            return a, b
    return None


def _residual(planner, keep: list[tuple[exp.Expression, set[int]]], scope: Scope,
              joined: pa.Schema) -> str | None:
    """The DuckDB SQL of the ON conjuncts ``keep`` that are not equi-keys, checked over ``joined``.

    The join's operator evaluates it over the joined columns (left then right); checking each
    conjunct here makes a type error a planning error at that conjunct's position instead of a
    failure of the job's thread when its operators are built.

    Raises:
        SqlError: a conjunct DuckDB cannot evaluate (incomparable types, ...).
    """
    if not keep:
        return None
    for c, _ in keep:
        try:
            compile_query([("__ok", compile_expression(c, scope))], None, joined, planner.sql)
        except SqlError as e:
            planner._fail(c, e.message)
    return compile_expression(conjunction(c for c, _ in keep), scope)


def _supertype(a: str, b: str) -> str | None:
    # a cursor of its own: duckdb.sql's module connection is a database more, shared by all threads
    con = python_functions.cursor()
    try:
        q = f"DESCRIBE SELECT * FROM (SELECT NULL::{a} AS x UNION ALL SELECT NULL::{b} AS x)"
        rows = con.sql(q).fetchall()
    except Exception:
        return None
    finally:
        con.close()
    return str(rows[0][1])


def _key_column(sql: str, node: PlanNode, extra: list[tuple[str, str]], taken: set[str]) -> str:
    """The input column holding key expression ``sql``: an existing column, or a new extra one."""
    for name in node.schema.names:
        if sql == quote(name):
            return name
    for name, e in extra:
        if e == sql:
            return name
    i = 0
    while f"__jk{i}" in taken:
        i += 1
    name = f"__jk{i}"
    taken.add(name)
    extra.append((name, sql))
    return name


def _prepare(planner, node: PlanNode, scope: Scope, filters: list[exp.Expression],
             extra: list[tuple[str, str]]) -> PlanNode:
    """``node`` with pushed-down filters and extra key columns (one Calc), or ``node`` itself."""
    if not filters and not extra:
        return node
    cond = None
    if filters:
        cond = compile_expression(conjunction(filters), scope)
    return planner._calc(node, [(n, quote(n)) for n in node.schema.names] + extra, cond)


# -- time bounds --------------------------------------------------------------------------------------

_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE}


def _linear(planner, e: exp.Expression, scope: Scope) -> tuple[ScopeColumn | None, int] | None:
    """``e`` as (column or None) + constant ms, or None if it is not of that form."""
    e = _unparen(e)
    if isinstance(e, exp.Column) and not isinstance(e.this, exp.Star):
        return scope.resolve(e), 0
    if isinstance(e, exp.Interval):
        try:
            return None, interval_ms(e, "bound", planner, positive=False)
        except SqlError:
            return None
    if isinstance(e, exp.Neg):
        inner = _linear(planner, e.this, scope)
        return (None, -inner[1]) if inner is not None and inner[0] is None else None
    if isinstance(e, (exp.Add, exp.Sub)):
        a, b = _linear(planner, e.this, scope), _linear(planner, e.expression, scope)
        if a is None or b is None:
            return None
        if isinstance(e, exp.Sub):
            if b[0] is not None:
                return None
            return a[0], a[1] - b[1]
        if a[0] is not None and b[0] is not None:
            return None
        return a[0] or b[0], a[1] + b[1]
    return None


def _comparisons(c: exp.Expression) -> list[tuple[type, exp.Expression, exp.Expression]] | None:
    u = _unparen(c)
    if isinstance(u, (exp.GT, exp.GTE, exp.LT, exp.LTE)):
        return [(type(u), u.this, u.expression)]
    if isinstance(u, exp.Between):
        return [(exp.GTE, u.this, u.args["low"]), (exp.LTE, u.this, u.args["high"])]
    return None


def _time_bounds(planner, conds: list[tuple[exp.Expression, set[int]]], scope: Scope, left: PlanNode,
                 right: PlanNode, rename: dict[str, str]):
    """``(lower, upper, left time col, right time col, used conjuncts)`` or None."""
    lattrs = time_attributes(left)
    rattrs = {rename[a]: a for a in time_attributes(right)}
    lower = upper = None
    pair = None
    used = []
    for c, s in conds:
        if s != {0, 1}:
            continue
        comps = _comparisons(c)
        if comps is None:
            continue
        found = []
        for op, a, b in comps:
            la, lb = _linear(planner, a, scope), _linear(planner, b, scope)
            if la is None or lb is None or la[0] is None or lb[0] is None:
                break
            ca, cb = la[0].internal, lb[0].internal
            if ca in lattrs and cb in rattrs:
                lcol, rcol, c_ = ca, rattrs[cb], lb[1] - la[1]        # l - r OP c_
            elif ca in rattrs and cb in lattrs:
                lcol, rcol, c_, op = cb, rattrs[ca], la[1] - lb[1], _FLIP[op]  # r - l OP' ... → l - r
            else:
                break
            found.append((op, lcol, rcol, c_))
        else:
            if not found or (pair is not None and any((f[1], f[2]) != pair for f in found)):
                continue
            pair = (found[0][1], found[0][2])
            for op, _, _, k in found:
                if op is exp.GT:
                    lower = k + 1 if lower is None else max(lower, k + 1)
                elif op is exp.GTE:
                    lower = k if lower is None else max(lower, k)
                elif op is exp.LT:
                    upper = k - 1 if upper is None else min(upper, k - 1)
                else:
                    upper = k if upper is None else min(upper, k)
            used.append(c)
    if lower is None or upper is None:
        return None
    return lower, upper, pair[0], pair[1], used


def _scanned_connector(node: PlanNode) -> str | None:
    """The connector of the table that ``node`` reads through single-input nodes (a Calc), or None."""
    while not isinstance(node, ScanNode):
        if len(node.inputs) != 1:
            return None
        node = node.inputs[0]
    return node.table.connector
