"""Planning the row-wise built-in aggregates: FIRST_VALUE, LAST_VALUE, LISTAGG, ARRAY_AGG, JSON_*AGG, BITMAP.

Their functions are :mod:`streamsql.functions.ordered_aggregates` and
:mod:`streamsql.functions.collection_aggregates`. sqlglot parses ``FIRST_VALUE(x)``,
``LAST_VALUE(x)`` and ``JSON_ARRAYAGG(x [... ON NULL])`` into aggregate nodes already;
:func:`mark_listagg` turns ``LISTAGG(x [, separator])`` (an anonymous call) into a
:class:`~streamsql.plan.expressions.ListAggCall` and ``ARRAY_AGG(x)`` (with its ``IGNORE NULLS``
or ``RESPECT NULLS`` wrapper) into an :class:`~streamsql.plan.expressions.ArrayAggCall`, so the
GROUP BY and window planners treat them as any aggregate. :func:`ordered_agg_call` gives the
``AggSpec`` function (``*_retract`` over an updating input, as Flink picks its WithRetract
functions) and the argument expressions. Their accumulators are folded row by row in every
aggregate placement (GROUP BY, TUMBLE/HOP/CUMULATE/SESSION windows, OVER). FIRST_VALUE,
LAST_VALUE and JSON_ARRAYAGG are refused in HOP, CUMULATE and SESSION windows as Flink refuses
them there (:func:`reject_unmerged`).
"""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.scalars.json_functions import JSON_AGGREGATE
from streamsql.functions.scalars.operand_types import FILTER_CASE
from streamsql.plan.expressions import (
    ArrayAggCall,
    BitmapAggCall,
    CollectCall,
    ListAggCall,
    PercentileCall,
    certain_type,
    integer_literal,
)
from streamsql.plan.nodes import INSERT_ONLY

ORDERED_CALLS = (exp.FirstValue, exp.LastValue, ListAggCall, ArrayAggCall, exp.JSONArrayAgg,
                 exp.JSONObjectAgg, PercentileCall, exp.Lag, BitmapAggCall, CollectCall)
_NAMES = {exp.FirstValue: "FIRST_VALUE", exp.LastValue: "LAST_VALUE", ListAggCall: "LISTAGG",
          ArrayAggCall: "ARRAY_AGG", exp.JSONArrayAgg: "JSON_ARRAYAGG", exp.JSONObjectAgg: "JSON_OBJECTAGG",
          PercentileCall: "PERCENTILE", exp.Lag: "LAG", CollectCall: "COLLECT"}
_ANONYMOUS = {"LISTAGG": ListAggCall, "PERCENTILE": PercentileCall, "COLLECT": CollectCall,
              **{f"BITMAP_{op}{card}_AGG": BitmapAggCall for op in ("BUILD", "AND", "OR", "XOR")
                 for card in ("", "_CARDINALITY")}}


def mark_listagg(q: exp.Expression) -> exp.Expression:
    """``q`` with its LISTAGG calls as :class:`ListAggCall`, its ARRAY_AGG calls as :class:`ArrayAggCall`."""

    def mark(n: exp.Expression) -> exp.Expression:
        if type(n) is exp.Anonymous and n.name.upper() in _ANONYMOUS:
            call = _ANONYMOUS[n.name.upper()](this=n.name.upper() if n.name.upper().startswith("BITMAP_")
                                              else n.this, expressions=n.expressions)
        elif type(n) is exp.BitmapOrAgg:  # sqlglot's node of BITMAP_OR_AGG
            call = BitmapAggCall(this="BITMAP_OR_AGG", expressions=[n.this])
        elif type(n) is exp.Anonymous and n.name.upper() == "ARRAY_AGG":  # several arguments: refused
            call = ArrayAggCall(this="ARRAY_AGG", expressions=n.expressions)
        elif isinstance(n, (exp.IgnoreNulls, exp.RespectNulls)) and isinstance(n.this, exp.ArrayAgg):
            call = ArrayAggCall(this="ARRAY_AGG", expressions=[n.this.this],
                                ignore_nulls=isinstance(n, exp.IgnoreNulls))
            n = n.this
        elif type(n) is exp.ArrayAgg:
            call = ArrayAggCall(this="ARRAY_AGG", expressions=[n.this])
        else:
            return n
        call.meta.update(n.meta)  # keep the source position for errors
        return call

    return q.transform(mark)


def ordered_agg_call(planner, call: exp.Expression, mode: str) -> tuple[str, list[exp.Expression]]:
    """``(AggSpec function, argument expressions)`` of a row-wise built-in aggregate call (``ORDERED_CALLS``).

    Raises:
        SqlError: FIRST_VALUE or LAST_VALUE with DISTINCT; JSON_ARRAYAGG in an OVER window;
            LISTAGG with other than one or two arguments or a separator that is not a string literal;
            PERCENTILE's errors (:func:`_percentile`) (positioned at the call).
    """
    if isinstance(call, BitmapAggCall):
        return _bitmap_agg(planner, call, mode)
    name = _NAMES[type(call)]
    if isinstance(call, ArrayAggCall):
        arg = call.expressions[0]
        if len(arg.expressions if isinstance(arg, exp.Distinct) else call.expressions) > 1:  # Calcite's words
            planner._fail(call, "Invalid number of arguments to function 'ARRAY_AGG'. Was expecting 1 "
                                "arguments")
        return _array_agg(call)
    if isinstance(call, PercentileCall):
        return _percentile(planner, call)
    if isinstance(call, CollectCall):
        if isinstance(call.parent, exp.Window):
            planner._fail(call, "COLLECT in an OVER window is not supported yet (COLLECT runs in a GROUP BY)")
        args = list(call.expressions)
        distinct = len(args) == 1 and isinstance(args[0], exp.Distinct)
        values = list(args[0].expressions) if distinct else args
        if len(values) != 1:  # Calcite's words
            planner._fail(call, "Invalid number of arguments to function 'COLLECT'. Was expecting 1 "
                                "arguments")
        return "collect" + ("_distinct" if distinct else ""), values
    if isinstance(call, exp.Lag):
        return _lag(planner, call)
    if isinstance(call, (exp.JSONArrayAgg, exp.JSONObjectAgg)):
        if isinstance(call.parent, exp.Window):  # Flink's parser: "Incorrect syntax near ... 'OVER'"
            planner._fail(call, f"{name} cannot be used in an OVER window (as in Flink); aggregate "
                                "it in a GROUP BY or a TUMBLE window")
        null_on_null = call.args.get("null_handling") == "NULL ON NULL"
        if isinstance(call, exp.JSONObjectAgg):
            return _json_objectagg(planner, call)
        return "json_arrayagg" + ("_null_on_null" if null_on_null else ""), [_json_value(call.this, name)]
    args = list(call.expressions) if isinstance(call, ListAggCall) else [call.this]
    if not isinstance(call, ListAggCall):
        if any(isinstance(a, exp.Distinct) for a in args):
            planner._fail(call, f"{name}(DISTINCT ...) is not supported yet")
        return name.lower() + ("" if mode == INSERT_ONLY else "_retract"), args
    distinct = bool(args) and isinstance(args[0], exp.Distinct)
    if distinct:  # sqlglot: LISTAGG(DISTINCT x, sep) is one DISTINCT node of both arguments
        args = list(args[0].expressions) + args[1:]
    if len(args) not in (1, 2):
        planner._fail(call, f"LISTAGG takes one or two arguments (value [, separator]), got {len(args)}")
    if len(args) == 1:
        args.append(exp.Literal.string(","))  # Flink's default separator
    elif not (isinstance(args[1], exp.Literal) and args[1].is_string):
        planner._fail(args[1], "The separator of LISTAGG must be a string literal")
    return "listagg" + ("_distinct" if distinct else ""), args


def _bitmap_agg(planner, call: BitmapAggCall, mode: str) -> tuple[str, list[exp.Expression]]:
    """A BITMAP aggregate's function (``bitmap_<op>[_cardinality]_agg[_distinct][_retract]``) and argument.

    ``DISTINCT`` changes no answer of BUILD, AND and OR (a set is the same without repeats, and
    their retracting forms count per value): it is dropped; XOR's is a distinct view
    (``_distinct``). Over an updating input the ``_retract`` function, as Flink picks its
    WithRetract ones.

    Raises:
        SqlError: other than one argument (Calcite's words).
    """
    name = call.name.upper()
    args = list(call.expressions)
    distinct = len(args) == 1 and isinstance(args[0], exp.Distinct)
    if distinct:
        args = list(args[0].expressions)
    if len(args) != 1:
        planner._fail(call, f"Invalid number of arguments to function '{name}'. Was expecting 1 arguments")
    view = "_distinct" if distinct and name.startswith("BITMAP_XOR") else ""
    return name.lower() + view + ("" if mode == INSERT_ONLY else "_retract"), args


def _json_objectagg(planner, call: exp.JSONObjectAgg) -> tuple[str, list[exp.Expression]]:
    """JSON_OBJECTAGG's function (``json_objectagg[_absent_on_null]``) and arguments: key, value's JSON text.

    The value goes in as its JSON text (:func:`_json_value`).

    Raises:
        SqlError: other than one KEY ... VALUE pair; FILTER or DISTINCT (Flink's parser refuses both).
    """
    pairs = call.expressions
    if len(pairs) != 1 or not isinstance(pairs[0], exp.JSONKeyValue):
        planner._fail(call, "JSON_OBJECTAGG takes one KEY k VALUE v pair")
    if isinstance(call.parent, exp.Filter):
        planner._fail(call.parent, "Incorrect syntax near the keyword 'FILTER': JSON_OBJECTAGG takes no "
                                   "FILTER clause (as in Flink); filter the rows in a subquery")
    key, value = pairs[0].this, pairs[0].expression
    absent = call.args.get("null_handling") == "ABSENT ON NULL"
    function = "json_objectagg" + ("_absent_on_null" if absent else "")
    return function, [key, _json_value(value, "JSON_OBJECTAGG")]


def _json_value(value: exp.Expression, aggregate: str) -> exp.Expression:
    """``JSON_STRING(value)``: the JSON text ``aggregate`` (JSON_ARRAYAGG, JSON_OBJECTAGG) collects.

    As Flink's planner wraps the value (WrapJsonAggFunctionArgumentsRule): written as JSON_OBJECT
    and JSON_ARRAY write it (:mod:`streamsql.functions.scalars.json_values`), a nested JSON call
    inserted as JSON, NULL for NULL. A type not written yet is refused naming ``aggregate``, at
    the value.
    """
    text = exp.Anonymous(this="JSON_STRING", expressions=[value])
    text.meta.update(value.meta)
    tokens = (value, *value.find_all(exp.Identifier), *value.walk())
    positioned = next((n for n in tokens if "line" in n.meta), None)
    if positioned is not None:  # the value's first token: where its refusal points
        text.meta.update({k: positioned.meta[k] for k in _POSITION if k in positioned.meta})
    text.meta[JSON_AGGREGATE] = aggregate
    return text


_POSITION = ("line", "col", "start", "end")


def _lag(planner, call: exp.Lag) -> tuple[str, list[exp.Expression]]:
    """``LAG(x [, offset [, default]])``: the arguments ``[x, offset, default]`` (offset 1, default NULL).

    Raises:
        SqlError: an offset that is not a non-negative integer literal (positioned; Flink 2.3 also
            runs a column as the offset, and answers NULL for every row of its compat case).
    """
    offset = call.args.get("offset")
    if offset is None:
        offset = exp.Literal.number(1)
    elif isinstance(offset, exp.Neg) and isinstance(offset.this, exp.Literal) and offset.this.is_int:
        planner._fail(offset, f"Offset(-{offset.this.this}) should be positive.")  # Flink's words
    else:  # 0 is allowed, as Flink's LagAggFunction: the row's own value
        integer_literal(planner, offset, "The offset of LAG must be a non-negative integer literal")
    default = call.args.get("default")
    if isinstance(default, exp.Null):  # Calcite's validator: an untyped NULL (CAST(NULL AS t) is taken)
        planner._fail(default, "Illegal use of 'NULL'")
    return "lag", [call.this, offset, default or exp.Null()]


def check_lag_default(planner, call: exp.Lag, value: SqlType, default: SqlType) -> None:
    """Refuse a LAG default of another type than the value's, as Flink's LagAggFunction does.

    Flink compares the type roots (``LAG(int_col, 1, 1.5)``, ``LAG(int_col, 1, CAST(0 AS BIGINT))``,
    ``LAG(double_col, 1, 0)`` and ``LAG(int_col, 1, 'x')`` fail: "Please explicitly cast default
    value ..."); a DECIMAL or TIMESTAMP of another precision, and a CHAR literal for a STRING, are
    taken (checked on PyFlink 2.3). Without the check the default was cast to the value's Arrow
    type at run time: a job failure ("Internal error") or a silently converted value.

    Raises:
        SqlError: at the default.
    """
    given = call.args.get("default")
    if given is None or default.name == value.name:
        return
    planner._fail(given, f"Please explicitly cast default value {default} to {value}, the type of "
                         f"LAG's first argument (e.g. CAST({given.sql()} AS {value}))")


def _array_agg(call: ArrayAggCall) -> tuple[str, list[exp.Expression]]:
    """ARRAY_AGG's function (``array_agg[_distinct][_ignore_nulls|_filtered]``) and arguments.

    The arguments: the value, and a FILTER's condition (``_filtered``).
    """
    arg = call.expressions[0]
    func = "array_agg"
    if isinstance(arg, exp.Distinct):
        func, arg = func + "_distinct", arg.expressions[0]
    if call.args.get("filter") is not None:
        return func + "_filtered", [arg, call.args["filter"]]
    return func + ("_ignore_nulls" if call.args.get("ignore_nulls") else ""), [arg]


_NO_MERGE = (exp.FirstValue, exp.LastValue, exp.JSONArrayAgg)


def _percentile(planner, call: PercentileCall) -> tuple[str, list[exp.Expression]]:
    """PERCENTILE's function (``percentile[_array][_frequency]``) and arguments.

    Raises:
        SqlError: other than two or three arguments; a percentage that is not a numeric literal in
            [0, 1] or an ARRAY of them (Flink fails the job on one outside [0, 1]).
    """
    args = list(call.expressions)
    if len(args) not in (2, 3):
        planner._fail(call, f"PERCENTILE takes two or three arguments (value, percentage [, frequency]), "
                            f"got {len(args)}")
    many = isinstance(args[1], exp.Array)
    for p in args[1].expressions if many else [args[1]]:
        value = _number(p)
        if value is None or not 0 <= value <= 1:
            planner._fail(p, "The percentage of PERCENTILE must be a numeric literal between 0.0 and 1.0 "
                             "(or an ARRAY of them)")
    return "percentile" + ("_array" if many else "") + ("_frequency" if len(args) == 3 else ""), args


def _number(e: exp.Expression) -> float | None:
    """The value of a numeric literal (``-`` literal too), else None."""
    if isinstance(e, exp.Neg):
        inner = _number(e.this)
        return None if inner is None else -inner
    if isinstance(e, exp.Literal) and not e.is_string:
        return float(e.this)
    return None


def reject_unmerged(planner, calls, where: str) -> None:
    """Refuse the row-wise aggregates among ``calls`` that a ``where`` (HOP, CUMULATE, SESSION) cannot merge.

    Flink combines the slices of a HOP or CUMULATE window, and merges sessions, with the aggregate
    function's ``merge``: FIRST_VALUE, LAST_VALUE and JSON_ARRAYAGG have none there ("Could not
    find an implementation method 'merge'"); a Python aggregate needs one to merge sessions.
    ARRAY_AGG(DISTINCT ...) and LISTAGG(DISTINCT ...) are refused in every window
    (:func:`reject_window_distinct`).

    Raises:
        SqlError: at the first one.
    """
    for c in calls:
        if isinstance(c, _NO_MERGE):
            planner._fail(c, f"{_NAMES[type(c)]} cannot be used in {where}: it has no merge of the "
                             "window's parts (as in Flink); use a TUMBLE window or a GROUP BY")


def reject_window_distinct(planner, calls, where: str) -> None:
    """Refuse LISTAGG(DISTINCT ...), ARRAY_AGG(DISTINCT ...) and COLLECT among a window aggregate's ``calls``.

    Flink 2.3 splits a window aggregate into a local and a global phase: the global phase merges
    each local accumulator's distinct map into the window's, handing its new values to the
    function in the map's hash order (and the local phase's bundles end when Flink's timers say),
    so the order is neither the arrival order nor reproducible (compat cases
    ``array_agg_distinct_tumble``, ``listagg_distinct_tumble``, ``listagg_distinct_cumulate``,
    ``listagg_distinct_session*``). A GROUP BY and an OVER window keep the arrival order, as here.

    From Flink 2.3's source (checked for query fuzz seeds 400018 / 400236): the generated merge
    (``DistinctAggCodeGen.merge``) iterates the other accumulator's distinct ``MapView``
    (``entries()``: a heap ``HashMap`` in the local phase) and accumulates each value the window's
    map lacks, so within one bundle the order is the hash map's; but a bundle of the local phase
    (``LocalSlicingWindowAggOperator``) ends when the watermark passes the next window end
    (``processWatermark``), when its buffer is full, and before each checkpoint barrier
    (``prepareSnapshotPreBarrier``), and watermarks are emitted every
    ``pipeline.auto-watermark-interval`` of processing time: how a window's rows are cut into
    bundles, and so the order of the values, depends on timing. Seed 400018's TUMBLE lists one
    window's five values as ``a,e,d,c,b``, the next's as ``e,a,d,c,b`` and ``d,a,e,c,b``: no one
    hash order. Emulating it is not possible; the call stays refused.

    Raises:
        SqlError: at the first one.
    """
    for c in calls:
        if isinstance(c, CollectCall):  # its values' order within a hash bucket: the parts' merge order
            planner._fail(c, f"COLLECT in {where} is not supported yet: Flink merges the window's parts "
                             "into its hash map in an order not reproduced here (COLLECT runs in a GROUP BY)")
        if isinstance(c, (ListAggCall, ArrayAggCall)) and c.expressions and isinstance(c.expressions[0],
                                                                                       exp.Distinct):
            name = _NAMES[type(c)]
            planner._fail(c, f"{name}(DISTINCT ...) in {where} is not supported yet: Flink orders its "
                             "values by the hash order of its distinct map there, not by arrival "
                             f"({name}(DISTINCT ...) runs in a GROUP BY and an OVER window)")


def char_listaggs(calls: list[exp.Expression], specs: list, scope) -> list:
    """``specs``, each LISTAGG of a ``CHAR(n) NOT NULL`` value under a FILTER as ``listagg[_distinct]_char``.

    Flink types such a call CHAR(n) NOT NULL and answers '' where no row passes its FILTER
    (:class:`~streamsql.functions.ordered_aggregates.ListAggChar`). ``calls``: the aggregate's calls,
    their FILTER inlined (a CASE marked ``FILTER_CASE``); ``specs``: their ``AggSpec``s, in order.
    """
    out = []
    for call, spec in zip(calls, specs):
        value = _filtered_value(call) if spec.func in ("listagg", "listagg_distinct") else None
        t = None if value is None else certain_type(value, scope)
        char = t is not None and t.padded and not t.nullable  # CHAR(n) NOT NULL
        out.append(dataclasses.replace(spec, func=spec.func + "_char") if char else spec)
    return out


def _filtered_value(call: exp.Expression) -> exp.Expression | None:
    """The value under a LISTAGG call's inlined FILTER (``CASE WHEN c THEN x END``), else None."""
    args = list(call.expressions) if isinstance(call, ListAggCall) else []
    first = args[0] if args else None
    if isinstance(first, exp.Distinct):
        first = first.expressions[0] if first.expressions else None
    if not (isinstance(first, exp.Case) and first.meta.get(FILTER_CASE)):
        return None
    return first.args["ifs"][0].args.get("true")
