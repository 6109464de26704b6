"""Flink's operand type checks of the SQL operators, before DuckDB sees the expression.

DuckDB would otherwise bind (or refuse, in its own words) what Flink 2.3's validator decides
differently. Every rule below is Flink 2.3's behaviour, asked of Flink over a table
``(id INT, name STRING, x BIGINT, d DECIMAL(10,2), b BOOLEAN, ts TIMESTAMP(3))``:

=================================== ===========================================================
expression                          Flink 2.3
=================================== ===========================================================
``name + 1``, ``-name``, ``id * name`` ``Cannot apply '+' to arguments of type '<VARCHAR(2147483647)>
                                    + <INTEGER>'. Supported form(s): '<NUMERIC> + <NUMERIC>'``
``name = 1``, ``id <> '1'``,        ``implicit type conversion between VARCHAR and INTEGER is not
``d = '1.5'``, ``id IS DISTINCT     supported now``
FROM '1'`` (Flink has no implicit cast for = and <>)
``name > 1``, ``x BETWEEN 'a' AND   the string is CAST to the least restrictive type of the number
'b'``, ``COUNT(*) > '0'``           and BIGINT (Calcite's COMPARE consistency), failing at run time
                                    on a string that is not a number
``b = 1``, ``ts > 5``, ``ts > DATE  ``Cannot apply '=' to arguments of type '<BOOLEAN> = <INTEGER>'.
'2019-01-01'``                      Supported form(s): '<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'``
``b AND id``, ``NOT name``,         ``Cannot apply 'AND' to arguments of type '<BOOLEAN> AND
``id IS TRUE``                      <INTEGER>'. Supported form(s): '<BOOLEAN> AND <BOOLEAN>'``
``name LIKE 1``, ``id LIKE '1'``    ``Cannot apply 'LIKE' to arguments of type 'LIKE(<VARCHAR(2147483647)>,
                                    <INTEGER>)'. Supported form(s): 'LIKE(<STRING>, <STRING>, <STRING>)'``
``CASE WHEN name THEN ...``         ``Expected a boolean type``
``name || 1``, ``id || name``       ``Cannot apply '||' to arguments of type '<VARCHAR(2147483647)> ||
                                    <INTEGER>'. Supported form(s): '<STRING> || <STRING>'``
``name IN (1, 2)``                  compares as strings (the numbers' text), true for name '1'
``name > ts``, ``name > TRUE``      the string is CAST to the other operand's type
``CASE WHEN b THEN 1 ELSE 'x' END`` ``Illegal mixing of types in CASE or COALESCE statement``
``COALESCE(name, 1)``               ``Invalid input arguments.``
``b BETWEEN 1.5 AND x``             ``Cannot apply 'BETWEEN ASYMMETRIC' to arguments of type '<BOOLEAN>
                                    BETWEEN ASYMMETRIC <DECIMAL(2, 1)> AND <BIGINT>'. Supported ...``
``INTERVAL '1' DAY <= 1``           ``Cannot apply '<=' to arguments of type '<INTERVAL DAY> <= <INTEGER>'``
``NULL + TRUE``                     ``Illegal use of 'NULL'``
=================================== ===========================================================

Also refused as Flink 2.3 refuses them (the differential fuzzer's cases): a CAST or TRY_CAST between
a DATE and a number or a BOOLEAN, or between a BOOLEAN and a TIMESTAMP or TIMESTAMP_LTZ ("Cast
function cannot convert value of type DATE to type DECIMAL(10, 2)"), between a TIMESTAMP or
TIMESTAMP_LTZ and a number (Flink's own "The cast from TIMESTAMP type to NUMERIC type is not
allowed. ..."), and an exact number literal whose
digits do not fit a Java long ("Numeric literal '12345678901234567890.5' out of range").

Not followed: Flink 2.3 accepts ``b = 'true'`` and ``name = TRUE`` (BOOLEAN = string) but they are
never true there, even for b TRUE and name 'true'; here the string is cast to BOOLEAN (DuckDB's
rule) and the comparison means what it says.
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions.scalars.float_compare import NARROWED, narrow_doubles
from streamsql.functions.scalars.registry import DEAD_CODE, NULL, TYPE, FunctionError, time_operand, type_of
from streamsql.functions.scalars.typerules import branches, common_type, least_restrictive

_ARITHMETIC = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}
_EQUALITY = {exp.EQ: "=", exp.NEQ: "<>", exp.NullSafeEQ: "IS NOT DISTINCT FROM",
             exp.NullSafeNEQ: "IS DISTINCT FROM"}
_ORDERING = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_LOGIC = {exp.And: "AND", exp.Or: "OR"}
_BIGINT = SqlType("BIGINT")
_TEXT = ("STRING", "BYTES")
_TIMES = ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
# Families whose values Flink never compares with another family's (strings aside, see above).
_INTEGER_NAMES = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_COMPARABLE_ONLY_WITHIN = ("NUMERIC", "BOOLEAN", "DATE", "TIME", "TIMESTAMP", "INTERVAL", "ARRAY", "MAP",
                           "ROW")
_CALCITE_NAME = {"INT": "INTEGER", "STRING": "VARCHAR", "TIMESTAMP_LTZ": "TIMESTAMP_WITH_LOCAL_TIME_ZONE"}


def check_operands(n: exp.Expression) -> exp.Expression:
    """``n`` (an operator node whose operands are compiled and typed) as Flink types it.

    Returns ``n``, with a CAST added where Flink casts implicitly (a string compared with a
    number by < <= > >= BETWEEN; a string IN a list of numbers).

    Raises:
        FunctionError: where Flink's validator refuses the operands, in its words.
    """
    if isinstance(n, tuple(_ARITHMETIC)):
        _arithmetic(n, _ARITHMETIC[type(n)])
    elif isinstance(n, exp.Neg):
        if _known(type_of(n.this)) and not type_of(n.this).is_numeric and not _is_interval(n.this):
            raise _cannot_apply(n, "-", f"-<{_calcite(n.this)}>", "-<NUMERIC>")
    elif isinstance(n, tuple(_EQUALITY)):
        _comparison(n, _EQUALITY[type(n)], cast=False)
        if isinstance(n, (exp.NullSafeEQ, exp.NullSafeNEQ)):
            _same_time_precision(n, _EQUALITY[type(n)], n.this, [n.expression])
        _one_time_kind(n, ("this", "expression"), _pair_kind(n) if isinstance(n, (exp.EQ, exp.NEQ)) else _LTZ)
    elif isinstance(n, tuple(_ORDERING)):
        _comparison(n, _ORDERING[type(n)], cast=True)
        _one_time_kind(n, ("this", "expression"), _LTZ)
    elif isinstance(n, exp.Between):
        _between(n)
        _one_time_kind(n, ("this", "low", "high"), _LTZ)
    elif isinstance(n, tuple(_LOGIC)):
        if not (_boolean(n.this) and _boolean(n.expression)):
            raise _binary(n, _LOGIC[type(n)], "BOOLEAN")
    elif isinstance(n, exp.Not) and not _boolean(n.this):
        raise _cannot_apply(n, "NOT", f"NOT<{_calcite(n.this)}>", "NOT<BOOLEAN>")
    elif isinstance(n, exp.Is) and _truth_test(n.expression) and not _boolean(n.this):
        op = "IS NOT " if isinstance(n.parent, exp.Not) else "IS "
        op += _truth_test(n.expression)
        raise _cannot_apply(n, op, f"<{_calcite(n.this)}> {op}", f"<BOOLEAN> {op}")
    elif isinstance(n, exp.ILike):  # Flink 2.3's validator has no ILIKE operator
        msg = "No match found for function signature ILIKE"
        raise FunctionError(msg, n)
    elif isinstance(n, exp.Like):
        _like(n)
    elif isinstance(n, exp.If) and n.arg_key == "ifs" and _searched(n.parent) and not _boolean(n.this):
        msg = "Expected a boolean type"
        raise FunctionError(msg, n)
    elif isinstance(n, exp.DPipe):
        lt, rt = type_of(n.this), type_of(n.expression)
        if _known(lt) and _known(rt) and lt.name == rt.name == "BYTES":
            msg = ("String expression type expected: '||' of two BINARY/VARBINARY values (Flink 2.3's "
                   "code generator refuses it, CONCAT too); CAST them to STRING")
            raise FunctionError(msg, n)
        if _known(lt) and _known(rt) and not (lt.name in _TEXT and rt.name in _TEXT and lt.name == rt.name):
            raise _cannot_apply(n, "||", f"<{_calcite(n.this)}> || <{_calcite(n.expression)}>",
                                "<STRING> || <STRING>' '<EQUIVALENT_TYPE> || <EQUIVALENT_TYPE>")
    elif isinstance(n, (exp.Case, exp.Coalesce)) and _bitmap(*branches(n)) and not n.meta.get(FILTER_CASE):
        # Flink 2.3's planner fails on a BITMAP result of CASE / COALESCE (Calcite's
        # SqlTypeAssignmentRule has no rule for the type: scripts/flink_bitmap.py "types")
        msg = ("No assign rules for OTHER defined: a CASE or COALESCE with BITMAP results fails "
               "Flink 2.3's planner (java.lang.AssertionError); compute the bitmap per branch")
        raise FunctionError(msg, n)
    elif isinstance(n, exp.Case):
        _case_branches(n)
    elif isinstance(n, exp.In) and _bitmap(n.this, *n.expressions):
        raise _cannot_apply(n, "IN", "<BITMAP> IN (...)", "<COMPARABLE_TYPE> IN (<COMPARABLE_TYPE>, ...)")
    elif isinstance(n, exp.In):
        narrow_doubles(n, ("this", "expressions"))
        _in_numbers_as_text(n)
        _same_time_precision(n, "IN", n.this, n.expressions)
        if _known(type_of(n.this)) and n.expressions:
            _one_time_kind(n, ("this", "expressions"), type_of(n.this).name)
    elif isinstance(n, exp.Coalesce):
        _coalesce(n)
    elif isinstance(n, exp.Cast):  # and TRY_CAST
        _cast(n)
    elif isinstance(n, exp.Literal) and n.is_number:
        _exact_literal(n)
    return n


def _truth_test(rhs: exp.Expression) -> str | None:
    """TRUE, FALSE or UNKNOWN: the right side of ``x IS [NOT] <it>``, a test of a BOOLEAN only.

    None for another right side (``IS NULL``, ``IS JSON``).
    """
    if isinstance(rhs, exp.Boolean):
        return "TRUE" if rhs.this else "FALSE"
    return "UNKNOWN" if isinstance(rhs, exp.Null) and rhs.meta.get("unknown") else None


# CASTs Flink 2.3 refuses while validating (Calcite's cast rules, and two of Flink's own), from the
# differential fuzzer's cases: a DATE to or from a number or a BOOLEAN, a BOOLEAN to a TIMESTAMP
# and back: "Cast function cannot convert value of type DATE to type DECIMAL(10, 2)".
_NO_CAST = {("DATE", "NUMERIC"), ("DATE", "BOOLEAN"), ("NUMERIC", "DATE"), ("BOOLEAN", "DATE"),
            ("BOOLEAN", "TIMESTAMP"), ("TIMESTAMP", "BOOLEAN"), ("BOOLEAN", "TIMESTAMP_LTZ"),
            ("TIMESTAMP_LTZ", "BOOLEAN"),
            # BYTES converts to and from strings only (checked with PyFlink 2.3's EXPLAIN, qflink27)
            ("NUMERIC", "BYTES"), ("BOOLEAN", "BYTES"), ("DATE", "BYTES"), ("TIMESTAMP", "BYTES"),
            ("TIMESTAMP_LTZ", "BYTES"), ("BYTES", "NUMERIC"), ("BYTES", "BOOLEAN"),
            # a TIME converts to and from strings, TIMESTAMPs and TIMEs only (PyFlink 2.3: "Cast
            # function cannot convert value of type TIME(0) to type DATE", scripts/flink_time.py)
            *{(a, b) for a in ("TIME",) for b in ("NUMERIC", "BOOLEAN", "DATE", "BYTES")},
            *{(b, a) for a in ("TIME",) for b in ("NUMERIC", "BOOLEAN", "DATE", "BYTES")}}
#: Casts from BYTES Flink refuses in its own words (code generation), whatever the target's precision.
_BYTES_TO_TIME = ("DATE", "TIMESTAMP", "TIMESTAMP_LTZ")
_FLINK_NO_CAST = {
    ("TIMESTAMP", "NUMERIC"): "The cast from TIMESTAMP type to NUMERIC type is not allowed. It's "
                              "recommended to use UNIX_TIMESTAMP(CAST(timestamp_col AS STRING)) instead.",
    ("NUMERIC", "TIMESTAMP"): "The cast from NUMERIC type to TIMESTAMP type is not allowed. It's "
                              "recommended to use TO_TIMESTAMP(FROM_UNIXTIME(numeric_col)) instead, note "
                              "the numeric is in seconds.",
    ("TIMESTAMP_LTZ", "NUMERIC"): "The cast from TIMESTAMP_LTZ type to NUMERIC type is not allowed.",
    ("NUMERIC", "TIMESTAMP_LTZ"): "The cast from NUMERIC type to TIMESTAMP_LTZ type is not allowed. It's "
                                  "recommended to use TO_TIMESTAMP_LTZ(numeric_col, precision) instead."}


NULL_OPERAND = "null_operand"
"""Meta flag of a CAST whose operand Flink's planner folds to a NULL literal (``TIMESTAMPADD(ISODOW,
..)``, ``QUARTER(CAST(NULL AS DATE))``): its cast checks pass as a typed NULL's, but a TIMESTAMP_LTZ's
(set by the binder)."""

DEAD_NULL = "dead_null"
"""Meta flag of a CAST (or a string = number) Flink refuses only in code generation, met in code it
drops (a typed NULL)."""


def _cast(n: exp.Cast) -> None:
    """Refuse a CAST (or TRY_CAST) between types Flink does not convert, in Flink's words."""
    source = type_of(n.this)
    try:
        target = SqlType.parse(n.to.sql())
    except SqlError:
        return
    if not _known(source):
        return
    if target.name == "BITMAP" or source.name == "BITMAP":
        _bitmap_cast(n, source, target)
        return
    pair = (_cast_family(source), _cast_family(target))
    inner = n.this.unnest() if isinstance(n.this, exp.Paren) else n.this
    # a folded NULL of a TIMESTAMP_LTZ is not let through: Flink 2.3 fails to plan CAST(TIMESTAMPADD(EPOCH,
    # 0, CAST(TIMESTAMP '..' AS TIMESTAMP_LTZ(3))) AS DECIMAL(38, 0)) (difference campaign 32)
    folded = n.meta.get(NULL_OPERAND) and source.name != "TIMESTAMP_LTZ"
    typed_null = isinstance(inner, exp.Cast) and isinstance(inner.this, exp.Null) or folded
    # Flink's own check lets CAST(CAST(NULL AS INT) AS TIMESTAMP_LTZ(3)) through, not a TRY_CAST of it
    if pair in _FLINK_NO_CAST and not (typed_null and not isinstance(n, exp.TryCast)):
        # Flink's own check, made in code generation: code Flink drops passes; not a TIMESTAMP_LTZ's,
        # which Flink checks while planning (a CASE WHEN TRUE's ELSE CAST(ltz AS FLOAT) is refused)
        if DEAD_CODE.get() and source.name != "TIMESTAMP_LTZ":
            n.meta[DEAD_NULL] = True
            return
        raise FunctionError(_FLINK_NO_CAST[pair], n)
    if pair[0] == "BYTES" and pair[1] in _BYTES_TO_TIME and not typed_null:
        if DEAD_CODE.get():
            n.meta[DEAD_NULL] = True
            return
        msg = f"Unsupported cast from 'BYTES' to '{target}'."
        raise FunctionError(msg, n)
    if pair in _NO_CAST or _nested_cast_refused(source, target) or _variant_cast(pair):
        msg = (f"Cast function cannot convert value of type {calcite_type(source)} to type "
               f"{calcite_type(target)}")
        raise FunctionError(msg, n)


def _bitmap_cast(n: exp.Cast, source: SqlType, target: SqlType) -> None:
    """Refuse a CAST to BITMAP (of any value, a BITMAP's too) and from one but to a string, as Flink 2.3.

    Flink's validator converts nothing to BITMAP: ``Cast function cannot convert value of type
    CHAR(5) to type BITMAP NOT NULL`` (a NULL literal only: ``CAST(NULL AS BITMAP)``); a BITMAP
    converts to a string only (``{1,2,3}``): to BYTES its code generator refuses (``Unsupported cast
    from 'BITMAP NOT NULL' to 'BYTES NOT NULL'.``), to anything else its validator
    (scripts/flink_bitmap.py ``types``).
    """
    if target.name == "BITMAP":
        msg = f"Cast function cannot convert value of type {calcite_type(source)} to type BITMAP NOT NULL"
        raise FunctionError(msg, n)
    if target.name == "BYTES" and target.precision is None:  # Flink's code generator's refusal
        msg = f"Unsupported cast from '{source}' to '{target}'."
        raise FunctionError(msg, n)
    if target.name != "STRING":
        msg = (f"Cast function cannot convert value of type {calcite_type(source)} to type "
               f"{calcite_type(target)}")
        raise FunctionError(msg, n)


def _variant_cast(pair: tuple[str, str]) -> bool:
    """Whether a CAST goes to or from a VARIANT from or to another type: Flink 2.3 refuses every one."""
    return "VARIANT" in pair and pair[0] != pair[1]


_NESTED = ("ROW", "ARRAY", "MAP")


def _nested_cast_refused(source: SqlType, target: SqlType) -> bool:
    """Whether Flink 2.3 refuses a CAST to or from a ROW, ARRAY or MAP while validating.

    A nested value converts to STRING (Flink's to-string cast rules) or to a nested type of its
    kind; no other type converts to or from one (scripts/flink_statements.py ``cast_nested``:
    ``CAST(ARRAY[1] AS INT)``, ``CAST('[1]' AS ARRAY<INT>)``).
    """
    if source.name not in _NESTED and target.name not in _NESTED:
        return False
    return source.name != target.name and not (source.name in _NESTED and target.name == "STRING")


def _cast_family(t: SqlType) -> str:
    return "NUMERIC" if t.is_numeric else t.name


# Calcite's validator takes an exact number literal only when its digits (the unscaled value) fit
# a Java long: Flink 2.3 refuses 12345678901234567890.5 ("Numeric literal ... out of range"). 2^63
# itself passes, as the -9223372036854775808 it is written in.
_LONG_DIGITS = 2**63


def _exact_literal(n: exp.Literal) -> None:
    text = n.this
    if any(c in text for c in "eE") or abs(int(text.replace(".", "") or "0")) <= _LONG_DIGITS \
            or _in_filter_clause(n):
        return
    msg = f"Numeric literal '{text}' out of range"
    raise FunctionError(msg, n)


FILTER_CLAUSE = "filter_clause"
"""``meta`` key of a literal written in an aggregate's ``FILTER (WHERE ...)``, where Flink 2.3 does not
check an exact literal's range (``SUM(x) FILTER (WHERE CAST(12345678901234567890.5 AS BOOLEAN))``)."""


def _in_filter_clause(n: exp.Expression) -> bool:
    where = n.find_ancestor(exp.Where)
    return n.meta.get(FILTER_CLAUSE, False) or (where is not None and isinstance(where.parent, exp.Filter))


def _searched(case: exp.Expression | None) -> bool:
    """A searched CASE (``CASE WHEN cond``), not a simple one (``CASE x WHEN value``)."""
    return isinstance(case, exp.Case) and case.args.get("this") is None


def _cannot_apply(n: exp.Expression, op: str, operands: str, form: str) -> FunctionError:
    """Calcite's refusal of an operator's operand types."""
    msg = f"Cannot apply '{op}' to arguments of type '{operands}'. Supported form(s): '{form}'"
    return FunctionError(msg, n)


def _binary(n: exp.Expression, op: str, family: str) -> FunctionError:
    """:func:`_cannot_apply` for a binary operator whose operands must both be of ``family``."""
    operands = f"<{_calcite(n.this)}> {op} <{_calcite(n.expression)}>"
    return _cannot_apply(n, op, operands, f"<{family}> {op} <{family}>")


def _arithmetic(n: exp.Expression, op: str) -> None:
    families = {_operand_family(n.this), _operand_family(n.expression)}
    if "INTERVAL" in families:  # DATE/TIMESTAMP +/- INTERVAL: typed by the operators module
        others = [type_of(x) for x in (n.this, n.expression) if not _is_interval(x)]
        if op == "*" and others and all(_known(t) and t.name in _INTEGER_NAMES for t in others):
            return  # INTERVAL * an integer (operators.compile_operator)
        if families - {"INTERVAL", "DATE", "TIME", "TIMESTAMP", None}:
            raise _binary(n, op, "NUMERIC")
        return
    lt, rt = type_of(n.this), type_of(n.expression)
    if _known(lt) and _known(rt) and not (lt.is_numeric and rt.is_numeric):
        raise _binary(n, op, "NUMERIC")
    sides = ((n.this, rt), (n.expression, lt))
    if any(isinstance(s, exp.Null) and _known(other) and not other.is_numeric for s, other in sides):
        msg = "Illegal use of 'NULL'"  # Calcite: an untyped NULL takes the other operand's type
        raise FunctionError(msg, n)


def _comparison(n: exp.Expression, op: str, cast: bool) -> None:
    if _variant_comparison(n, op):
        return
    if _apart(_operand_family(n.this), _operand_family(n.expression)) or _bitmap(n.this, n.expression):
        raise _binary(n, op, "COMPARABLE_TYPE")
    lt, rt = type_of(n.this), type_of(n.expression)
    if not (_known(lt) and _known(rt)):
        return
    if op in NARROWED:
        narrow_doubles(n, ("this", "expression"))
    if _string_and_number(lt, rt):
        if not cast:
            if DEAD_CODE.get():  # Flink's code generator refuses it: code Flink drops passes
                n.meta[DEAD_NULL] = True
                return
            msg = (f"implicit type conversion between {_root(n.this)} and {_root(n.expression)} "
                   "is not supported now")
            raise FunctionError(msg, n)
        _cast_strings(n, ("this", "expression"))
        return
    if "STRING" in (lt.name, rt.name):
        other = rt if lt.name == "STRING" else lt
        if other.name in _TIMES or (cast and other.name == "BOOLEAN"):  # Flink: CAST(name AS TIMESTAMP(3))
            _cast_strings(n, ("this", "expression"), other)
        return


FILTER_CASE = "filter_case"
"""Meta flag of the CASE a FILTER clause is planned as (``agg(CASE WHEN c THEN x END)``): not a CASE
Flink's planner sees, so its BITMAP values pass (Flink 2.3 answers ``BITMAP_XOR_AGG(b) FILTER (WHERE f)``)."""
CONSTANT_VARIANT = "constant_variant"
"""Meta flag of a compiled PARSE_JSON / TRY_PARSE_JSON over literals (Flink folds it to a constant)."""
VARIANT_NULLABILITY_CHECKED = "variant_nullability_checked"
"""Meta flag of a comparison whose VARIANT operands' Flink nullabilities were derived and agree
(:mod:`.variant_nullability`): the constant rule below is not needed for it."""


SELF_ORDER_KEY = "variant_self_order"
"""Meta key of an ordering of a VARIANT with itself (the same deterministic expression): its operator."""
SELF_ORDER = {"<": "FALSE", ">": "FALSE", "<=": "TRUE", ">=": "TRUE"}
"""Calcite's ``RexSimplify`` of ``x op x``: ``NULL AND x IS NULL`` (``<``, ``>``: FALSE, NULL for a NULL
``x``) or ``NULL OR x IS NOT NULL`` (``<=``, ``>=``: TRUE, NULL for a NULL ``x``)."""
_RANDOM = re.compile(r"\b(random|uuid|gen_random_uuid|now|current_\w+)\s*\(", re.IGNORECASE)


def _variant_comparison(n: exp.Expression, op: str) -> bool:
    """Check a comparison with a VARIANT operand; False when neither operand is one.

    Two VARIANTs compare for equality (their values: the text Flink writes, see :mod:`.variant`), not
    by order (``<`` ...: Flink 2.3's "Comparable type expected"), but for a VARIANT ordered with itself
    (``v < v``, the same deterministic expression), which Calcite's simplifier folds before Flink's code
    generator would refuse it (Flink 2.3: ``v < v`` is FALSE): marked :data:`SELF_ORDER_KEY`. Flink 2.3
    cannot compare a VARIANT with a constant one (``v = PARSE_JSON('1')``: its planner folds the
    call into a literal and fails with "No assign rules for VARIANT defined"), nor with a value of
    another type.

    Raises:
        FunctionError: those, in Flink's words; an ordering.
    """
    lt, rt = type_of(n.this), type_of(n.expression)
    names = [t.name if _known(t) else None for t in (lt, rt)]
    if "VARIANT" not in names:
        return False
    if None not in names and names[0] != names[1]:
        raise _binary(n, op, "COMPARABLE_TYPE")
    if op not in _EQUALITY.values():
        if op in SELF_ORDER and n.this == n.expression and not _RANDOM.search(n.this.sql(dialect="duckdb")):
            n.meta[SELF_ORDER_KEY] = op  # Calcite simplifies x < x before Flink's code generator sees it
            return True
        msg = "Comparable type expected, but was 'VARIANT'."  # Flink 2.3 orders no VARIANTs
        raise FunctionError(msg, n)
    constant = [side.meta.get(CONSTANT_VARIANT, False) for side in (n.this, n.expression)]
    if constant[0] != constant[1] and not n.meta.get(VARIANT_NULLABILITY_CHECKED):
        msg = ("No assign rules for VARIANT defined (Flink 2.3 compares no VARIANT with PARSE_JSON of a "
               "literal)")
        raise FunctionError(msg, n)
    return True


def _between(n: exp.Between) -> None:
    keys = ("this", "low", "high")
    if any(_known(type_of(n.args[k])) and type_of(n.args[k]).name == "VARIANT" for k in keys):
        msg = "Comparable type expected, but was 'VARIANT'."  # as an ordering (_variant_comparison)
        raise FunctionError(msg, n)
    families = [_operand_family(n.args[k]) for k in keys]
    if any(_apart(a, b) for a in families for b in families) or _bitmap(*(n.args[k] for k in keys)):
        op = ("NOT " if isinstance(n.parent, exp.Not) else "") + "BETWEEN ASYMMETRIC"
        a, low, high = (_calcite(n.args[k]) for k in keys)
        form = "<COMPARABLE_TYPE> BETWEEN <COMPARABLE_TYPE> AND <COMPARABLE_TYPE>"
        raise _cannot_apply(n, op, f"<{a}> {op} <{low}> AND <{high}>", form)
    types = [t for t in (type_of(n.args[k]) for k in keys) if _known(t)]  # an untyped NULL takes any type
    if "STRING" not in families or None in (type_of(n.args[k]) for k in keys):
        return
    if any(t.is_numeric for t in types):
        _cast_strings(n, keys)
        return
    other = next((t for t in types if t.name in (*_TIMES, "BOOLEAN")), None)
    if other is not None:  # Flink: ts BETWEEN CAST(name AS TIMESTAMP(3)) AND ts
        _cast_strings(n, keys, other)


def _bitmap(*nodes: exp.Expression) -> bool:
    """Whether one of the compiled ``nodes`` is a BITMAP (Flink compares none: not COMPARABLE_TYPE)."""
    return any(_known(type_of(x)) and type_of(x).name == "BITMAP" for x in nodes if x is not None)


def _operand_family(node: exp.Expression) -> str | None:
    """The operand's type family (``NUMERIC``, ``STRING``, ``INTERVAL``, ...), None when unknown."""
    if _is_interval(node):
        return "INTERVAL"
    t = type_of(node)
    return _family(t) if _known(t) else None


def _apart(a: str | None, b: str | None) -> bool:
    """Two families Flink never compares or brings to one type (strings are cast instead)."""
    if {a, b} & {"ARRAY", "MAP", "ROW"} and "STRING" in (a, b):
        return True
    return a != b and a in _COMPARABLE_ONLY_WITHIN and b in _COMPARABLE_ONLY_WITHIN


def _cast_strings(n: exp.Expression, keys: tuple[str, ...], target: SqlType | None = None) -> None:
    """CAST the string operands among ``n.args[keys]`` to ``target`` (default: the numbers' type, widened).

    Calcite (StandardConvertletTable.consistentType, COMPARE): a character operand compared
    with numbers takes the least restrictive type of the numeric operands and BIGINT, "some
    headroom" for the string's value; compared with a BOOLEAN, DATE or TIMESTAMP, that type.
    """
    if target is None:
        numbers = [t for t in (type_of(n.args[k]) for k in keys) if _known(t) and t.is_numeric]
        target = common_type([*numbers, _BIGINT]) or _BIGINT
    for k in keys:
        side = n.args[k]
        if _known(type_of(side)) and type_of(side).name == "STRING":
            if target.name in _TIMES:  # via DuckDB's TIMESTAMP: TIMESTAMP_MS reads 'abc' as a number
                via = target.name if target.name in ("DATE", "TIME") else "TIMESTAMP"
                side = exp.Cast(this=side, to=exp.DataType.build(via))
            cast = exp.Cast(this=side, to=target.duckdb_type())
            cast.meta[TYPE] = target
            n.set(k, cast)


# -- a TIMESTAMP compared with a TIMESTAMP_LTZ -------------------------------------------------------
# Flink 2.3 (asked with non-constant values at the America/New_York fall-back hour, where the two
# conversions differ): = and <> (and NULLIF, a simple CASE) compare in Calcite's least restrictive
# type of the two operands (``W3 = L3`` as TIMESTAMPs, ``L3 = W3`` as instants, ``W6 = L3`` as
# instants); < <= > >=, BETWEEN and IS [NOT] DISTINCT FROM always as instants; IN in the kind of
# the value looked for. DuckDB would read the wall clock in UTC.
_LTZ = "TIMESTAMP_LTZ"


def pair_kind(left: SqlType | None, right: SqlType | None) -> str | None:
    """The kind (TIMESTAMP or TIMESTAMP_LTZ) ``left = right`` compares in, None unless both kinds meet."""
    if not (_known(left) and _known(right) and left.is_time and right.is_time and left.name != right.name):
        return None
    return least_restrictive([left, right]).name


def _pair_kind(n: exp.Expression) -> str | None:
    return pair_kind(type_of(n.this), type_of(n.expression))


def _one_time_kind(n: exp.Expression, keys: tuple[str, ...], kind: str | None) -> None:
    """Bring the TIMESTAMP and TIMESTAMP_LTZ operands among ``n.args[keys]`` to ``kind`` when both meet.

    In the session time zone (:func:`~.registry.time_operand`).
    """
    sides = [v for k in keys for v in (n.args[k] if isinstance(n.args.get(k), list) else [n.args.get(k)])
             if isinstance(v, exp.Expression)]
    kinds = {type_of(v).name for v in sides if _known(type_of(v)) and type_of(v).is_time}
    if kind not in ("TIMESTAMP", _LTZ) or len(kinds) < 2:
        return
    target = SqlType(kind)
    for k in keys:
        value = n.args.get(k)
        if isinstance(value, list):
            n.set(k, [time_operand(v, target) for v in value])
        elif isinstance(value, exp.Expression):
            n.set(k, time_operand(value, target))


def _same_time_precision(n: exp.Expression, op: str, left: exp.Expression, rights: list) -> None:
    """Refuse TIMEs of two precisions where Flink 2.3's code generator refuses them.

    That is IS [NOT] DISTINCT FROM, and IN unless a column is tested against constants (Calcite's
    SEARCH casts those).

    ``t IS DISTINCT FROM u`` (TIME(0), TIME(3)), ``t IN (u, TIME '01:00:00')`` and ``TIME '12:00:00'
    IN (TIME '12:00:00.000')`` fail there ("Incomparable types: TIME(0) NOT NULL and TIME(3) NOT
    NULL"); ``t IN (TIME '01:00:00.5')`` and ``t = u`` compare (``scripts/flink_time_break.py``).

    Raises:
        FunctionError: Flink's words, and the CAST that makes the precisions one.
    """
    lt = type_of(left)
    if not (_known(lt) and lt.name == "TIME"):
        return
    constant_left = _constant(left)
    for right in rights:
        rt = type_of(right)
        if not (_known(rt) and rt.name == "TIME") or (lt.precision or 0) == (rt.precision or 0):
            continue
        if op == "IN" and _constant(right) and not constant_left:
            continue
        msg = (f"Incomparable types: {lt.with_nullable(True)} and {rt.with_nullable(True)}: {op} of TIMEs "
               f"of two precisions fails Flink 2.3's code generation; CAST one side to the other's TIME(p)")
        raise FunctionError(msg, n)


def _constant(node: exp.Expression) -> bool:
    """Whether a compiled operand reads no column (compiled columns are quoted names)."""
    return '"' not in node.sql(dialect="duckdb")


def equality_refusal(left: SqlType | None, right: SqlType | None) -> str | None:
    """Flink's refusal of ``left = right`` for values of these types, None where it compares them.

    Also of the ``=`` inside a simple CASE and NULLIF (Flink 2.3: NULLIF(b, CAST(1 AS SMALLINT))
    is "Cannot apply '=' to arguments of type '<BOOLEAN> = <SMALLINT>'...").
    """
    bitmap = any(_known(t) and t.name == "BITMAP" for t in (left, right))  # Flink compares no BITMAP
    if not (_known(left) and _known(right)) or not (bitmap or _apart(_family(left), _family(right))):
        return None
    return (f"Cannot apply '=' to arguments of type '<{calcite_type(left)}> = <{calcite_type(right)}>'. "
            "Supported form(s): '<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'")


def _case_branches(n: exp.Case) -> None:
    """Flink refuses a CASE whose results have no common type (``THEN 1 ELSE 'x'``).

    And a simple CASE whose values it cannot compare with the operand (``CASE i WHEN b``).
    """
    if n.args.get("this") is not None:
        for branch in n.args.get("ifs") or []:
            msg = equality_refusal(type_of(n.this), type_of(branch.this))
            if msg:
                raise FunctionError(msg, branch.this)
        if any(_pair_kind(exp.EQ(this=n.this, expression=b.this)) for b in n.args.get("ifs") or []):
            _searched_times(n)
    results = [i.args["true"] for i in n.args.get("ifs") or []]
    results += [n.args["default"]] if n.args.get("default") else []
    if _mixed(results):
        msg = "Illegal mixing of types in CASE or COALESCE statement"
        raise FunctionError(msg, n)


def _coalesce(n: exp.Coalesce) -> None:
    """Flink refuses a COALESCE of values with no common type (its words, then which types)."""
    args = [n.this, *n.expressions]
    if _mixed(args) and not timestamps_and_dates([type_of(a) for a in args]):
        msg = f"Invalid input arguments. COALESCE({', '.join(_calcite(a) for a in args)}): no common type"
        raise FunctionError(msg, n)


def _searched_times(n: exp.Case) -> None:
    """``CASE x WHEN v ...`` of a TIMESTAMP and a TIMESTAMP_LTZ as ``CASE WHEN x = v ...``.

    Each ``=`` compares in its pair's kind, as Flink's (``CASE ts WHEN ltz`` compares wall clocks).
    """
    operand = n.this
    for branch in n.args.get("ifs") or []:
        eq = exp.EQ(this=operand.copy(), expression=branch.this)
        eq.meta[TYPE] = SqlType("BOOLEAN")
        _one_time_kind(eq, ("this", "expression"), _pair_kind(eq))
        branch.set("this", eq)
    n.set("this", None)


def timestamps_and_dates(types: list[SqlType | None]) -> bool:
    """TIMESTAMPs (without time zone) and DATEs, both: Flink 2.3's COALESCE brings them to DATE.

    As ``LogicalTypeMerging.findCommonType``: COALESCE(ts, dt) is a DATE there; with a
    TIMESTAMP_LTZ Flink refuses it, and CASE ("Illegal mixing of types") and IF refuse both.
    """
    names = {t.name for t in types if _known(t) and t.name != "NULL"}
    return names == {"TIMESTAMP", "DATE"}


def _mixed(values: list[exp.Expression]) -> bool:
    """Values of families that have no common type (a string and a number, a BOOLEAN and a DATE...)."""
    families = {_operand_family(v) for v in values} - {None}
    return len(families & {"STRING", *_COMPARABLE_ONLY_WITHIN}) > 1


def _like(n: exp.Expression) -> None:
    lt, rt = type_of(n.this), type_of(n.expression)
    if any(_known(t) and t.name != "STRING" for t in (lt, rt)):
        operands = f"LIKE(<{_calcite(n.this)}>, <{_calcite(n.expression)}>)"
        raise _cannot_apply(n, "LIKE", operands, "LIKE(<STRING>, <STRING>, <STRING>)")


def _in_numbers_as_text(n: exp.In) -> None:
    """``name IN (1, 2)``: Flink compares the numbers' text with the string.

    DuckDB would cast the string to a number instead, and fail on 'a'.
    """
    t = type_of(n.this)
    items = n.expressions
    if not (_known(t) and t.name == "STRING" and items):
        return
    if all(isinstance(i, exp.Literal) and not i.is_string for i in items):
        texts = [exp.Literal.string(i.this) for i in items]
        for lit in texts:
            lit.meta[TYPE] = SqlType("STRING")
        n.set("expressions", texts)


def join_key_error(left: SqlType | None, right: SqlType | None) -> str | None:
    """Flink's refusal of a join's equality between a string and a number (None if it is fine).

    A join key is compared as one value on both sides; DuckDB would compare both as strings
    (no row of ``a.name = b.id`` matches '1' = 1 then), Flink refuses the condition.
    """
    if _known(left) and _known(right) and _string_and_number(left, right):
        return (f"implicit type conversion between {calcite_type(left)} and {calcite_type(right)} is not "
                "supported on join's condition now")
    return None


def _known(t: SqlType | None) -> bool:
    return t is not None and t != NULL and t.name != "NULL"


def _boolean(node: exp.Expression) -> bool:
    t = type_of(node)
    return not _known(t) or t.name == "BOOLEAN"


def _is_interval(node: exp.Expression) -> bool:
    t = type_of(node)
    return isinstance(node, exp.Interval) or (t is not None and t.name.startswith("INTERVAL"))


def _string_and_number(a: SqlType, b: SqlType) -> bool:
    return (a.name == "STRING" and b.is_numeric) or (b.name == "STRING" and a.is_numeric)


def _family(t: SqlType) -> str:
    if t.is_numeric:
        return "NUMERIC"
    return {"TIMESTAMP_LTZ": "TIMESTAMP"}.get(t.name, t.name)


def _root(node: exp.Expression) -> str:
    """The type's root as Flink's 'implicit type conversion' message names it: VARCHAR, CHAR, INTEGER."""
    text = _calcite(node)
    return text.split("(", 1)[0]


def _calcite(node: exp.Expression) -> str:
    """The operand's type as Calcite prints it in 'Cannot apply' (a string literal is a ``CHAR(n)``)."""
    if isinstance(node, exp.Interval) and node.unit is not None:
        return f"INTERVAL {node.unit.name.upper()}"
    t = type_of(node)
    if t is not None and isinstance(node, exp.Literal) and node.is_string:
        return f"CHAR({len(node.this)})"
    return calcite_type(t)


def calcite_type(t: SqlType | None) -> str:
    """A type as Calcite prints it.

    ``VARCHAR(2147483647)`` (STRING), ``VARBINARY(2147483647)`` (BYTES), ``INTEGER``,
    ``DECIMAL(10, 2)``, ``TIMESTAMP(3)``, ``TIMESTAMP_WITH_LOCAL_TIME_ZONE(3)``; nested types as
    Calcite's validator names them: ``INTEGER ARRAY``, ``(CHAR(1), INTEGER) MAP``,
    ``RecordType:peek_no_expand(INTEGER a, CHAR(1) b)`` (scripts/flink_statements.py ``cast_nested``).
    """
    if t is None:
        return "ANY"
    if t.name == "ARRAY":
        return f"{calcite_type(t.children[0])} ARRAY"
    if t.name == "MAP":
        return f"({calcite_type(t.children[0])}, {calcite_type(t.children[1])}) MAP"
    if t.name == "ROW":
        fields = ", ".join(f"{calcite_type(c)} {n}" for n, c in zip(t.field_names, t.children))
        return f"RecordType:peek_no_expand({fields})"
    text = str(t)
    if t.name == "STRING":
        return "VARCHAR(2147483647)" if text == "STRING" else text
    if text == "BYTES":
        return "VARBINARY(2147483647)"
    name = _CALCITE_NAME.get(t.name)
    return text.replace(t.name, name, 1) if name else text
