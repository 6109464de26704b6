"""How a sqlglot call node maps to a Flink function name and its arguments in Flink's order.

sqlglot parses most functions into typed nodes whose arguments are named, not positional (and
some, like ``LOCATE(sub, s)`` or ``TIMESTAMPDIFF(unit, t1, t2)``, in another order than
written); :func:`arguments` undoes that. The name is the one written (sqlglot keeps it in
``meta["flink_name"]``), so ``SUBSTR`` and ``SUBSTRING`` are both looked up by their own name.
"""

from __future__ import annotations

from sqlglot import exp

_DEFAULT_NAMES = {exp.Trim: "TRIM", exp.Substring: "SUBSTRING", exp.StrPosition: "POSITION",
                  exp.Initcap: "INITCAP", exp.Chr: "CHR", exp.If: "IF", exp.Floor: "FLOOR", exp.Ceil: "CEIL",
                  exp.Extract: "EXTRACT", exp.JSONObject: "JSON_OBJECT", exp.JSONArray: "JSON_ARRAY"}

# Named arguments in Flink's order, for nodes whose arg_types order differs from the SQL's.
_ORDER: dict[type, tuple[str, ...]] = {
    exp.TimestampDiff: ("expression", "this"),
    exp.TimestampAdd: ("expression", "this"),
    exp.Extract: ("expression",),
    exp.Initcap: ("this",),
    exp.Floor: ("this", "decimals"),
    exp.Ceil: ("this", "decimals"),
    exp.Round: ("this", "decimals"),
    exp.Trunc: ("this", "decimals"),
    exp.Pad: ("this", "expression", "fill_pattern"),
    exp.Trim: ("this", "expression"),
}

FLINK_NOT_YET: frozenset[str] = frozenset()
"""Flink built-ins not in the registry yet (refused as 'not supported yet', listed in the docs).

Hive's ``DATEDIFF``, ``DATE_ADD`` and ``DATE_SUB`` are no Flink 2.3 built-ins: refused as Flink
refuses them (``No match found for function signature ...``; tests/functions/flink_expected.json)."""

FLINK_LISTED_NOT_HERE: dict[str, tuple[str, ...]] = {
    "internal (the planner's rewrites of a call written otherwise, or an operator here)": (
        "AGG_DECIMAL_MINUS", "AGG_DECIMAL_PLUS", "HIVE_AGG_DECIMAL_PLUS", "JSON_ARRAYAGG_ABSENT_ON_NULL",
        "JSON_ARRAYAGG_NULL_ON_NULL", "JSON_OBJECTAGG_ABSENT_ON_NULL", "JSON_OBJECTAGG_NULL_ON_NULL",
        "DEFAULT", "LIKE", "TRANSLATE3", "ASSIGNMENT", "TRY_CAST", "TYPEOF", "IS_JSON", "JSON"),
    "models (ML_PREDICT: a model, CREATE MODEL, is no object here)": ("ML_PREDICT",),
}
"""Names Flink 2.3's ``SHOW FUNCTIONS`` lists (its SQL names, not the Table API's camelCase ones)
that StreamSQL's does not, by why: internal ones, written as SQL otherwise (``TRY_CAST(x AS T)``,
``x IS JSON``, ``TYPEOF`` is parsed here), and what is not written yet (recorded by
``scripts/flink_query_gaps.py``; ``tests/sql/test_flink_query_gaps.py`` checks the list)."""

_PTF_ARGS = "op => DESCRIPTOR, op_mapping => MAP<STRING, STRING>"
BUILT_IN_PTF_SIGNATURES: dict[str, str] = {
    "FROM_CHANGELOG": "(input => {TABLE, ROW SEMANTIC TABLE}, " + _PTF_ARGS + ")",
    "TO_CHANGELOG": "(input => {TABLE, ROW SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE, "
                    "REQUIRE FULL DELETE}, " + _PTF_ARGS + ")",
}
"""The signature (after the name) ``DESCRIBE FUNCTION EXTENDED`` shows, as Flink 2.3's."""
BUILT_IN_PTFS: tuple[str, ...] = tuple(BUILT_IN_PTF_SIGNATURES)
"""Flink 2.3's built-in process table functions StreamSQL runs, called in FROM
(:mod:`streamsql.sql.ptf_syntax`, :mod:`streamsql.plan.changelog_ptf`); SHOW FUNCTIONS lists them,
DESCRIBE FUNCTION describes them (kind ``PROCESS_TABLE``)."""

FLINK_AGGREGATES_NOT_YET: frozenset[str] = frozenset()
"""Flink aggregates StreamSQL does not compute yet (refused at the call; listed in the docs)."""


def name_of(n: exp.Func) -> str:
    """The function's name as written (upper case)."""
    if isinstance(n, exp.Anonymous):
        return n.name.upper()
    if n.key == "jsoncall":  # streamsql.sql.nodes.JsonCall: JSON_VALUE / JSON_QUERY with clauses
        return n.args["name"]
    written = n.meta.get("flink_name")
    if written:
        return written.upper()
    return _DEFAULT_NAMES.get(type(n)) or n.sql_name().upper()


def arguments(n: exp.Func) -> tuple[str, list[exp.Expression], str | None]:
    """(name as written, arguments in Flink's order, keyword unit or TRIM side or None)."""
    name = name_of(n)
    if isinstance(n, exp.Anonymous):
        return name, list(n.expressions), None
    if isinstance(n, exp.StrPosition):  # LOCATE(sub, s[, from]), POSITION(sub IN s), INSTR(s, sub)
        # INSTR's start and occurrence arguments are passed on so its signature refuses them; dropping
        # them answered INSTR(s, 'l', -1) with the first match (Flink: the last).
        order = (("this", "substr", "position", "occurrence") if name == "INSTR"
                 else ("substr", "this", "position"))
        return name, _named(n, order), None
    if isinstance(n, exp.Log) and name in ("LOG10", "LOG2"):
        return name, _named(n, ("expression",)), None
    if isinstance(n, exp.JSONObject):  # JSON_OBJECT(KEY k VALUE v, ...): k1, v1, k2, v2 ...
        pairs = [part for kv in n.expressions for part in (kv.this, kv.expression)]
        return name, pairs, str(n.args.get("null_handling") or "NULL ON NULL").upper()
    if isinstance(n, exp.JSONArray):  # JSON_ARRAY(v, ... [ABSENT | NULL ON NULL]): ABSENT is Flink's default
        return name, list(n.expressions), str(n.args.get("null_handling") or "ABSENT ON NULL").upper()
    if n.key == "jsoncall":  # the document and the path (the build reads the clauses)
        return name, _named(n, ("this", "path")), None
    unit = _unit(n)
    order = _ORDER.get(type(n))
    if order is not None:
        return name, _named(n, order), unit
    args: list[exp.Expression] = []
    for key in n.arg_types:
        value = n.args.get(key)
        if isinstance(value, exp.Expression) and key != "unit":
            args.append(value)
        elif isinstance(value, list):
            args.extend(v for v in value if isinstance(v, exp.Expression))
    return name, args, unit


def _named(n: exp.Expression, keys: tuple[str, ...]) -> list[exp.Expression]:
    return [n.args[k] for k in keys if n.args.get(k) is not None]


def _unit(n: exp.Expression) -> str | None:
    if isinstance(n, exp.Extract):
        return n.this.name.upper()
    if isinstance(n, exp.Trim):
        side = n.args.get("position")
        written = n.meta.get("flink_name", "").upper()
        return {"LTRIM": "LEADING", "RTRIM": "TRAILING"}.get(written) or (side.upper() if side else "BOTH")
    for key in ("unit", "to") if isinstance(n, (exp.Floor, exp.Ceil)) else ("unit",):
        value = n.args.get(key)
        if isinstance(value, exp.Expression):
            return value.name.upper()
    return None
