"""Bind an expression's calls to the registry and compile it to one DuckDB expression.

The binder walks a resolved sqlglot expression (its columns already replaced by the input's
columns, each carrying its SQL type in ``meta["sql_type"]``) children first, infers each node's
Flink type, and:

- a function call (any ``exp.Func`` that is not an operator or an aggregate) is looked up in
  :data:`~streamsql.functions.scalars.registry.REGISTRY` by its name as written; an unknown
  name or arguments no signature accepts raise :class:`FunctionError` in Flink's words
  (``No match found for function signature F(<NUMERIC>, <CHARACTER>)``); otherwise the entry's
  ``compile`` gives its DuckDB expression (the entry's fast path where the call's literal
  arguments allow it), cast to Flink's result type;
- an operator (+ - * / %, comparisons, AND/OR/NOT, CASE, CAST, IS [NOT] NULL/DISTINCT FROM,
  LIKE, BETWEEN, IN, ||) stays as it is, except where Flink's arithmetic differs from DuckDB's
  (see :mod:`.operators`: integer division, exact DECIMAL division, DECIMAL result types,
  CAST to an integer truncating);
- ``x IS NULL`` of an ``x`` whose Flink type is certainly NOT NULL (:func:`.typeof.never_null`: a
  COUNT, a NOT NULL column, literals and strict operators and functions of them) is FALSE, as
  Calcite's simplifier folds it before Flink plans (so ``COUNT(k) + 1 IS NULL`` reads no COUNT and
  the COUNT is pruned, :mod:`streamsql.plan.agg_prune`).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions.scalars import (
    calls,
    composite,
    nested_floor,
    not_pushdown,
    operand_types,
    operators,
    overlaps,
    reduced,
    row_equals,
    structured_compare,
    time_type,
    typeof,
    variant_nullability,
)
from streamsql.functions.scalars.registry import (
    DEAD_CODE,
    NULL,
    TYPE,
    Arg,
    Call,
    FunctionError,
    family_name,
    lookup,
    type_of,
    written,
)
from streamsql.functions.scalars.typerules import least_restrictive

_BOOLEAN = SqlType("BOOLEAN")
#: ``meta`` key of an aggregate call: its result type, set by the planner before the expression
#: around the call is bound (``ARRAY_AGG(x)[1]``, ``UPPER(LISTAGG(s))``), as Flink's validator types
#: an aggregate call like any other call.
AGGREGATE_TYPE = "aggregate_type"
_PREDICATES = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.And, exp.Or, exp.Not, exp.Is,
               exp.Like, exp.ILike, exp.Between, exp.In, exp.NullSafeEQ, exp.NullSafeNEQ, exp.SimilarTo,
               exp.Boolean, exp.Exists)
_OPERATOR_FUNCS = (exp.Cast, exp.TryCast, exp.Case)
#: Calls that exist only with OVER (sqlglot parses most of them as aggregates, which the binder
#: would otherwise hand to DuckDB as they are: "Binder Error: Window functions are not supported here").
_WINDOW_ONLY = (exp.Lag, exp.Lead, exp.Ntile, exp.NthValue, exp.CumeDist, exp.PercentRank, exp.Rank,
                exp.DenseRank, exp.RowNumber)


def bind(node: exp.Expression) -> exp.Expression:
    """The DuckDB expression for a resolved expression (a new tree; ``node`` is not changed).

    Raises:
        FunctionError: an unknown function, a call no signature accepts, or an argument the
            function needs as a literal; ``.node`` is the call.
    """
    tree = node.copy()
    reduced.mark(tree)
    return _visit(tree)


def _visit(n: exp.Expression) -> exp.Expression:
    if overlaps.handles(n):  # comparisons of the periods' ends, as Calcite
        return _visit(overlaps.rewrite(n))
    if row_equals.handles(n):  # ROW(..) = ROW(..): its fields' =, as Calcite
        return _visit(row_equals.rewrite(n))
    if nested_floor.handles(n):  # FLOOR(FLOOR(x TO DAY) TO YEAR): FLOOR(x TO YEAR), as Calcite
        return _visit(nested_floor.rewrite(n))
    if not_pushdown.handles(n, bind):  # NOT (d <= 1): d > 1, as Calcite (a NaN passes neither)
        return _visit(not_pushdown.rewrite(n))
    if typeof.handles(n):  # a constant from its argument's uncompiled form
        out, t = typeof.compile_typeof(n, bind)
        out.meta[TYPE] = t
        return out
    if isinstance(n, exp.JSONObject):
        _json_keys_not_null(n)
    variant_nullability.check(n, bind)
    structured_compare.check(n, bind)
    if isinstance(n, exp.Is) and isinstance(n.expression, exp.Null) and _safe(n.this) \
            and typeof.never_null(n.this, bind):
        out = exp.false()  # Calcite's simplifier: IS NULL of a NOT NULL operand (IS NOT NULL: NOT FALSE)
        out.meta[TYPE] = _BOOLEAN
        return out
    if isinstance(n, operators.NAMED_WHEN_FAILING):  # as written, before its operands compile
        n.meta[operators.WRITTEN] = written(n)
    if isinstance(n, (exp.Cast, exp.VarMap)) or n.meta.get(reduced.REDUCED):
        _keep_position(n)
    if type(n) is exp.Cast and _null_constant(n.this):  # a NULL literal once Flink's planner folds it
        n.meta[operand_types.NULL_OPERAND] = True
    if isinstance(n, (exp.Floor, exp.Ceil)) and n.args.get("to") is not None and _null_constant(n.this):
        n.meta[operand_types.NULL_OPERAND] = True  # FLOOR(NULL TO unit): folded to NULL, its unit not checked
    dead = _dropped_by_flink(n)
    for key, value in list(n.args.items()):
        token = DEAD_CODE.set(True) if key == dead else None
        try:
            if isinstance(value, exp.Expression):
                n.set(key, _visit(value))
            elif isinstance(value, list):
                n.set(key, [_visit(v) if isinstance(v, exp.Expression) else v for v in value])
        finally:
            if token is not None:
                DEAD_CODE.reset(token)
    if isinstance(n, _WINDOW_ONLY) and not isinstance(n.parent, exp.Window):
        msg = "OVER clause is necessary for window functions"  # Calcite's absentOverClause, as Flink
        raise FunctionError(msg, n)
    if isinstance(n, exp.Func) and not isinstance(n.parent, exp.Window) and aggregate_not_yet(n):
        msg = f"Aggregate function {aggregate_not_yet(n)} is not supported yet"
        raise FunctionError(msg, n)
    if isinstance(n, (exp.Grouping, exp.GroupingId)) or (  # the planner computes them (plan/grouping_sets.py)
            isinstance(n, exp.Anonymous) and n.name.upper() == "GROUP_ID" and not n.expressions):
        n.meta[TYPE] = SqlType("BIGINT")
        return n
    unknown = unknown_aggregate(n)
    if unknown is not None:
        raise unknown
    if isinstance(n, exp.AggFunc) and n.meta.get(AGGREGATE_TYPE) is not None:
        n.meta[TYPE] = n.meta[AGGREGATE_TYPE]  # computed after the aggregation, a column there
        return n
    if composite.handles(n):
        out, t = composite.compile_composite(n)
    elif _is_call(n):
        if isinstance(n, exp.Coalesce):
            operand_types.check_operands(n)
        try:
            out, t = _call(n)
        except FunctionError:
            # FLOOR/CEIL of a time to a unit Flink's code generator fails on, in code Flink drops, or of a
            # NULL constant, which Flink folds to NULL (FLOOR(CAST(NULL AS TIMESTAMP_LTZ(3)) TO DOY))
            operand = type_of(n.this) if isinstance(n, (exp.Floor, exp.Ceil)) and n.args.get("to") else None
            dropped = DEAD_CODE.get() or n.meta.get(operand_types.NULL_OPERAND)
            if not (dropped and operand is not None and operand.is_time):
                raise
            out, t = _typed_null(operand)
    else:
        n = operand_types.check_operands(n)  # Flink's operand types, before DuckDB's own rules
        if n.meta.get(operand_types.DEAD_NULL):  # a CAST or = Flink refuses in code it never generates
            out, t = _typed_null(SqlType.parse(n.to.sql(dialect="flink")) if isinstance(n, exp.Cast)
                                 else _BOOLEAN)
        else:
            out, t = operators.compile_operator(n, _operator_type(n))
    if n.meta.get(reduced.REDUCED):  # a constant Flink's planner turns into a literal
        out = reduced.as_literal(out, t)
        reduced.check_year(n, out, t)
        reduced.check_float(n, out, t)
    out.meta[TYPE] = t
    return out


_POSITION = ("line", "col", "start", "end")
#: TIMESTAMPADD's units whose result is NULL whatever the operand (Flink 2.3, :mod:`.time_units`).
_NULL_ADD_UNITS = ("DOW", "DOY", "ISODOW", "EPOCH")


def _dropped_by_flink(n: exp.Expression) -> str | None:
    """The argument of ``n`` that Flink's planner drops before it generates code, if any.

    The ELSE of a ``CASE WHEN TRUE THEN x ELSE y`` (Flink 2.3 answers a CEIL to ISODOW there, a unit its
    code generator refuses), the branch of a ``CASE WHEN FALSE`` or ``WHEN`` a NULL constant and the WHEN
    branches of a ``CASE
    x`` of a NULL constant x (Calcite's simplification removes them: Flink 2.3 answers ``CASE
    CAST(NULL AS INT) WHEN i THEN ARRAY[i][0] ELSE 3 END``, whose literal index 0 it refuses in a
    branch it keeps), the values of a
    COALESCE after a first one that is NOT NULL (Calcite keeps that one only: Flink 2.3 answers
    ``COALESCE(CAST(0.5 AS DECIMAL(1, 1)), CAST(ts AS DOUBLE))``, a CAST its code generator
    refuses), the other operand of
    ``x OR TRUE`` and ``x AND FALSE`` (simplified to the literal: Flink 2.3 answers ``(u = m) OR
    TRUE`` of a STRING u and a DECIMAL m, whose ``=`` its code generator refuses) and the operand of a
    TIMESTAMPADD of a unit that makes it NULL (reduced to a NULL literal): Flink validates them,
    but never generates their code, so a refusal of its code generator does not reach them.
    """
    if isinstance(n, exp.If) and isinstance(n.parent, exp.Case) and (
            isinstance(n.this, exp.Boolean) and not n.this.this or _null_constant(n.this)):
        return "true"
    if isinstance(n, exp.Case) and n.this is not None and _null_constant(n.this):
        return "ifs"  # CASE NULL WHEN v THEN ..: no WHEN matches, Calcite keeps the ELSE
    ifs = n.args.get("ifs") or [] if isinstance(n, exp.Case) else []
    if n.this is None and len(ifs) == 1 and isinstance(ifs[0].this, exp.Boolean) and ifs[0].this.this:
        return "default"  # CASE WHEN TRUE THEN x ELSE y: Calcite keeps x
    if isinstance(n, exp.Coalesce) and n.expressions and _never_null(n.this):
        return "expressions"
    if isinstance(n, (exp.Or, exp.And)):
        absorbing = isinstance(n, exp.Or)  # TRUE absorbs an OR, FALSE an AND
        for key, other in (("this", "expression"), ("expression", "this")):
            side = n.args.get(other)
            while isinstance(side, exp.Paren):
                side = side.this
            if isinstance(side, exp.Boolean) and side.this is absorbing:
                return key
    unit = n.args.get("unit") if isinstance(n, exp.TimestampAdd) else None
    if unit is not None and unit.name.upper() in _NULL_ADD_UNITS:
        return "this"
    return None


def _null_constant(n: exp.Expression) -> bool:
    """Whether ``n`` is NULL whatever the row, as Flink's planner folds it (no error possible).

    A NULL literal, a CAST of one, a TIMESTAMPADD of a unit that makes it NULL (DOW, DOY, ISODOW,
    EPOCH), or a deterministic built-in that is NULL when an argument is, of such an argument
    (``QUARTER(CAST(NULL AS DATE))``).
    """
    while isinstance(n, exp.Paren):
        n = n.this
    if isinstance(n, exp.Null):
        return True
    if isinstance(n, (exp.Cast, exp.TryCast)):
        return _null_constant(n.this)
    unit = n.args.get("unit") if isinstance(n, exp.TimestampAdd) else None
    if unit is not None and unit.name.upper() in _NULL_ADD_UNITS:  # NULL whatever its operands
        return True
    if isinstance(n, exp.Func) and _is_call(n) and not isinstance(n, exp.AggFunc):
        name, args, _ = calls.arguments(n)
        fn = lookup(name)
        return (fn is not None and fn.nulls == typeof.NULL_IN_NULL_OUT and fn.deterministic
                and any(_null_constant(a) for a in args))
    return False


def _safe(n: exp.Expression) -> bool:
    """Whether Calcite's simplifier takes ``n`` for safe (RexSimplify's isSafeExpression).

    No function call in it, which could fail the job: Flink 2.3 fails ``PARSE_JSON('😀x') IS NULL`` on
    its bad JSON rather than simplify it to FALSE (difffuzz campaign 34).
    """
    return not any(_is_call(x) for x in n.walk())


def _json_keys_not_null(n: exp.JSONObject) -> None:
    """Refuse a JSON_OBJECT key of a nullable type, as Flink 2.3's validator does.

    Flink refuses ``JSON_OBJECT(KEY s VALUE 1)`` of a nullable column ``s`` ("Argument to function
    's' must not be NULL"); a key whose nullability is not derived here (:func:`.typeof.flink_type`)
    is let through.

    Raises:
        FunctionError: at the key.
    """
    for pair in n.expressions:
        key = pair.this if isinstance(pair, exp.JSONKeyValue) else None
        if key is None or isinstance(key, exp.Literal):
            continue
        try:
            nullable = typeof.flink_type(key, bind).nullable
        except (FunctionError, SqlError):
            continue
        if nullable:
            msg = (f"Argument to function '{key.sql(dialect='flink')}' must not be NULL: a JSON_OBJECT key "
                   "must be of a NOT NULL type (as Flink's validator; COALESCE it)")
            raise FunctionError(msg, key)


def _never_null(n: exp.Expression) -> bool:
    """Whether Flink types ``n`` NOT NULL, told from its form alone (False where that is not certain).

    A literal other than NULL, a CAST of such a value (not a TRY_CAST), a column whose declared type
    is NOT NULL. Structural on purpose: deriving the type of a nested COALESCE's first value by
    binding it (TYPEOF's :func:`.typeof.flink_type`) made binding exponential in the nesting depth.
    """
    while isinstance(n, exp.Paren):
        n = n.this
    if isinstance(n, exp.Literal) or isinstance(n, exp.Boolean):
        return True
    if isinstance(n, exp.Neg):
        return isinstance(n.this, exp.Literal)
    if type(n) is exp.Cast:
        return _never_null(n.this)
    if isinstance(n, exp.Column):
        declared = n.meta.get("declared_type")
        return declared is not None and not declared.nullable
    return False


def _typed_null(t: SqlType) -> tuple[exp.Expression, SqlType]:
    """A NULL of DuckDB's type for ``t``, typed ``t``: code that Flink drops, never evaluated."""
    return exp.Cast(this=exp.Null(), to=t.duckdb_type()), t


def _keep_position(n: exp.Expression) -> None:
    """Give ``n`` the position of its first token, if it has none, before its operands compile.

    A refusal of ``n`` found after they compiled (a CAST of a CAST, a constant's value) would
    otherwise have no position left to show: its compiled operands carry no tokens.
    """
    if "line" in n.meta:
        return
    for sub in n.walk(bfs=False):
        if "line" in sub.meta:
            n.meta.update({k: sub.meta[k] for k in _POSITION if k in sub.meta})
            return


def aggregate_not_yet(n: exp.Func) -> str | None:
    """The name of a Flink aggregate StreamSQL does not compute yet (None for any other call).

    The planner takes the aggregates it computes out of an expression before binding it, so
    one of these reaching the binder would otherwise be handed to DuckDB.
    """
    name = calls.name_of(n)
    return name if name in calls.FLINK_AGGREGATES_NOT_YET else None


#: sqlglot's nodes of the aggregates Flink has (the planner's own calls, UDAFs, LISTAGG, PERCENTILE
#: ..., are ``exp.Anonymous`` subclasses); the planner computes them, and tells which it does not.
_FLINK_AGGREGATES = (exp.Anonymous, exp.Count, exp.Sum, exp.Min, exp.Max, exp.Avg, exp.VariancePop,
                     exp.Variance, exp.StddevPop, exp.StddevSamp, exp.Stddev, exp.FirstValue, exp.LastValue,
                     exp.ArrayAgg, exp.JSONArrayAgg, exp.JSONObjectAgg, *_WINDOW_ONLY)


def unknown_aggregate(n: exp.Expression) -> FunctionError | None:
    """The error for an aggregate call no aggregate of StreamSQL's took (None for anything else).

    sqlglot parses many other engines' aggregates (MEDIAN, ANY_VALUE, BOOL_AND, ARG_MAX, CORR,
    STRING_AGG ...) as aggregates; the planner takes out the ones it computes, so one reaching
    here is no Flink function: Flink's ``No match found for function signature`` naming the
    function as written (``MAX_BY``, not sqlglot's ``ARG_MAX``), or for the ones Flink's grammar
    has as keywords its parser's ``Incorrect syntax near the keyword 'STRING_AGG'`` (it went to
    DuckDB, which computed MEDIAN per batch without GROUP BY, and with GROUP BY its column was
    said not to be grouped).
    """
    if (not isinstance(n, exp.AggFunc) or isinstance(n, _FLINK_AGGREGATES) or isinstance(n.parent, exp.Window)
            or calls.name_of(n) in calls.FLINK_AGGREGATES_NOT_YET):
        return None
    name, args, _ = calls.arguments(n)
    if name in _PARSER_KEYWORD_AGGREGATES:  # keywords of Flink's grammar: its parser refuses the call
        return FunctionError(f"Incorrect syntax near the keyword '{name}'", n)
    types = [type_of(a) or (a.meta.get("sql_type") if isinstance(a, exp.Column) else None) for a in args]
    sig = f"{name}(" + ", ".join(f"<{family_name(t)}>" for t in types) + ")"
    return FunctionError(f"No match found for function signature {sig}", n)


#: Aggregates Flink 2.3's parser knows as keywords (Calcite's grammar) and refuses as calls:
#: ``Incorrect syntax near the keyword 'STRING_AGG'`` (read from Flink's answers).
_PARSER_KEYWORD_AGGREGATES = frozenset({"STRING_AGG", "GROUP_CONCAT", "ARRAY_CONCAT_AGG"})


def _is_call(n: exp.Expression) -> bool:
    if not isinstance(n, exp.Func) or isinstance(n, (*_OPERATOR_FUNCS, exp.Connector, exp.AggFunc)):
        return False
    return not (isinstance(n, exp.If) and n.arg_key == "ifs")  # a CASE branch, not IF()


def _call(n: exp.Expression) -> tuple[exp.Expression, SqlType | None]:
    name, args, unit = calls.arguments(n)
    typed = [Arg(a, type_of(a)) for a in args]
    fn = lookup(name)
    types = [a.type for a in typed]
    if fn is None or not fn.accepts(types):
        refused = fn.refusal(name, types) if fn is not None and fn.refusal is not None else None
        if refused is not None:
            raise FunctionError(refused, n)
        sig = f"{name}(" + ", ".join(f"<{family_name(t)}>" for t in types) + ")"
        msg = f"No match found for function signature {sig}"
        if fn is not None:
            msg += f"; supported: {fn.signature_text()}"
        elif name in calls.FLINK_NOT_YET:
            msg = f"Function {name} is not supported yet ({msg})"
        raise FunctionError(msg, n)
    call = Call(name, typed, n, unit)
    result = fn.result(call)
    out = fn.compile(call)
    if fn.cast and result is not None:
        out = exp.Cast(this=out, to=result.duckdb_type())
    return out, result


def _operator_type(n: exp.Expression) -> SqlType | None:
    if isinstance(n, exp.Column):
        return n.meta.get("sql_type")
    if isinstance(n, _PREDICATES):
        return _BOOLEAN
    if isinstance(n, exp.Null):
        return NULL
    if isinstance(n, exp.HexString):  # X'0102' is BINARY(2) in Flink
        return SqlType("BYTES", len(n.this) // 2, padded=True)
    if isinstance(n, exp.Literal):
        return _literal_type(n)
    if isinstance(n, exp.Neg) and isinstance(n.this, exp.Literal) and not n.this.is_string:
        # Calcite's parser folds the sign into the literal: -2147483648 is an INT in Flink 2.3
        return _number_type("-" + n.this.this)
    if isinstance(n, (exp.Paren, exp.Neg)):
        return type_of(n.this)
    if isinstance(n, (exp.Cast, exp.TryCast)):
        return _cast_type(n)
    if isinstance(n, exp.DPipe):
        return SqlType("STRING")
    if isinstance(n, exp.Case):
        return least_restrictive([type_of(i.args["true"]) for i in n.args.get("ifs") or []]
                           + ([type_of(n.args["default"])] if n.args.get("default") else []))
    return operators.binary_type(n)


def _literal_type(n: exp.Literal) -> SqlType:
    return SqlType("STRING") if n.is_string else _number_type(n.this)


def _number_type(text: str) -> SqlType:
    """The type of a numeric literal written ``text`` (a sign included), as Calcite's."""
    text = text.lower()
    if "e" in text:
        return SqlType("DOUBLE")
    if "." in text:
        whole, frac = text.split(".", 1)  # Calcite: every digit written counts, leading zeros too
        return SqlType("DECIMAL", max(len(whole.lstrip("-")) + len(frac), 1), len(frac))
    v = int(text)
    return SqlType("INT") if -2**31 <= v < 2**31 else SqlType("BIGINT")


def _cast_type(n: exp.Cast) -> SqlType | None:
    if time_type.is_literal(n):  # TIME '12:34:56.1' is TIME(1): its fraction digits, up to 3
        return time_type.literal(n)[1]
    try:
        t = SqlType.parse(n.to.sql())
    except SqlError:
        return None
    if t.name == "TIMESTAMP" and not n.to.expressions and isinstance(n.this, exp.Literal):
        # TIMESTAMP '... .123' is TIMESTAMP(3) in Flink: the literal's fraction digits, at most 9
        # (TIMESTAMP '... .9999999995' is a TIMESTAMP(9) of .999999999: scripts/flink_timestamp_precision.py)
        frac = n.this.this.partition(".")[2] if "." in n.this.this else ""
        return SqlType("TIMESTAMP", min(len(frac), 9))
    return t
