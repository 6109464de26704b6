"""Top-N, deduplication, window Top-N and window deduplication, as Flink's ranking queries.

Flink recognises a ranking by its shape, and so does this module (the ``FROM`` hook of
:meth:`~streamsql.plan.planner.Planner._select`)::

    SELECT ... FROM (
      SELECT ..., ROW_NUMBER() OVER (PARTITION BY p... ORDER BY o... [ASC|DESC] [NULLS ...]) AS rn
      FROM input ...) [alias]
    WHERE rn <= N | rn < N | rn = N | rn BETWEEN a AND b [AND other conditions]

The conditions on ``rn`` give the rank range ``[rank_start, rank_end]`` (several are
intersected; the others stay a filter after the ranking). What it becomes, as Flink 2.3 plans it:

- **deduplication**: ``rn = 1`` ordered by the rowtime attribute of an insert-only input.
  ``ASC`` keeps the row with the smallest rowtime per key and emits it once the watermark passes
  that rowtime (insert-only; later and late rows of the key are dropped); ``DESC`` keeps the last
  row (a row replaces the kept one when its rowtime is not smaller: ``-U``/``+U``);
- **processing-time deduplication and Top-N**: ordered by a ``PROCTIME()`` column, whose value is
  the same for every row of a batch, rows rank by arrival: ``ASC`` keeps the first, ``DESC`` the
  last (a new row wins its ties), as Flink's proctime ``Deduplicate``/``Rank`` (ours is an
  updating result where Flink's keep-first is insert-only);
- **Top-N** (Flink's ``Rank``): every other ordering, over an insert-only or an updating input,
  an updating result; rows tied on the order keys rank in arrival order;
- **window Top-N / window deduplication** (Flink's ``WindowRank`` / ``WindowDeduplicate``):
  ``PARTITION BY window_start, window_end, ...`` over a window TVF or a window aggregate: the
  ranked rows of a window are emitted once, insert-only, when the watermark passes its end. Over a
  window aggregate, as Flink 2.3's ``StreamPhysicalWindowRankRule`` /
  ``StreamPhysicalWindowDeduplicateRule``, the partition is the other PARTITION BY keys and
  ``window_end`` alone (Flink's windowed slice assigner knows a window by its end): SESSION windows
  of other keys that end at the same instant but start apart are ranked together (TUMBLE / HOP /
  CUMULATE windows are told apart by their end anyway). Over a SESSION TVF's rows themselves Flink
  tells such windows apart (``tests/runtime/session_windows_flink.json``: ``topn_rows``, ``dedup``).

``rn`` (BIGINT) may be selected or not (the no-ranking-number form emits only changes of the
ranked rows themselves, not of their positions). The inner query is planned with the ranking
call replaced by a BIGINT placeholder column that the operator fills, and with its PARTITION
BY and ORDER BY expressions as hidden columns ``__rank_p<i>`` / ``__rank_o<i>``.

``QUALIFY`` on a ranking call is rewritten into that form first (:func:`rewrite_qualify`).

Rejected at their position (with what to write instead): ``RANK()`` / ``DENSE_RANK()`` (Flink
2.3 rejects them on a streaming table too), a ranking function without an outer filter on its
result, a frame clause, a missing ORDER BY, conditions on ``rn`` other than the ones above, no
upper bound on ``rn``, a non-integer bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from sqlglot import exp

from streamsql.core.names import apart_all
from streamsql.plan.display_names import name_hidden
from streamsql.plan.expressions import integer_literal
from streamsql.plan.joins import conjunction, conjuncts
from streamsql.plan.nodes import (
    INSERT_ONLY,
    RETRACT,
    CalcNode,
    PlanNode,
    explain_attr,
)
from streamsql.plan.scope import GENERATED, Scope, ScopeColumn, generated_column, is_generated
from streamsql.plan.windows import (
    WindowAggNode,
    WindowTableFunctionNode,
    is_proctime,
    plain_column,
    time_attributes,
)

#: Ranking strategies (the operator that runs a :class:`RankNode`).
TOP_N = "top-n"
KEEP_FIRST_ROWTIME = "keep-first-rowtime"
WINDOW = "window"

_RANK_CALLS = (exp.RowNumber, exp.Rank, exp.DenseRank)
_HIDDEN = "__rank_"  #: hidden PARTITION BY / ORDER BY columns: __rank_p<i>, __rank_o<i>
_RN = "__rank_number"  #: the placeholder column of the rank number
_QUALIFY = "__rank_qualify"  #: the ranking call of a QUALIFY clause, as a column of the subquery


@dataclass(eq=False)
class RankNode(PlanNode):
    """A ranking over its input's columns; output = the input's columns, ``rn`` filled in.

    Attributes:
        strategy: :data:`TOP_N`, :data:`KEEP_FIRST_ROWTIME` or :data:`WINDOW`.
        partition: input column indexes of the PARTITION BY keys.
        order: input column indexes of the ORDER BY keys.
        descending / nulls_first: per order key.
        rank_start / rank_end: the rank range kept (1-based, inclusive).
        rn_index: the BIGINT column the rank number is written to.
        output_rank: whether ``rn`` is read downstream (else only ranked rows' changes are emitted).
        new_row_wins_ties: a new row ranks before the rows it ties with (deduplication keeping
            the last row) instead of after them.
        window_end: WINDOW: the input column of the window's end.
        window_zone: WINDOW: the zone that window's bounds are local to (``WindowSpec.zone``).
        labels: ``(partition, order)`` as written, for EXPLAIN.
        limit: a query's LIMIT / OFFSET (:mod:`streamsql.plan.limit`): no PARTITION BY, no ORDER
            BY, insert-only, EXPLAINed as Flink's ``Limit``.
        per_row: TOP_N: emit each row's change as it happens (Flink's row-at-a-time ranking), not
            one diff per batch: set on a temporal join's versioned side
            (:func:`~streamsql.plan.temporal.versioned_side`), which keeps every version, so a row
            that led its partition only within a batch is a version too.
        equal_on: TOP_N over an updating input: the input columns a retraction is matched on (None:
            all). Flink prunes the ranking's input to the columns read above it and its keys
            (``RetractableTopNFunction``'s equaliser compares those), so a retraction removes the
            first row equal to it on them, which may be another row than the one inserted.
    """

    strategy: str = TOP_N
    partition: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    descending: list[bool] = field(default_factory=list)
    nulls_first: list[bool] = field(default_factory=list)
    rank_start: int = 1
    rank_end: int = 1
    rn_index: int = 0
    output_rank: bool = True
    new_row_wins_ties: bool = False
    window_end: int | None = None
    window_zone: str | None = None
    labels: tuple[str, str] = ("", "")
    limit: bool = False
    per_row: bool = False
    equal_on: list[int] | None = None

    kind: ClassVar[str] = "rank"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN (Flink's spelling)."""
        part, order = self.labels
        if self.limit:  # Flink's Limit / SortLimit
            sort = f"orderBy=[{order}], " if self.order else ""
            return (f"{'SortLimit' if self.order else 'Limit'}({sort}offset=[{self.rank_start - 1}], "
                    f"fetch=[{self.rank_end - self.rank_start + 1}], changelog=[{self.changelog}])")
        dedup = self.strategy == KEEP_FIRST_ROWTIME or self.new_row_wins_ties or self._window_first_row()
        keep = "LastRow" if self.new_row_wins_ties else "FirstRow"
        if self.strategy == WINDOW:
            name = "WindowDeduplicate" if dedup else "WindowRank"
        else:
            name = "Deduplicate" if dedup else "Rank"
        body = (f"keep=[{keep}], key=[{part}], order=[{order}]" if dedup else
                f"rankType=[ROW_NUMBER], rankRange=[rankStart={self.rank_start}, rankEnd={self.rank_end}], "
                f"partitionBy=[{part}], orderBy=[{order}]")
        no_rn = explain_attr("select", None if self.output_rank else "without rank number")
        return f"{name}({body}{no_rn}, changelog=[{self.changelog}])"

    def _window_first_row(self) -> bool:
        """A window ranking of ``rn = 1`` by the rowtime ascending: Flink's ``WindowDeduplicate`` (FirstRow).

        The window ranking gives its answer (ties in arrival order keep the first row, as Flink's
        ``RowTimeDeduplicateRecordsCombiner``); only EXPLAIN names it so.
        """
        if self.strategy != WINDOW or not self.rank_start == self.rank_end == 1 or len(self.order) != 1:
            return False
        inner = self.inputs[0]
        return not self.descending[0] and inner.schema.names[self.order[0]] in time_attributes(inner)

    def time_attributes(self) -> set[str]:
        """An insert-only ranking keeps its input's time attributes (``time_attributes``' hook)."""
        return time_attributes(self.inputs[0]) if self.mode == INSERT_ONLY else set()


def rewrite_qualify(sel: exp.Select) -> exp.Select:
    """``SELECT ... FROM t QUALIFY <condition on a ranking call>`` as the subquery form (the SELECT hook).

    ``QUALIFY ROW_NUMBER() OVER (...) <= N`` becomes ``SELECT * FROM (SELECT ..., ROW_NUMBER()
    OVER (...) AS __rank_qualify FROM t) WHERE __rank_qualify <= N`` (the rank number stays
    hidden), and ``QUALIFY rn <= N`` over a selected ``ROW_NUMBER() ... AS rn`` becomes ``SELECT *
    FROM (SELECT ...) WHERE rn <= N``, as Flink plans both. Any other QUALIFY is returned as it is
    (and rejected at its keyword by the planner).
    """
    qualify = sel.args.get("qualify")
    if qualify is None:
        return sel
    cond = qualify.this.copy()
    inner = sel.copy()
    inner.set("qualify", None)
    calls = [w for w in cond.find_all(exp.Window) if isinstance(w.this, _RANK_CALLS)]
    if calls:
        # marked as the planner's: a user's column named __rank_qualify stays the user's
        number = exp.alias_(calls[0].copy(), _QUALIFY, quoted=True)
        number.args["alias"].meta[GENERATED] = True
        inner.set("expressions", inner.expressions + [number])
        calls[0].replace(generated_column(_QUALIFY))
    else:
        aliases = {i.alias.lower() for i in sel.expressions if isinstance(i, exp.Alias)
                   and isinstance(i.this, exp.Window) and isinstance(i.this.this, _RANK_CALLS)}
        if not any(c.name.lower() in aliases for c in cond.find_all(exp.Column)):
            return sel
    outer = exp.Select(expressions=[exp.Star()]).from_(exp.Subquery(this=inner))
    outer.set("where", exp.Where(this=cond))
    return outer


def plan_ranking(planner, sel: exp.Select, where: exp.Expression | None
                 ) -> tuple[PlanNode, Scope, exp.Expression | None] | None:
    """Plan ``FROM (SELECT ..., ROW_NUMBER() OVER (...) AS rn ...) WHERE rn ...`` (the FROM hook).

    Returns ``(rank node, its scope, the outer WHERE left after the conditions on rn)``, or None
    when the FROM item holds no ranking call.

    Raises:
        SqlError: for a form that is not supported (module docstring), at its position.
    """
    src = sel.args["from_"].this
    if not isinstance(src, exp.Subquery) or not isinstance(src.this, exp.Select):
        return None
    inner = src.this
    found = [(i, item) for i, item in enumerate(inner.expressions)
             if isinstance(item, exp.Alias) and isinstance(item.this, exp.Window)
             and isinstance(item.this.this, _RANK_CALLS)]
    if not found:
        return None
    if len(found) > 1:
        planner._fail(found[1][1].this, "Only one ranking function (ROW_NUMBER() OVER ...) per query is "
                                        "supported")
    index, item = found[0]
    over: exp.Window = item.this
    call = over.this
    if not isinstance(call, exp.RowNumber):
        name = call.meta.get("flink_name", call.key.upper())
        planner._fail(call, f"{name}() on streaming table is not supported currently; "
                            f"use ROW_NUMBER() OVER (...) for Top-N and deduplication")
    if over.args.get("spec") is not None:
        planner._fail(over, "A frame clause (ROWS/RANGE BETWEEN ...) is not allowed with ROW_NUMBER()")
    ordered = list(over.args["order"].expressions) if over.args.get("order") is not None else []
    if not ordered:
        planner._fail(call, "ROW_NUMBER() OVER (...) needs an ORDER BY for Top-N or deduplication")
    partition = list(over.args.get("partition_by") or [])
    rn_name = item.alias
    qualifier = src.alias_or_name if src.alias else None

    # The inner query, with the ranking call as a BIGINT placeholder and its keys as hidden columns.
    # Planned before the outer WHERE's bounds are read: as Flink validates the whole query first,
    # an unknown column inside (Nexmark q6's ``WHERE rownum <= 1`` beside the ``AS rownum``) is
    # "Column 'rownum' not found", not a missing bound.
    own = [_RN, *(f"{_HIDDEN}p{i}" for i in range(len(partition))),
           *(f"{_HIDDEN}o{i}" for i in range(len(ordered)))]
    node, scope = _plan_body(planner, inner, index, own, partition, ordered)
    rank_start, rank_end, rest = _rank_range(planner, where, rn_name, qualifier, call,
                                             is_generated(item.args["alias"]))
    names = node.schema.names
    pcols = [names.index(n) for n in own[1: 1 + len(partition)]]
    ocols = [names.index(n) for n in own[1 + len(partition):]]
    rn_index = names.index(own[0])
    hidden_rn = is_generated(item.args["alias"])  # QUALIFY's rank number is not a column of the result
    visible = [ScopeColumn(c.qualifier, rn_name if c.internal == own[0] else c.name, c.internal, c.type)
               for c in scope.columns
               if c.internal not in own or (c.internal == own[0] and not hidden_rn)]
    descending = [bool(o.args.get("desc")) for o in ordered]
    nulls_first = [bool(o.args.get("nulls_first")) for o in ordered]
    labels = (", ".join(p.sql() for p in partition),
              ", ".join(o.this.sql() + (" DESC" if d else " ASC") for o, d in zip(ordered, descending)))
    out_rank = not hidden_rn and _reads(sel, rest, rn_name)

    window_end = _window_end(node, pcols)
    if window_end is not None and _origin(node, names[window_end])[0] == "agg":
        # Flink keys a ranking of a window aggregate by window_end alone (module docstring)
        pcols = [c for c in pcols if c != _window_start(node, pcols)]
    rowtime_order = len(ocols) == 1 and names[ocols[0]] in time_attributes(node)
    dedup = rank_start == rank_end == 1 and rowtime_order and node.mode == INSERT_ONLY
    # Rows of one batch share their PROCTIME(): arrival order decides, so DESC means newest first.
    by_arrival = len(ocols) == 1 and is_proctime(node, names[ocols[0]])
    window_zone = None
    if window_end is not None:
        if node.mode != INSERT_ONLY:
            planner._fail(over, "Window Top-N over an updating input is not supported")
        window = _source(node, names[window_end])[0]
        spec = window.spec
        if spec.proctime:  # Flink 2.3's StreamExecWindowRank / StreamExecWindowDeduplicate, word for word
            by_time = len(ocols) == 1 and _source(node, names[ocols[0]]) == (window, window.rowtime)
            what = "Deduplication" if rank_start == rank_end == 1 and (by_time or by_arrival) else "TopN"
            planner._fail(over, f"Processing time Window {what} is not supported yet.")
        strategy, mode = WINDOW, INSERT_ONLY
        window_zone = spec.zone
    elif dedup and not descending[0]:
        strategy, mode = KEEP_FIRST_ROWTIME, INSERT_ONLY
    else:
        strategy, mode = TOP_N, RETRACT
    rank = RankNode([node], node.schema, mode, strategy=strategy, partition=pcols, order=ocols,
                    descending=descending, nulls_first=nulls_first, rank_start=rank_start,
                    rank_end=rank_end, rn_index=rn_index, output_rank=out_rank,
                    new_row_wins_ties=(dedup or by_arrival) and descending[0], window_end=window_end,
                    window_zone=window_zone, labels=labels)
    if mode == RETRACT and node.mode != INSERT_ONLY:
        rank.equal_on = _read_columns(sel, rest, scope, names, [*pcols, *ocols])
    name_hidden(node, {own[0]: "w0$o0"}, rank)  # EXPLAIN's names, as Flink's Rank
    qual = src.alias_or_name.lower() if src.alias else None
    cols = [ScopeColumn(qual, c.name, c.internal, c.type) for c in visible]
    return rank, Scope(cols, planner.sql), rest


def _rank_range(planner, where: exp.Expression | None, rn: str, qualifier: str | None,
                call: exp.Expression, generated: bool = False) -> tuple[int, int, exp.Expression | None]:
    """``(rank_start, rank_end, the other conjuncts)`` from the outer WHERE's conditions on ``rn``.

    Raises:
        SqlError: no condition on rn (at the ranking call), a condition of another form, no upper
            bound, a bound that is not an integer literal or an empty range (at the condition).
    """
    parts = conjuncts(where)
    low, high, rest = 1, None, []
    for c in parts:
        refs = [col for col in c.find_all(exp.Column) if _is_rn(col, rn, qualifier, generated)]
        if not refs:
            rest.append(c)
            continue
        lo, hi = _bounds(planner, c, rn, qualifier, generated)
        low = max(low, lo)
        high = hi if high is None or (hi is not None and hi < high) else high
        if hi is None and lo == 1:
            planner._fail(c, _FORMS)
    if high is None:
        target = parts[0] if parts and len(rest) < len(parts) else call
        planner._fail(target, f"ROW_NUMBER() needs an upper bound on '{rn}' in the outer query's WHERE: "
                              f"{_FORMS}")
    if high < low:
        planner._fail(where, f"The conditions on '{rn}' select no rank (from {low} to {high})")
    return low, high, conjunction(rest)


_FORMS = f"filter the ranking number with {', '.join(('rn <= N', 'rn < N', 'rn = N', 'rn BETWEEN a AND b'))}"


def _bounds(planner, cond: exp.Expression, rn: str, qualifier: str | None,
            generated: bool = False) -> tuple[int, int | None]:
    """The ``[low, high]`` range one condition on rn allows (high None: unbounded)."""
    if isinstance(cond, exp.Paren):
        return _bounds(planner, cond.this, rn, qualifier, generated)
    if isinstance(cond, exp.Between) and _is_rn(cond.this, rn, qualifier, generated):
        return _int(planner, cond.args["low"]), _int(planner, cond.args["high"])
    ops = {exp.EQ: "=", exp.LTE: "<=", exp.LT: "<", exp.GTE: ">=", exp.GT: ">"}
    flipped = {"=": "=", "<=": ">=", "<": ">", ">=": "<=", ">": "<"}
    op = ops.get(type(cond))
    if op is not None:
        left, right = cond.this, cond.expression
        if _is_rn(right, rn, qualifier, generated) and not _is_rn(left, rn, qualifier, generated):
            left, right, op = right, left, flipped[op]
        if _is_rn(left, rn, qualifier, generated):
            n = _int(planner, right)
            return {"=": (n, n), "<=": (1, n), "<": (1, n - 1), ">=": (n, None), ">": (n + 1, None)}[op]
    planner._fail(cond, _FORMS[0].upper() + _FORMS[1:] + " (combined with AND)")


def _int(planner, node: exp.Expression) -> int:
    return integer_literal(planner, node, f"A bound on the ranking number must be an integer literal; got "
                                          f"{node.sql()}")


def _is_rn(node: exp.Expression, rn: str, qualifier: str | None, generated: bool = False) -> bool:
    """Whether ``node`` reads the rank number ``rn`` (QUALIFY's, ``generated``, only by its mark)."""
    return isinstance(node, exp.Column) and node.name.lower() == rn.lower() and \
        is_generated(node) == generated and \
        (not node.table or (qualifier is not None and node.table.lower() == qualifier.lower()))


def _plan_body(planner, inner: exp.Select, index: int, own: list[str], partition: list[exp.Expression],
               ordered: list[exp.Ordered]) -> tuple[PlanNode, Scope]:
    """The ranking's inner query, planned with its ranking call and keys as columns named ``own``.

    The ranking call (SELECT item ``index``) becomes a BIGINT placeholder named ``own[0]``, and
    the PARTITION BY and ORDER BY expressions columns added at the end, named ``own[1:]``.

    Flink allows any column name, ``__rank_number`` too: when a column of the query's own is
    called as one of ``own`` (``__rank_*``, the planner's prefix), the query is planned again with
    ``own`` named apart from all its columns (``own`` is renamed in place).
    """
    renames = len(planner.case_renames)
    keys = [*partition, *(o.this for o in ordered)]
    for attempt in range(2):
        body = inner.copy()
        body.expressions[index] = exp.alias_(exp.cast(exp.Literal.number(0), "BIGINT"), own[0], quoted=True)
        body.set("expressions", body.expressions + [exp.alias_(e.copy(), n, quoted=True)
                                                    for n, e in zip(own[1:], keys)])
        node, scope = planner._query(body)
        names = node.schema.names
        if attempt or sum(n.lower().startswith(_HIDDEN) for n in names) == len(own):
            break
        del planner.case_renames[renames:]  # noted again by the second planning
        own[:] = apart_all(own, names)
    return node, scope


def _reads(sel: exp.Select, rest: exp.Expression | None, rn: str) -> bool:
    """Whether the outer query reads ``rn`` (in its SELECT list, a star, or its other clauses)."""
    parts = list(sel.expressions) + [rest] + [sel.args.get(k) for k in ("group", "having")]
    for p in parts:
        if p is None:
            continue
        if isinstance(p, exp.Star) or p.find(exp.Star) is not None:
            return True
        if any(c.name.lower() == rn.lower() for c in p.find_all(exp.Column)):
            return True
    return False


def _read_columns(sel: exp.Select, rest: exp.Expression | None, scope: Scope, names: list[str],
                  keys: list[int]) -> list[int] | None:
    """The input columns of the ranking that the outer query reads, with ``keys``; None: every one.

    As Flink's planner prunes a Rank's input (the columns read above it, its PARTITION BY and ORDER
    BY keys): a star reads every column. ``names``: the input's (internal) column names.
    """
    parts = [p for p in [*sel.expressions, rest, *(sel.args.get(k) for k in ("group", "having"))]
             if p is not None]
    if any(isinstance(p, exp.Star) or p.find(exp.Star) is not None for p in parts):
        return None
    read = {c.name.lower() for p in parts for c in p.find_all(exp.Column)}
    used = {names.index(c.internal) for c in scope.columns if c.name.lower() in read and c.internal in names}
    return sorted(used | set(keys))


def _window_bounds(node: PlanNode, pcols: list[int]) -> dict[str, int]:
    """The input columns of window_start / window_end (``"start"``, ``"end"``) among ``pcols``."""
    kinds = {}
    for i in pcols:
        origin = _origin(node, node.schema.names[i])
        if origin in (("tvf", "window_start"), ("agg", "__ws")):
            kinds["start"] = i
        elif origin in (("tvf", "window_end"), ("agg", "__we")):
            kinds["end"] = i
    return kinds


def _window_end(node: PlanNode, pcols: list[int]) -> int | None:
    """The input column of window_end when the PARTITION BY holds both window_start and window_end."""
    kinds = _window_bounds(node, pcols)
    return kinds["end"] if len(kinds) == 2 else None


def _window_start(node: PlanNode, pcols: list[int]) -> int:
    """The input column of window_start when the PARTITION BY holds both window bounds."""
    return _window_bounds(node, pcols)["start"]


def _source(node: PlanNode, col: str) -> tuple[PlanNode, str] | None:
    """The node (not a Calc) and column that column ``col`` of ``node`` passes on unchanged."""
    while isinstance(node, CalcNode):
        expr = dict(node.query.items).get(col)
        src = plain_column(expr, node.query)
        if src is None:
            return None
        node, col = node.inputs[0], src
    return node, col


def _origin(node: PlanNode, col: str) -> tuple[str, str] | None:
    """Where column ``col`` of ``node`` comes from through projections: a window TVF or aggregate column."""
    node, col = _source(node, col) or (None, col)
    if isinstance(node, WindowTableFunctionNode):
        return "tvf", col
    if isinstance(node, WindowAggNode):
        return "agg", col
    return None
