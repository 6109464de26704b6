"""The planner: a bound SELECT or INSERT → a graph of physical plan nodes.

Shape of the plans it builds (EXPLAIN prints them)::

    Sink ← Calc (casts to the sink's types)
         ← Calc (select list, HAVING)          only with GROUP BY
         ← GroupAggregate (keys, aggregates)   only with GROUP BY
         ← Calc (WHERE; keys and arguments, or the select list)
         ← WatermarkAssigner                   if the table declares a watermark
         ← Calc (computed columns)             if the table declares them
         ← TableSourceScan

A Calc over a Calc (a query over a subquery or view) is then merged into one, as Flink's
FlinkCalcMergeRule (:mod:`streamsql.plan.calc_merge`): the outer WHERE runs before the inner
projection. Each node's changelog mode follows from its inputs; writing an updating result into an
append-only sink is a :class:`~streamsql.core.errors.PlanError` raised at planning (the sink
hook, :mod:`streamsql.plan.sinks`), before anything runs.
"""

from __future__ import annotations

import dataclasses
import itertools

import pyarrow as pa
from sqlglot import exp

from streamsql.connectors.registry import get_connector, known_connectors, missing_connector
from streamsql.core.catalog import Catalog, TableDef, ViewDef, table_parts
from streamsql.core.config import Config, duration_ms
from streamsql.core.errors import ConfigError, PlanError, SqlError, StatementError
from streamsql.core.secrets import remember
from streamsql.core.types import Field, Schema, SqlType, duckdb_cast
from streamsql.core.values import parse_bool
from streamsql.functions import udf
from streamsql.functions.aggregates import DISTINCT_FUNCTIONS, AggSpec, agg_output_type, output_field
from streamsql.functions.scalars import planning_session
from streamsql.functions.scalars.binder import AGGREGATE_TYPE, unknown_aggregate
from streamsql.functions.scalars.operand_types import FILTER_CASE, FILTER_CLAUSE
from streamsql.functions.scalars.registry import AS_WRITTEN, type_of, written
from streamsql.functions.scalars.typeof import declared_type
from streamsql.plan import options_hint
from streamsql.plan.agg_prune import per_row_under_ordered_calls, prune_aggregate_calls
from streamsql.plan.agg_reduce import reduce_functions
from streamsql.plan.calc_merge import merge_calcs
from streamsql.plan.certain_types import aggregate_scope, projected_scope
from streamsql.plan.changelog_ptf import plan_changelog_call
from streamsql.plan.conflicts import check_conflict
from streamsql.plan.ctes import inline_ctes
from streamsql.plan.current_watermark import check_arguments as check_current_watermark
from streamsql.plan.current_watermark import watermark_every_emit
from streamsql.plan.display_names import name_aggregate, rename, select_names
from streamsql.plan.explain_types import flink_types
from streamsql.plan.expressions import (
    AGG_TYPES,
    VARIANCE_CALLS,
    ArrayAggCall,
    PythonAggCall,
    agg_label,
    bind_checked,
    certain_type,
    compile_expression,
    flink_text,
    is_proctime_call,
    output_name,
    quote,
    registry_time_type,
    resolve_columns,
    resolve_unbound,
    to_duckdb,
)
from streamsql.plan.float_constants import propagated
from streamsql.plan.group_windows import plan_group_window
from streamsql.plan.grouping_sets import expand, grouping_calls, grouping_sets, is_grouping_call, name_expand
from streamsql.plan.having import LIFTED_HAVING, lift_having_subqueries
from streamsql.plan.join_prune import prune_join_inputs
from streamsql.plan.joins import plan_joins
from streamsql.plan.limit import plan_limit, select_order_keys
from streamsql.plan.lookup_hint import mark_subquery
from streamsql.plan.match_recognize import plan_match_recognize
from streamsql.plan.monotonicity import without_retraction
from streamsql.plan.nodes import (
    INSERT_ONLY,
    RETRACT,
    CalcNode,
    GroupAggNode,
    PlanNode,
    ScanNode,
    SinkNode,
    WatermarkAssignerNode,
    walk,
)
from streamsql.plan.ordered_aggs import ORDERED_CALLS, char_listaggs, mark_listagg, ordered_agg_call
from streamsql.plan.over import plan_over
from streamsql.plan.parallelism_options import check_scan_parallelism
from streamsql.plan.python_udfs import mark_python_aggregates, plan_lateral, python_agg_call
from streamsql.plan.query import compile_query
from streamsql.plan.ranking import plan_ranking, rewrite_qualify
from streamsql.plan.reuse import reuse_subplans, shared_nodes
from streamsql.plan.scalar_in_aggregate import lift_scalar_aggregates
from streamsql.plan.scalar_subqueries import plan_scalar_joins, split_scalar_subqueries
from streamsql.plan.scope import Scope, ScopeColumn, generated_column, is_generated, position_of
from streamsql.plan.setops import distinct, plan_set_operation
from streamsql.plan.sinks import plan_sink
from streamsql.plan.state_ttl_hint import note_group_agg, plan_hinted_select
from streamsql.plan.subqueries import plan_subquery_joins, split_subquery_conjuncts
from streamsql.plan.temporal_sort import plan_temporal_sort, wants_temporal_sort
from streamsql.plan.unsupported import reject_ignored
from streamsql.plan.update_kinds import changelog_mode, eliminate_update_before
from streamsql.plan.values import check_row_widths, plan_values, zero_row
from streamsql.plan.windows import plan_window_aggregate, plan_window_tvf
from streamsql.sql.nodes import ChangelogCall


def _row_star(star: exp.Column, scope: Scope) -> list[exp.Expression] | None:
    """``r.*`` (``t.r.*``, ``r.c.*``) over a ROW column: its fields, each named as the field, as Flink's.

    None when the qualifier names no ROW column (nor a ROW field of one).
    """
    parts = [p.name for p in (star.args.get("catalog"), star.args.get("db"), star.args.get("table")) if p]
    for start in (0, 1):  # r.* / r.c.*, or t.r.* (the table's name or alias first)
        if len(parts) <= start:
            return None
        qual = parts[0].lower() if start else None
        col = next((c for c in scope.columns if c.name.lower() == parts[start].lower()
                    and (qual is None or c.qualifier == qual)), None)
        t = col.type if col is not None else None
        for name in parts[start + 1:]:
            t = dict(t.fields).get(name) if t is not None and t.name == "ROW" else None
        if t is not None and t.name == "ROW":
            return [exp.alias_(_path(parts + [n]), n, quoted=True) for n, _ in t.fields]
    return None


def _path(names: list[str]) -> exp.Expression:
    """``a.b.c...`` as the parser reads it: a Column of up to four parts, then dots."""
    q = [exp.to_identifier(n, quoted=True) for n in names]
    if len(q) <= 4:
        q = [None] * (4 - len(q)) + q
        return exp.Column(this=q[3], table=q[2], db=q[1], catalog=q[0])
    return exp.Dot.build([exp.Column(this=q[3], table=q[2], db=q[1], catalog=q[0]), *q[4:]])


class Planner:
    """Plans statements against a catalog and configuration.

    Args:
        catalog: tables and views.
        config: engine settings (checkpointing mode decides sink guarantees).
        sql: the statement text, for positioned errors.
    """

    def __init__(self, catalog: Catalog, config: Config, sql: str | None = None):
        self.catalog = catalog
        self.config = config
        self.sql = sql
        #: ``(name, renamed to, the name it clashed with)`` for SELECT items whose names differ from
        #: an earlier item's only in case (Flink keeps both; here they are renamed, see ``_unique``)
        self.case_renames: list[tuple[str, str, str]] = []
        #: the tables read or written with an OPTIONS hint, by (catalog object's id, hint's options)
        self._hinted: dict[tuple[int, tuple], TableDef] = {}

    # -- statements ---------------------------------------------------------------------------
    def plan_query(self, query: exp.Expression) -> PlanNode:
        """Plan a SELECT / UNION ALL; returns the root node (ids assigned)."""
        reject_ignored(query, self.sql)
        with self._session():
            self._top = "statement"
            node, _ = self._query(query)
        merge_calcs([node], self.sql)
        prune_aggregate_calls([node])  # as Flink's PruneAggregateCallRule (plan/agg_prune.py)
        per_row_under_ordered_calls([node])
        if prune_join_inputs([node]):
            merge_calcs([node], self.sql)
        reuse_subplans([node], self.config)
        watermark_every_emit([node])
        assign_ids([node])
        return node

    def plan_insert(self, insert: exp.Insert) -> SinkNode:
        """Plan ``INSERT INTO sink [(cols)] query``.

        Raises:
            SqlError: unknown sink, column count or name mismatch.
            PlanError: an updating query into an append-only sink.
        """
        reject_ignored(insert, self.sql)
        target = insert.this
        cols = None
        if isinstance(target, exp.Schema):
            cols = list(target.expressions)
            target = target.this
        table = self._table(target)
        with self._session():
            if cols is not None and isinstance(insert.expression, exp.Values):
                check_row_widths(self, insert.expression, len(cols))  # VALUES hook (plan/values.py)
            self._top = "statement"
            node, _ = self._query(insert.expression)
            sink = plan_sink(self, table, node, cols, target, insert.expression)
            check_conflict(self, sink, insert.args.get("conflict"), target)
        merge_calcs([sink], self.sql)  # the statement's nodes are read by this sink only
        prune_aggregate_calls([sink])  # as Flink's PruneAggregateCallRule (plan/agg_prune.py)
        per_row_under_ordered_calls([sink])
        if prune_join_inputs([sink]):  # a join keeps the columns read above it
            merge_calcs([sink], self.sql)
        reuse_subplans([sink], self.config)
        eliminate_update_before([sink])
        watermark_every_emit([sink])
        assign_ids([sink])
        return sink

    def plan_statement_set(self, inserts: list[exp.Insert]) -> list[SinkNode]:
        """Plan the INSERTs of one statement set as one job: their equal parts computed once.

        As Flink's planner optimizes a statement set as one plan: a table read by several INSERTs
        is scanned once and its rows go to every sink (with a non-deterministic source, e.g.
        datagen or a Kafka source starting at the latest offsets, scans of their own would give
        the sinks different rows). Ids are unique across the set.

        Raises:
            as :meth:`plan_insert`.
        """
        roots = [self.plan_insert(i) for i in inserts]
        reuse_subplans(roots, self.config, by_update_kind=True)
        watermark_every_emit(roots)
        for node in walk(roots):  # ids unique across the statement set, stable across restarts
            node.id = ""
        assign_ids(roots)
        return roots

    def _session(self):
        """Expressions are bound with the session's time zone, user functions and database."""
        functions = self.catalog.functions
        return planning_session(self.config.get("table.local-time-zone"),
                                lambda name: udf.resolve(functions, name), self.catalog.current_database)

    # -- queries -------------------------------------------------------------------------------
    def _query(self, q: exp.Expression) -> tuple[PlanNode, Scope]:
        # where this query is, for an ORDER BY without LIMIT (plan/temporal_sort.py): the statement's
        # own query, a view's, or "" (a subquery, CTE, set operation's branch)
        top, self._top = getattr(self, "_top", ""), ""
        if q.args.get("with_") is not None:
            q = inline_ctes(q, self.sql)
        if isinstance(q, exp.Subquery):  # (SELECT ...) [ORDER BY ...] LIMIT n: Calcite's ordered query
            node, scope = self._query(q.this)
            self._reject_modifiers(q, limit=True)
            limited = plan_limit(self, q, node)
            return limited, scope if limited is node else scope.unfolded()
        if isinstance(q, exp.SetOperation):  # set operation hook (plan/setops.py)
            return plan_set_operation(self, q)
        if isinstance(q, exp.Select):
            # QUALIFY of a ranking hook (plan/ranking.py); Python aggregate calls (plan/python_udfs.py);
            # LISTAGG calls (plan/ordered_aggs.py); subqueries in HAVING (plan/having.py)
            q = lift_scalar_aggregates(q)  # an aggregate's scalar subqueries (plan/scalar_in_aggregate.py)
            q = mark_subquery(q)  # in an expression it takes its SELECT's LOOKUP hint (plan/lookup_hint.py)
            q = mark_python_aggregates(mark_listagg(lift_having_subqueries(self, q)), self.catalog.functions)
            self._top_select = top
            return plan_hinted_select(self, rewrite_qualify(q), self._select)  # STATE_TTL hint hook
        if isinstance(q, exp.Values):  # VALUES hook (plan/values.py): an INSERT's rows
            return self._from(q)
        self._fail(q, f"Unsupported query: {q.key.upper()}")

    def _select(self, sel: exp.Select) -> tuple[PlanNode, Scope]:
        where, self._top_select = getattr(self, "_top_select", ""), ""
        if wants_temporal_sort(sel):  # ORDER BY without LIMIT hook (plan/temporal_sort.py)
            node = plan_temporal_sort(self, sel, where)
            return node, _scope_of(node, None, self.sql)
        sel, hidden = select_order_keys(sel)  # ORDER BY ... LIMIT keys that are not selected (plan/limit.py)
        node, scope = self._select_rows(sel)
        limited = plan_limit(self, sel, node, hidden)  # LIMIT hook (plan/limit.py): after every path
        return limited, scope if limited is node else scope.unfolded()

    def _select_rows(self, sel: exp.Select) -> tuple[PlanNode, Scope]:
        src = sel.args.get("from_")
        where = sel.args["where"].this if sel.args.get("where") is not None else None
        written_where = where  # each conjunct holds on every row the block outputs (plan/float_constants.py)
        where, subqueries = split_subquery_conjuncts(where)  # IN / EXISTS hook (plan/subqueries.py)
        sel, where, scalars = split_scalar_subqueries(self, sel, where)  # hook: plan/scalar_subqueries.py
        self._reject_subqueries(sel, where)  # before the join planner compiles ON and WHERE
        if src is None:  # SELECT without FROM hook (plan/values.py): a Calc over one row
            node, scope = zero_row(), Scope([], self.sql, "any table")
        elif (match := sel.args.get("match")) is not None:  # MATCH_RECOGNIZE hook (plan/match_recognize.py)
            if sel.args.get("joins"):
                self._fail(sel.args["joins"][0], "A JOIN next to MATCH_RECOGNIZE is not supported yet; "
                                                 "match in a subquery and join its result")
            node, scope = plan_match_recognize(self, src.this, match)
        elif (lateral := plan_lateral(self, src.this, sel.args.get("joins"), where)) is not None:
            node, scope, where = lateral  # LATERAL TABLE hook (plan/python_udfs.py)
        elif sel.args.get("joins"):  # join hook (plan/joins.py): takes the WHERE conjuncts it uses
            node, scope, where = plan_joins(self, src.this, sel.args["joins"], where)
        elif (ranked := plan_ranking(self, sel, where)) is not None:  # ranking hook (plan/ranking.py)
            node, scope, where = ranked
        else:
            node, scope = self._from(src.this)
        source = node
        node = plan_subquery_joins(self, node, scope, subqueries)
        sel, node, scope = plan_scalar_joins(self, sel, node, scope, scalars)
        if node is not source:  # a join with a subquery's rows: Flink folds no Calc over it
            scope = scope.unfolded()
        distinct_clause = sel.args.get("distinct")
        if distinct_clause is not None and distinct_clause.args.get("on") is not None:
            self._fail(distinct_clause, "SELECT DISTINCT ON is not supported; "
                                        "use ROW_NUMBER() OVER (...) = 1")
        self._reject_modifiers(sel, limit=True)
        check_current_watermark(self, node, scope, [where, *sel.expressions])  # a rowtime's only
        cond = compile_expression(where, scope, "WHERE") if where is not None else None
        items = self._expand_star(sel.expressions, scope)
        over = plan_over(self, sel, items, node, scope, cond)  # OVER hook (plan/over.py)
        if over is not None:
            return over
        has_agg = sel.args.get("group") is not None or sel.args.get("having") is not None \
            or any(i.find(*AGG_TYPES) for i in items)
        grouping = next((g for i in items for g in i.walk() if is_grouping_call(g)), None)
        if grouping is not None and not has_agg:  # Calcite's (Flink's) groupingInAggregate
            what = {exp.GroupingId: "GROUPING_ID", exp.Grouping: "GROUPING"}.get(type(grouping), "GROUP_ID")
            self._fail(grouping, f"{what} operator may only occur in an aggregate query")
        if has_agg:
            node, scope = self._aggregate(sel, items, node, scope, cond)
        else:
            items = propagated(items, written_where, scope)  # WHERE d = 0: SELECT d reads 0, as Calcite
            names = _unique([output_name(i, n) for n, i in enumerate(items)], self.case_renames)
            exprs = [i.unalias() if isinstance(i, exp.Alias) else i for i in items]
            node = self._project(node, list(zip(names, exprs)), cond, scope)
            scope = projected_scope(_scope_of(node, None, self.sql), exprs, scope)
        if distinct_clause is not None:  # DISTINCT hook (plan/setops.py): GROUP BY every column
            node = distinct(self, node)
            scope = scope.unfolded()  # an aggregate's output: Flink folds no Calc over it
        return node, scope

    def _reject_modifiers(self, q: exp.Query, limit: bool = False) -> None:
        """Reject the clauses a streaming query cannot honour yet, positioned at their keyword.

        ``limit``: LIMIT / FETCH / OFFSET, and an ORDER BY with a LIMIT, are planned (:mod:`.limit`).

        Raises:
            SqlError: for ORDER BY, LIMIT, FETCH, OFFSET or QUALIFY on ``q``.
        """
        for key, name in _UNSUPPORTED_CLAUSES.items():
            if limit and (key in ("limit", "offset") or (key == "order" and q.args.get("limit") is not None)):
                continue
            clause = q.args.get(key)
            if clause is not None:
                name = "FETCH" if isinstance(clause, exp.Fetch) else name
                hint = ""
                if key == "order" and limit:
                    hint = ("; add LIMIT n for a Top-N (docs/ranking.md); the shell's prompt prints "
                            "a SELECT's final table sorted")
                self._fail(clause, f"{name} is not supported in a streaming query yet{hint}")

    def _reject_subqueries(self, sel: exp.Select, where: exp.Expression | None) -> None:
        """Reject a subquery inside an expression (scalar, or IN/EXISTS not an AND condition of WHERE).

        Expressions compile to DuckDB over one batch, where a subquery's tables do not exist:
        without this check the user would see DuckDB's catalog error. ``where`` is WHERE without
        its IN / EXISTS conjuncts (planned as semi/anti joins).

        Raises:
            SqlError: naming the clause that holds the subquery.
        """
        clauses = [("the SELECT list", e) for e in sel.expressions]
        clauses += [("a JOIN's ON condition", j.args.get("on")) for j in sel.args.get("joins") or []]
        clauses.append(("HAVING" if sel.meta.get(LIFTED_HAVING) else "WHERE", where))
        clauses += [(name, sel.args.get(key)) for key, name in (("group", "GROUP BY"), ("having", "HAVING"))]
        for name, expr in clauses:
            sub = expr.find(exp.Query) if expr is not None else None
            if sub is not None:
                while not isinstance(sub, exp.Select) and isinstance(sub.this, exp.Query):
                    sub = sub.this  # (SELECT ...) or a UNION: point at the first SELECT
                hint = "" if name.endswith("ON condition") else (
                    "; [NOT] IN (SELECT ...) and [NOT] EXISTS (...) are supported as AND conditions "
                    "of WHERE, else use a JOIN")
                self._fail(sub, f"Subqueries in {name} are not supported yet{hint}")
            over = expr.find(exp.Window) if expr is not None and name != "the SELECT list" else None
            if over is not None:  # DuckDB would compute it per batch (the SELECT list's: plan/over.py)
                self._fail(over, f"OVER windows ({over.this.sql()} OVER ...: Top-N, deduplication, "
                                 "running aggregates) are not supported yet")

    def _expand_star(self, items: list[exp.Expression], scope: Scope) -> list[exp.Expression]:
        out = []
        for i in items:
            if isinstance(i, exp.Star) or (isinstance(i, exp.Column) and isinstance(i.this, exp.Star)):
                qual = i.table.lower() if isinstance(i, exp.Column) and i.table else None
                cols = [c for c in scope.columns if qual is None or c.qualifier == qual]
                if not cols:
                    fields = _row_star(i, scope)
                    if fields is None:
                        self._fail(i, f"Unknown table or alias '{i.table}' in '{i.sql()}'")
                    out += fields
                    continue
                out += [exp.column(c.name, table=c.qualifier, quoted=True) for c in cols]
            else:
                out.append(i)
        return out

    def _from(self, src: exp.Expression) -> tuple[PlanNode, Scope]:
        node, scope = self._from_item(src)
        alias = src.args.get("alias")
        names = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
        if names:  # FROM ... AS t(a, b): the columns renamed in order, as Calcite
            if len(names) != len(scope.columns) and alias.meta.get("cte"):
                self._fail(alias.columns[0], "Number of columns must match number of query columns")
            if len(names) != len(scope.columns):
                msg = (f"List of column aliases must have same degree as table; table has "
                       f"{len(scope.columns)} columns ({', '.join(c.name for c in scope.columns)}), "
                       f"whereas alias list has {len(names)} columns")
                self._fail(alias, msg)
            scope = scope.renamed(names)
        return node, scope

    def _from_item(self, src: exp.Expression) -> tuple[PlanNode, Scope]:
        alias = src.alias_or_name if src.alias else None
        if isinstance(src, (exp.Table, exp.TableFromRows)) and isinstance(src.this, ChangelogCall):
            node = plan_changelog_call(self, src.this)  # TO_/FROM_CHANGELOG (plan/changelog_ptf.py)
            return node, _scope_of(node, alias, self.sql, f"{src.this.function}(...)")
        if isinstance(src, exp.Table) and not isinstance(src.this, exp.Anonymous):
            obj = self._lookup(src)
            if isinstance(obj, ViewDef):
                with self.catalog.within(obj.namespace):
                    self._top = "view"
                    node, scope = self._query(obj.query)
                if obj.columns:  # CREATE VIEW v (a, b): checked against the query when created
                    scope = scope.renamed(list(obj.columns))
                return node, scope.requalify(alias or obj.name)
            node = self._scan(obj, src)
            return node, _scope_of(node, alias or obj.name, self.sql, f"table '{obj.name}'", obj)
        if isinstance(src, exp.Subquery):
            for key in ("order", "limit", "offset"):  # FROM ((SELECT ...) LIMIT 3): Flink's parser refuses
                if isinstance(src.this, exp.Subquery) and (clause := src.this.args.get(key)) is not None:
                    name = "FETCH" if isinstance(clause, exp.Fetch) else _UNSUPPORTED_CLAUSES[key]
                    self._fail(clause, f"{name} after a parenthesized query in FROM is not valid Flink SQL "
                                       "(Flink's parser refuses it): put it inside the parentheses")
            node, scope = self._query(src.this)
            return node, scope.requalify(alias)
        if isinstance(src, exp.Values):  # VALUES hook (plan/values.py)
            node, scope = plan_values(self, src)
            return node, scope.requalify(alias)
        if isinstance(src, exp.TableFromRows):  # window TVF hook (plan/windows.py)
            return plan_window_tvf(self, src)
        if isinstance(src, exp.Unnest):
            self._fail(src, "UNNEST without a table before it is not supported yet; write "
                            "FROM t CROSS JOIN UNNEST(t.arr) AS u(x)")
        self._fail(src, f"Unsupported FROM item: {src.key.upper()}")

    def view_column_types(self, query: exp.Expression) -> list[SqlType | None] | None:
        """Flink's type of each column of a view's ``query`` where certain (None where not), or None.

        Only for a SELECT of expressions over one table (a WHERE allowed; no join, aggregation,
        window, DISTINCT, set operation or subquery in FROM): each item's type by TYPEOF's rules
        (:func:`~streamsql.plan.expressions.certain_type`), a star's columns their DDL types.
        """
        blocked = ("joins", "group", "having", "distinct", "qualify", "windows", "with", "with_", "laterals")
        if not isinstance(query, exp.Select) or any(query.args.get(k) for k in blocked):
            return None
        src = query.args.get("from_")
        src = src.this if src is not None else None
        alias = src.args.get("alias") if isinstance(src, exp.Table) else None
        if not isinstance(src, exp.Table) or isinstance(src.this, exp.Anonymous) or (alias and alias.columns):
            return None
        try:
            table = self._lookup(src)
        except SqlError:  # not a catalog object (a CTE's name): not planned here
            return None
        if not isinstance(table, TableDef):
            return None
        node = self.table_node(table)
        scope = _scope_of(node, src.alias_or_name, self.sql, f"table '{table.name}'", table)
        out: list[SqlType | None] = []
        for item in query.expressions:
            if isinstance(item, exp.Star):
                out += [c.declared for c in scope.columns]
                continue
            expr = item.this if isinstance(item, exp.Alias) else item
            if any(isinstance(e, (exp.AggFunc, exp.Window, exp.Star, exp.Subquery)) for e in expr.walk()):
                return None
            out.append(certain_type(expr, scope))
        return out

    def _scan(self, table: TableDef, at: exp.Expression) -> PlanNode:
        if not table.connector:
            self._fail(at, missing_connector(table.name, reading=True), PlanError)
        spec = get_connector(table.connector)
        if spec.create_source is None and not (spec.create_lookup and at.meta.get("as_of")):  # lookup joins
            msg = f"Table '{table.name}' uses connector '{table.connector}', which cannot be read (sink only)"
            self._fail(at, msg, PlanError)
        # A bad option fails here, with the statement's position, rather than after submission.
        options_hint.checked(at, self.sql, lambda: spec.check_source(table, self.config.as_dict()))
        check_scan_parallelism(self, table, spec.source_changelog(table), at)
        return self.table_node(table, RETRACT if spec.source_changelog(table) else INSERT_ONLY,
                               self._idle_timeout(table) if table.watermark is not None else 0)

    def table_node(self, table: TableDef, mode: str = INSERT_ONLY, idle_timeout_ms: int = 0) -> PlanNode:
        """The scan of ``table`` with its computed columns and watermark (no option checks).

        Called by CREATE TABLE too, so that a bad computed column or watermark fails there, as
        Flink resolves a table's schema when it is created (options, such as ``idle_timeout_ms``, are
        checked where the table is read, as Flink). Errors point into the table's DDL.

        Raises:
            SqlError: an unknown column or bad expression in a computed column or the watermark,
                or a watermark on a column that is not a TIMESTAMP(3)/TIMESTAMP_LTZ(3).
        """
        ddl = table.sql or self.sql
        readable = [c for c in table.columns if c.computed is None]
        ordered = [c for c in readable if c.is_physical] + [c for c in readable if not c.is_physical]
        scan_schema = Schema([Field(c.name, c.type) for c in ordered])
        node: PlanNode = ScanNode([], scan_schema.to_arrow(), mode, table=table)
        scan = node
        scope = _scope_of(node, table.name, ddl, f"table '{table.name}'")
        if ordered != readable or any(c.computed is not None for c in table.columns):
            node = self._project(node, [(c.name, c.computed) for c in table.columns], None, scope)
            typed = _scope_of(scan, table.name, ddl, f"table '{table.name}'", table=table)
            for c in table.columns:  # computed columns get their inferred types
                if c.computed is not None and c.type is None:
                    c.type = SqlType.of_field(node.schema.field(c.name))
                if c.computed is not None and c.derived is None:
                    c.derived = certain_type(c.computed, typed)
            scope = _scope_of(node, table.name, ddl, f"table '{table.name}'")
        if table.watermark is not None:
            col = table.column(table.watermark.column)
            refused = "needs a TIMESTAMP(3) or TIMESTAMP_LTZ(3) column" if col is None or col.type is None \
                else col.type.watermark_refusal()
            if refused is not None:
                msg = f"Table '{table.name}': WATERMARK FOR '{table.watermark.column}': {refused}"
                raise SqlError(msg, ddl, *position_of(table.watermark.expr))
            wsql = compile_expression(table.watermark.expr, scope)
            q = compile_query([("wm", wsql)], None, node.schema, ddl)
            pushed = table.options.get("connector") in ("kafka", "upsert-kafka")  # Flink: in the source
            eager = None if pushed else self.config.duration("pipeline.auto-watermark-interval")
            node = WatermarkAssignerNode([node], _rowtime_schema(node.schema, col.name), node.mode, query=q,
                                         rowtime=col.name,
                                         expr_sql=flink_text(wsql), idle_timeout_ms=idle_timeout_ms,
                                         eager_interval_ms=eager,
                                         null_rowtime_table=None if pushed else table.name)
        return node

    def _idle_timeout(self, table: TableDef) -> int:
        """Milliseconds after which a split without rows stops holding the watermark back (0 = never).

        Raises:
            ConfigError: for a value that is not a duration.
        """
        key = "scan.watermark.idle-timeout"
        value = table.options.get(key)
        if value is None:
            key = "table.exec.source.idle-timeout"
            value = self.config.get(key) or "0"
        ms = duration_ms(value, key)
        if ms < 0:
            msg = f"'{key}' = '{value}' must not be negative"
            raise ConfigError(msg)
        return ms

    def _project(self, node: PlanNode, items: list[tuple[str, exp.Expression | None]], cond: str | None,
                 scope: Scope) -> PlanNode:
        """The Calc of ``items`` over ``node`` (a table's computed columns, a SELECT list).

        ``items`` are ``(name, expression over scope)``, or ``(name, None)`` for ``node``'s column
        of that name. A bare ``PROCTIME()`` item is a processing-time attribute (``CalcNode.proctime``),
        whether a DDL computed column or a view's, subquery's or CTE's SELECT item, as in Flink, and
        TIMESTAMP_LTZ(3). Every TIMESTAMP_LTZ(p < 6) item gets the registry's precision
        (:func:`registry_time_type`), which DuckDB cannot carry: ``TO_TIMESTAMP_LTZ(ms, 3)``,
        ``CAST(x AS TIMESTAMP_LTZ(3))``, ``PROCTIME() + INTERVAL '1' HOUR`` are TIMESTAMP_LTZ(3) in
        Flink, and through a view or subquery their CAST to STRING prints three fraction digits.
        """
        compiled, types, proctime = [], {}, set()
        for name, e in items:
            if e is None:
                compiled.append((name, quote(name)))
                continue
            sql, t = registry_time_type(e, compile_expression(e, scope), scope, resolved=True)
            compiled.append((name, sql))
            if t is not None:
                types[name] = t
            if is_proctime_call(e):
                proctime.add(name)
        return self._calc(node, compiled, cond, types, frozenset(proctime))

    def _calc(self, node: PlanNode, items: list[tuple[str, str]], cond: str | None,
              types: dict[str, SqlType] | None = None,
              proctime: frozenset[str] = frozenset()) -> PlanNode:
        q = compile_query(items, cond, node.schema, self.sql, types)
        if cond is None and [e for _, e in items] == [quote(n) for n in node.schema.names] \
                and [n for n, _ in items] == node.schema.names and q.output_schema == node.schema:
            return node  # SELECT * (or the same columns, same names): no operator, no copy per batch
        return CalcNode.over(node, q, proctime)

    def _cast(self, node: PlanNode, names: list[str], types: list[SqlType]) -> CalcNode:
        items = [(n, duckdb_cast(quote(src), f.type, t))
                 for n, src, f, t in zip(names, node.schema.names, node.sql_schema, types)]
        return self._calc(node, items, None)

    # -- aggregation ---------------------------------------------------------------------------
    def _aggregate(self, sel, items, node, scope, cond) -> tuple[PlanNode, Scope]:
        group = sel.args.get("group")
        grouping = grouping_sets(self, group)  # GROUPING SETS / ROLLUP / CUBE (plan/grouping_sets.py)
        # window hooks: GROUP BY window_start, window_end (plan/windows.py) or TUMBLE(...)
        # (plan/group_windows.py) → WindowAggregate
        # (grouping sets run in a window TVF aggregation, not next to a group window: Flink refuses those)
        windowed = plan_window_aggregate(self, sel, items, node, scope, cond, grouping) \
            or (None if grouping else plan_group_window(self, sel, items, node, scope, cond))
        if windowed is not None:
            return windowed
        sets = None if grouping is None else grouping[1]
        raw_keys = grouping[0] if grouping else group.expressions if group else []
        keys = [resolve_columns(g, scope) for g in raw_keys]
        resolved, having_r, calls = self._resolve_aggregate(sel, items, scope)
        pre: list[tuple[str, str]] = [(f"__k{i}", to_duckdb(k)) for i, k in enumerate(keys)]
        if sets is not None:  # the grouping set's number: a key of the aggregate, as Flink's $e
            pre.append(("__e", "CAST(0 AS INTEGER)"))
        specs_raw = []
        for call in calls.values():
            specs_raw.append(self._agg_arguments(pre, call, node.mode, keys=sets is None))
        if not pre:
            pre.append(("__one", "1"))
        if sets is None:
            pre_node = self._calc(node, pre, cond)
        else:
            pre_node = expand(self, node, pre, len(keys), sets, cond)
        in_types = pre_node.sql_schema
        # MAX over an increasing column (MIN: decreasing) needs no retraction, as in Flink's plan
        specs_raw = [(without_retraction(f, a, pre_node), a) for f, a in specs_raw]
        specs = reduce_functions([AggSpec(f, a, self._agg_type(call, f, in_types.fields[a].type
                                                                if a is not None else None))
                                  for call, (f, a) in zip(calls.values(), specs_raw)])
        specs = char_listaggs(list(calls.values()), specs, scope)
        num_keys = len(keys) + (sets is not None)
        out_fields = [pre_node.schema.field(i) for i in range(num_keys)]

        out_schema = pa.schema(out_fields + [output_field(f"__agg{j}", s.out_type)
                                             for j, s in enumerate(specs)])
        agg = GroupAggNode([pre_node], out_schema, RETRACT, num_keys=num_keys, aggs=specs,
                           labels=[agg_label(c) for c in calls.values()])
        name_aggregate(pre_node, agg, keys, list(calls.values()), select_names(items, resolved))
        if sets is not None:
            name_expand(pre_node, agg)
        note_group_agg(self, agg, scope)  # STATE_TTL hint hook (plan/state_ttl_hint.py)
        # Post-projection: aggregate calls and grouping expressions become columns of `agg`.
        key_sql = {k.sql(): f"__k{i}" for i, k in enumerate(keys)}
        call_col = {s: f"__agg{j}" for j, s in enumerate(calls)}

        key_index = {k.sql(): i for i, k in enumerate(keys)}

        def to_agg_cols(n: exp.Expression) -> exp.Expression:
            if is_grouping_call(n):
                return grouping_calls(self, n, key_index, sets)
            if n.sql() in call_col and isinstance(n, AGG_TYPES):
                col = generated_column(call_col[n.sql()])
            elif n.sql() in key_sql and not isinstance(n, exp.Alias):
                col = generated_column(key_sql[n.sql()])
            else:
                return n
            col.meta[AS_WRITTEN] = written(n)  # messages name what the user wrote, not __agg0
            return col

        return self._post_project(agg, items, resolved, having_r, to_agg_cols)

    def _resolve_aggregate(self, sel: exp.Select, items: list[exp.Expression], scope: Scope
                           ) -> tuple[list[exp.Expression], exp.Expression | None, dict[str, exp.Expression]]:
        """The SELECT items and HAVING condition of an aggregation, resolved against ``scope``.

        Returns ``(resolved items, resolved HAVING or None, calls)``, ``calls`` the distinct
        aggregate calls of both by their SQL, in order of appearance.
        """
        resolved = [_inline_filters(self, self._typed_aggregates(resolve_unbound(i, scope))) for i in items]
        having = sel.args.get("having")
        having_r = None if having is None else \
            _inline_filters(self, self._typed_aggregates(resolve_unbound(having.this, scope)))
        calls: dict[str, exp.Expression] = {}
        for e in resolved + ([having_r] if having_r is not None else []):
            for call in e.find_all(*AGG_TYPES):
                calls.setdefault(call.sql(), call)
        return resolved, having_r, calls

    def _typed_aggregates(self, tree: exp.Expression) -> exp.Expression:
        """``tree`` (resolved, unbound) checked by the binder, each aggregate call typed first.

        An aggregate call's result type (``AGGREGATE_TYPE``: from its function and its first
        argument's type, as the aggregation computes it) lets the expression around it bind as
        Flink's validator binds it: ``ARRAY_AGG(x)[1]``, ``UPPER(LISTAGG(s))``,
        ``JSON_QUERY(JSON_ARRAYAGG(s), '$[0]')``. Returns ``tree``, its calls typed in place.

        Raises:
            SqlError: a call the binder refuses, in an aggregate's arguments or around it.
        """
        for call in tree.find_all(*AGG_TYPES):
            nested = any(isinstance(a, AGG_TYPES) for a in call.iter_expressions())
            if isinstance(call.parent, exp.Window) or nested:
                continue  # OVER, or an aggregate of an aggregate: refused later, as before
            func, arg = self._agg_call(call, INSERT_ONLY)
            args = arg if isinstance(arg, list) else [] if arg is None else [arg]
            arg_type = type_of(bind_checked(args[0], self.sql)) if args else None
            call.meta[AGGREGATE_TYPE] = self._agg_type(call, func, arg_type)
        bind_checked(tree, self.sql)
        return tree

    def _post_project(self, agg: PlanNode, items: list[exp.Expression], resolved: list[exp.Expression],
                      having_r: exp.Expression | None, to_agg_cols) -> tuple[PlanNode, Scope]:
        """The projection (and HAVING filter) over an aggregate's output columns.

        ``items`` are the SELECT items, ``resolved`` the same with their columns resolved,
        ``having_r`` the resolved HAVING condition (or None); ``to_agg_cols`` rewrites an
        expression node to refer to the columns of ``agg`` (aggregate calls, grouping keys...).
        Returns the Calc node (or ``agg`` itself when it is already the result) and its scope.
        """
        # every column of `agg` is the planner's: a user's column left over is one not grouped
        columns = [ScopeColumn(None, f.name, f.name, SqlType.of_field(f), generated=True) for f in agg.schema]
        post_scope = aggregate_scope(Scope(columns, self.sql), agg)
        names = _unique([output_name(i, n) for n, i in enumerate(items)], self.case_renames)
        post, types, exprs = [], {}, []
        for name, r in zip(names, resolved):
            expr = (r.unalias() if isinstance(r, exp.Alias) else r).transform(to_agg_cols)
            exprs.append(expr)
            sql, t = registry_time_type(expr, self._post_expr(expr, post_scope), post_scope)
            post.append((name, sql))
            if t is not None:  # e.g. PROCTIME() after an aggregation: a TIMESTAMP_LTZ(3) value, as Flink
                types[name] = t
        post_cond = None if having_r is None else self._post_expr(having_r.transform(to_agg_cols), post_scope,
                                                                   "HAVING")
        calc = self._calc(agg, post, post_cond, types)
        return calc, projected_scope(_scope_of(calc, None, self.sql), exprs, post_scope)

    def _post_expr(self, expr: exp.Expression, scope: Scope, clause: str | None = None) -> str:
        for call in expr.find_all(exp.AggFunc):  # one no aggregate took: not "column not grouped"
            unknown = unknown_aggregate(call)
            if unknown is not None:
                self._fail(call, unknown.message)
        for col in expr.find_all(exp.Column):
            if not is_generated(col):
                line, c, length = position_of(col)
                msg = (f"Column '{col.name}' must appear in the GROUP BY clause or be used in an "
                       f"aggregate function")
                raise SqlError(msg, self.sql, line, c, length)
        return to_duckdb(expr, scope, clause)

    def _agg_arguments(self, pre: list[tuple[str, str]], call: exp.Expression, mode: str,
                       keys: bool = True) -> tuple[str, int | None]:
        """``(function, index of its first argument column or None)`` of an aggregate call.

        Its argument columns (``__a{i}``, one per argument: several for a Python aggregate) are
        appended to ``pre``, the items of the Calc before the aggregate; a single argument that an
        earlier call already has (``AVG(x), MAX(x)``), or with ``keys`` a grouping key is
        (``GROUP BY k`` ... ``MAX(k)``), is that column, as in Flink's Calc. Not a key's under
        grouping sets (``keys`` False): their Expand nulls the keys, not the arguments. Several
        arguments always get columns of their own (a Python aggregate reads them side by side).
        """
        func, arg = self._agg_call(call, mode)
        args = arg if isinstance(arg, list) else [] if arg is None else [arg]
        sqls = [to_duckdb(a, Scope([], self.sql)) for a in args]  # a refusal quotes the statement
        shared = ("__a", "__k") if keys else ("__a",)
        if len(sqls) == 1:
            same = next((i for i, (n, e) in enumerate(pre) if n.startswith(shared) and e == sqls[0]), None)
            if same is not None:
                return func, same
        first = len(pre)
        pre += [(f"__a{first + k}", sql) for k, sql in enumerate(sqls)]
        return func, first if args else None

    def _agg_call(self, call: exp.Expression, mode: str) -> tuple[str, exp.Expression | list | None]:
        """``(function, argument)``: one expression, a list of them (a Python aggregate) or None."""
        if isinstance(call, PythonAggCall):
            return python_agg_call(self, call, mode)
        if isinstance(call, ORDERED_CALLS):
            return ordered_agg_call(self, call, mode)
        updating = mode != INSERT_ONLY
        _check_one_argument(self, call)
        if isinstance(call, exp.Count):
            arg = call.this
            if arg is None or isinstance(arg, exp.Star):
                return "count_star", None
            if isinstance(arg, exp.Distinct):
                return "count_distinct", arg.expressions[0]
            return "count", arg
        if isinstance(call, (exp.Min, exp.Max)):
            f = "min" if isinstance(call, exp.Min) else "max"
            arg = call.this
            if isinstance(arg, exp.Distinct):  # the extreme of the distinct values is the extreme
                arg = arg.expressions[0]
            return (f + "_retract" if updating else f), arg
        if isinstance(call.this, exp.Distinct) and isinstance(call, (exp.Sum, exp.Avg)):
            return DISTINCT_FUNCTIONS[call.key], call.this.expressions[0]
        if type(call) in VARIANCE_CALLS:  # DISTINCT: Flink's distinct view (streamsql.functions.variance)
            if isinstance(call.this, exp.Distinct):
                return VARIANCE_CALLS[type(call)] + "_distinct", call.this.expressions[0]
            return VARIANCE_CALLS[type(call)], call.this
        if isinstance(call, exp.Distinct) or isinstance(call.this, exp.Distinct):
            self._fail(call, f"{call.key.upper()}(DISTINCT ...) is not supported yet")
        return ("sum" if isinstance(call, exp.Sum) else "avg"), call.this

    def _agg_type(self, call: exp.Expression, func: str, arg: SqlType | None) -> SqlType:
        """The result type of aggregate ``call`` (see ``agg_output_type``).

        Raises:
            PlanError: an argument of the wrong type (e.g. SUM of a STRING), positioned at the call.
        """
        try:
            return agg_output_type(func, arg)
        except PlanError as e:
            self._fail(call, e.message, PlanError)

    # -- helpers -------------------------------------------------------------------------------
    def _lookup(self, table: exp.Table) -> TableDef | ViewDef:
        """The table or view ``table`` names, with its OPTIONS hint's options laid over its own."""
        try:
            obj = self.catalog.get(table_parts(table))
            hinted = options_hint.options_of(table)
        except SqlError as e:
            line, col, length = position_of(table)
            raise SqlError(e.message, self.sql, line, col, length) from None
        if hinted is None:
            return obj
        if not parse_bool(self.config.get(options_hint.ENABLED_KEY), options_hint.ENABLED_KEY):
            self._fail(table, options_hint.DISABLED)
        if isinstance(obj, ViewDef):
            path = ".".join(f"`{p}`" for p in self.catalog.qualify(table_parts(table)))
            self._fail(table, f"View '{path}' cannot be enriched with new options. "
                              "Hints can only be applied to tables.")
        # One object per table and hint, as Flink's scan digest names the hint's options: scans
        # with equal hints are one scan for sub-plan reuse (two scans of a random or latest-offset
        # source would read different rows; Flink reuses one), differently hinted ones are two.
        key = (id(obj), tuple(hinted.items()))
        if key not in self._hinted:
            remember(hinted)  # masked in messages and logs from now on, as a CREATE TABLE's options
            self._hinted[key] = dataclasses.replace(obj, options={**obj.options, **hinted}, hints=hinted)
        return self._hinted[key]

    def _table(self, target: exp.Table) -> TableDef:
        obj = self._lookup(target)
        if not isinstance(obj, TableDef):
            self._fail(target, f"'{obj.name}' is a view; INSERT needs a table")
        return obj

    def _fail(self, node: exp.Expression, message: str, kind: type[StatementError] = SqlError):
        """Raise ``kind`` (a SqlError unless told) positioned at ``node`` (see ``position_of``)."""
        line, col, length = position_of(node)
        raise kind(message, self.sql, line, col, length)


_ONE_ARGUMENT = (exp.Sum, exp.Avg, exp.Min, exp.Max, *VARIANCE_CALLS)


def _check_one_argument(planner: Planner, call: exp.Expression) -> None:
    """Refuse ``SUM(DISTINCT a, b)``, ``MAX(a, b)``, ``COUNT(DISTINCT a, b)``... in Flink 2.3's words.

    The parser keeps the extra arguments of such a call (in its DISTINCT, or as COUNT's, MIN's
    and MAX's variadic form); they were ignored: ``MAX(i, j)`` answered ``MAX(i)``,
    ``COUNT(DISTINCT i, j)`` ``COUNT(DISTINCT i)``. Calcite's validator refuses the first kind;
    COUNT of several values passes it, and Flink's planner refuses it (``AggFunctionFactory``).
    """
    if not isinstance(call, (exp.Count, *_ONE_ARGUMENT)):
        return
    arg = call.this
    given = arg.expressions if isinstance(arg, exp.Distinct) else [arg, *call.expressions]
    if len(given) <= 1:
        return
    if isinstance(call, exp.Count):
        planner._fail(call, "We now only support the count of one field.")
    name = written(call).split("(", 1)[0].strip().upper()
    planner._fail(call, f"Invalid number of arguments to function '{name}'. Was expecting 1 arguments")


# Query clauses a streaming query cannot honour yet (Select/SetOperation arg → keyword).
_UNSUPPORTED_CLAUSES = {"order": "ORDER BY", "limit": "LIMIT", "offset": "OFFSET", "qualify": "QUALIFY"}


def _scope_of(node: PlanNode, qualifier: str | None, sql: str | None, what: str = "input",
              table: TableDef | None = None) -> Scope:
    """The columns of ``node``; with ``table`` (``node`` reads it), its physical columns' DDL types."""
    q = qualifier.lower() if qualifier else None
    declared = _declared_types(table) if table is not None else {}
    produced = _produced_types(table, declared) if table is not None else {}
    cols = [ScopeColumn(q, f.name, f.name, SqlType.of_field(f), declared.get(f.name),
                        produced=produced.get(f.name))
            for f in node.schema]
    return Scope(cols, sql, what)


def _rowtime_schema(schema: pa.Schema, rowtime: str) -> pa.Schema:
    """``schema`` with its rowtime column typed TIMESTAMP(3) / TIMESTAMP_LTZ(3), whatever its precision.

    Flink's time attributes have precision 3 in queries (its rowtime indicator type): over a
    ``WATERMARK FOR ts`` on a TIMESTAMP(0) column, ``CAST(ts AS STRING)`` is ``'2024-01-01
    00:00:01.000'`` and TYPEOF(ts) ``TIMESTAMP(3)`` (PyFlink 2.3). The values are the same
    (``timestamp[ms]`` either way): only the SQL type riding in the field's metadata changes.
    """
    i = schema.get_field_index(rowtime)
    t = SqlType.of_field(schema.field(i))
    attribute = _time_attribute_type(t)
    return schema if attribute == t else schema.set(i, attribute.arrow_field(rowtime))


def _time_attribute_type(t: SqlType) -> SqlType:
    """A TIMESTAMP or TIMESTAMP_LTZ of a precision below 3 as the time attribute's (precision 3)."""
    if t.name not in ("TIMESTAMP", "TIMESTAMP_LTZ") or (t.precision or 0) >= 3:
        return t
    return dataclasses.replace(t, precision=3)


def _declared_types(table: TableDef) -> dict[str, SqlType]:
    """A table's columns read straight from it → their DDL types, a PRIMARY KEY column NOT NULL (as Flink).

    Physical columns, computed columns whose type is certain (``ColumnDef.derived``), and metadata
    columns of a connector whose produced types are known
    (``ConnectorSpec.metadata_types``).

    A rowtime column too: Flink's TYPEOF gives its declared type, without the ``*ROWTIME*`` marker,
    at precision 3 (a time attribute's, see :func:`_rowtime_schema`).
    """
    keys = {k.lower() for k in table.primary_key}
    rowtime = table.watermark.column.lower() if table.watermark is not None else None
    declared = {c.name: declared_type(_time_attribute_type(c.type) if c.name.lower() == rowtime else
                                      c.type.with_nullable(False) if c.name.lower() in keys else c.type,
                                      c.written)
                for c in table.columns if c.computed is None and c.type is not None and (
                    c.metadata_key is None or c.metadata_key in _metadata_types(table))}
    # a computed column's type as Flink derives it, where certain (set by table_node)
    declared.update({c.name: c.derived for c in table.columns
                     if c.computed is not None and c.derived is not None})
    return {name: t for name, t in declared.items() if t is not None}


def _metadata_types(table: TableDef) -> dict[str, SqlType]:
    spec = known_connectors().get(table.connector) if table.connector else None
    return spec.metadata_types if spec is not None else {}


def _produced_types(table: TableDef, declared: dict[str, SqlType]) -> dict[str, SqlType]:
    """Metadata columns whose source type differs from the declared one only in nullability → it.

    TYPEOF of such a bare column is the produced type in Flink 2.3 (its planner drops the
    nullability cast), e.g. ``fs BIGINT METADATA FROM 'file.size'`` is ``BIGINT NOT NULL``.
    """
    types = _metadata_types(table)
    out = {}
    for c in table.columns:
        t = types.get(c.metadata_key) if c.metadata_key is not None else None
        mine = declared.get(c.name)
        if t is not None and mine is not None and t.with_nullable(True) == mine.with_nullable(True):
            out[c.name] = t
    return out


def _inline_filters(planner: Planner, tree: exp.Expression) -> exp.Expression:
    """``agg(x) FILTER (WHERE c)`` as ``agg(CASE WHEN c THEN x END)`` (``COUNT(*)``: of ``1``).

    The same answer, as every aggregate skips NULLs, so a filtered call is an ordinary call over
    the aggregate framework (DISTINCT included: ``COUNT(DISTINCT CASE WHEN c THEN x END)``).
    An aggregate that keeps NULLs (JSON_ARRAYAGG ... NULL ON NULL, a Python aggregate, which sees
    every row) would take the filtered rows as NULLs: refused for now. ARRAY_AGG keeps the condition
    as a second argument (``array_agg[_distinct]_filtered``: only the rows it holds for are taken).
    The value of LISTAGG, PERCENTILE and ARRAY_AGG, ``exp.Anonymous`` calls, is their first
    argument (it was mistaken for the call's name, and the FILTER dropped: ``LISTAGG(s) FILTER
    (WHERE f)`` joined every row's ``s``).
    """
    def inline(n: exp.Expression) -> exp.Expression:
        if not (isinstance(n, exp.Filter) and isinstance(n.this, AGG_TYPES)):
            return n
        call, cond = n.this.copy(), n.expression.this
        for literal in cond.find_all(exp.Literal):
            literal.meta[FILTER_CLAUSE] = True
        null_on_null = isinstance(call, exp.JSONArrayAgg) and call.args.get("null_handling") == "NULL ON NULL"
        if isinstance(call, exp.JSONObjectAgg):
            return n  # refused where its call is planned (ordered_aggs), in Flink's words
        if isinstance(call, ArrayAggCall) and not call.args.get("ignore_nulls"):
            call.set("filter", cond)  # as Flink: the filtered rows are not taken, NULL values are
            return call
        if null_on_null or isinstance(call, PythonAggCall):
            name = written(call).split("(", 1)[0].upper()
            planner._fail(n.this, f"FILTER (WHERE ...) on {name} is not supported yet (it keeps NULL "
                                  "values); filter the rows in a subquery instead")
        anonymous = isinstance(call, exp.Anonymous)
        arg = call.expressions[0] if anonymous else call.this
        holder = arg if isinstance(arg, exp.Distinct) else call
        value = holder.expressions[0] if holder is arg or anonymous else arg
        if value is None or isinstance(value, exp.Star):
            value = exp.Literal.number(1)
        case = exp.Case(ifs=[exp.If(this=cond, true=value)])
        case.meta[FILTER_CASE] = True  # no CASE of the user's: a BITMAP value passes (BITMAP_OR_AGG(b) ..)
        if holder is arg:
            arg.set("expressions", [case, *arg.expressions[1:]])
        elif anonymous:
            call.set("expressions", [case, *call.expressions[1:]])
        else:
            call.set("this", case)
        return call

    return tree.transform(inline)


def _unique(names: list[str], case_renames: list[tuple[str, str, str]] | None = None) -> list[str]:
    """``names`` with repeats renamed to the first free ``a0``, ``a1``... (Calcite's ``uniquify``).

    A name already taken, by an earlier column or an earlier rename, is skipped: ``a0, a, a`` is
    ``a0, a, a1``. Names are compared case-insensitively here (DuckDB's), so ``A`` after ``a`` is
    renamed too, where Flink keeps both: such renames are noted in ``case_renames`` as ``(name,
    new name, earlier name)``.
    """
    used: dict[str, str] = {}  # lower-cased name -> the spelling that took it
    out = []
    for n in names:
        earlier = used.get(n.lower())
        if earlier is not None:
            renamed = next(f"{n}{j}" for j in itertools.count() if f"{n}{j}".lower() not in used)
            if case_renames is not None and earlier != n:
                case_renames.append((n, renamed, earlier))
            n = renamed
        used[n.lower()] = n
        out.append(n)
    return out


def assign_ids(roots: list[PlanNode]) -> None:
    """Give every node a stable, readable id (``scan-0``, ``calc-1``, ...) in plan order."""
    for i, n in enumerate(walk(roots)):
        if not n.id:
            n.id = f"{n.kind}-{i}"


def explain(roots: list[PlanNode], changelog: bool = False) -> str:
    """The plan as an indented tree (sink first), then each sink's delivery guarantee.

    The tree's section is named as Flink 2.3 names the one it resembles (``== Optimized Physical
    Plan ==``); ``changelog`` (``EXPLAIN CHANGELOG_MODE``) adds each node's row kinds to it as
    Flink does (``changelogMode=[I,UB,UA]``, :func:`~streamsql.plan.update_kinds.changelog_mode`).
    """
    lines: list[str] = []
    shared = shared_nodes(roots)
    reuse_ids: dict[int, int] = {}  # a node read more than once: printed once, then referenced

    def show(n: PlanNode, depth: int) -> None:
        indent = "  " * depth + ("+- " if depth else "")
        if id(n) in reuse_ids:
            lines.append(f"{indent}Reused(reference_id=[{reuse_ids[id(n)]}])")
            return
        mark = ""
        if id(n) in shared:
            reuse_ids[id(n)] = len(reuse_ids) + 1
            mark = f"(reuse_id=[{reuse_ids[id(n)]}])"
        text = flink_types(rename(n.describe(), n))
        if changelog and text.endswith(")"):
            text = f"{text[:-1]}, changelogMode=[{changelog_mode(n)}])"
        lines.append(indent + text + mark)
        for i in n.inputs:
            show(i, depth + 1)

    for r in roots:
        show(r, 0)
    guarantees = [f"{r.table.name}: {r.guarantee} ({r.guarantee_reason})"
                  for r in roots if isinstance(r, SinkNode)]
    text = "== Optimized Physical Plan ==\n" + "\n".join(lines)
    if guarantees:
        text += "\n\n== Delivery guarantees ==\n" + "\n".join(guarantees)
    return text
