"""Merge a Calc into the Calc below it, as Flink's ``FlinkCalcMergeRule``.

A SELECT over a subquery, a view or a CTE plans as two Calcs, the outer one's WHERE over the
inner one's projection. Flink merges them into one Calc (``FlinkRelUtil.merge``: the outer
expressions rewritten over the inner Calc's input) whose filter runs first and whose projection
is computed only for the rows that pass. So ``SELECT * FROM (SELECT a / b AS q, b FROM t) WHERE
b <> 0`` never divides by a zero ``b`` in Flink, and must not here; ``WHERE q > 1`` still divides
every row, there as here.

:func:`merge_calcs` runs once over a planned statement, inputs first (so a chain of Calcs becomes
one). A Calc merges into its input Calc when, as ``FlinkRelUtil.isMergeable``:

- the input Calc has no other reader;
- no non-deterministic item of the lower Calc (``RAND()``, ``UUID()``: :func:`~streamsql.plan.
  expressions.is_deterministic`) is referenced more than once by the upper one, which would
  compute two values where Flink computes one.

A deterministic item referenced twice is merged all the same, as Flink 2.3 does (``SELECT q * 2,
q + 1 FROM (SELECT a / b AS q, b FROM t) WHERE b <> 0`` is one Calc computing ``a / b`` twice, and
so is ``WHERE b <> 0 AND q > 1 AND q < 10``: compat case ``calc_merge_filter_first``).

and, for our own evaluation: neither Calc makes rows (``unnest(...)``: an UNNEST join, the
copies of an EXCEPT ALL; Flink plans those as other nodes), the lower Calc passes no
``PROCTIME()`` attribute (which the
time-attribute analyses follow by column), each lower column the upper one reads is computed by
DuckDB with the very type the Calc emits (:attr:`~streamsql.plan.query.QuerySpec.duckdb_schema`:
else the runtime's cast would have changed its values), and the merged Calc emits the upper Calc's
schema. Otherwise both Calcs stay, as before. The rewrite replaces each column the upper DuckDB SQL
reads (:func:`column_references`) by the lower expression's SQL, parenthesized.

The merged filter is ``lower condition AND upper condition`` (Calcite's
``RexProgramBuilder.mergePrograms``) over the lower Calc's input.
"""

from __future__ import annotations

import re
from collections import Counter

from streamsql.core.errors import SqlError
from streamsql.plan.expressions import Compiled, flink_text
from streamsql.plan.nodes import CalcNode, PlanNode, walk
from streamsql.plan.query import QuerySpec, compile_query


def merge_calcs(roots: list[PlanNode], sql: str | None = None) -> None:
    """Merge every mergeable Calc into the Calc below it, in place (see the module docstring).

    ``sql`` is the statement, for the (unexpected) error of a merged query DuckDB refuses.
    """
    nodes = walk(roots)
    readers = Counter(id(i) for n in nodes for i in n.inputs)
    for node in nodes:  # inputs first: a Calc's input is already merged with its own
        lower = node.inputs[0] if isinstance(node, CalcNode) else None
        if type(lower) is not CalcNode or readers[id(lower)] != 1:
            continue
        query = _merged(node.query, lower, sql)
        if query is not None:
            merged = CalcNode.over(lower.inputs[0], query, node.proctime)
            node.inputs, node.query = merged.inputs, query
            node.select_sql, node.where_sql = merged.select_sql, merged.where_sql


def _merged(top: QuerySpec, lower: CalcNode, sql: str | None) -> QuerySpec | None:
    """``top`` rewritten over ``lower``'s input, or None when the two Calcs must stay apart."""
    bottom = lower.query
    if lower.proctime or bottom.duckdb_schema is None or _multiplies(top) or _multiplies(bottom):
        return None
    below = dict(bottom.items)
    exprs = [e for _, e in top.items] + ([top.condition] if top.condition is not None else [])
    used = Counter(name for e in exprs for _, _, name in column_references(e) if name in below)
    for j, (name, e) in enumerate(bottom.items):
        if not used[name]:
            continue
        if not getattr(e, "deterministic", True) and used[name] > 1:
            return None  # Flink computes a RAND() once per row: so must we
        if bottom.duckdb_schema.field(j).type != bottom.output_schema.field(j).type:
            return None  # the runtime casts that column's values: the expression alone is not them
    items = [(name, _rewritten(e, below)) for name, e in top.items]
    condition = _rewritten(top.condition, below) if top.condition is not None else None
    if bottom.condition is not None:
        condition = bottom.condition if condition is None else _and(bottom.condition, condition)
    try:
        query = compile_query(items, condition, bottom.input_schema, sql)
    except SqlError:
        return None
    if query.output_schema.types != top.output_schema.types:
        return None  # e.g. a constant lost its refined type: keep the two Calcs
    # the same values; the upper Calc's fields keep the exact Flink types they carry (CHAR(3), ...)
    return QuerySpec(items, condition, bottom.input_schema, top.output_schema, query.duckdb_schema)


def _multiplies(query: QuerySpec) -> bool:
    """Whether ``query`` has a set-returning item, which makes rows rather than a value.

    ``unnest(...)``: an UNNEST join, the copies of an EXCEPT ALL. Merged, such an item that no
    one reads would be dropped, and the rows it makes with it.
    """
    return any(_UNNEST.search(e) for _, e in query.items)


_UNNEST = re.compile(r"\bunnest\s*\(", re.IGNORECASE)

#: DuckDB SQL tokens: a string literal, a quoted identifier, a word, anything else.
_DUCK_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[A-Za-z_][A-Za-z0-9_$]*|\s+|.", re.DOTALL)
#: The DuckDB type names the SQL we compile writes (after a STRUCT field's name, in a CAST).
_DUCK_TYPES = frozenset("""BOOLEAN TINYINT SMALLINT INTEGER INT BIGINT HUGEINT UTINYINT USMALLINT UINTEGER
UBIGINT FLOAT REAL DOUBLE DECIMAL NUMERIC VARCHAR TEXT STRING CHAR BLOB BYTEA DATE TIME TIMESTAMP
TIMESTAMPTZ TIMESTAMP_MS TIMESTAMP_NS TIMESTAMP_S INTERVAL STRUCT MAP UNION LIST JSON UUID""".split())


def column_references(sql: str) -> list[tuple[int, int, str]]:
    """The input columns DuckDB SQL ``sql`` (as compiled here) reads: ``(start, end, name)`` each.

    A compiled column is a quoted name; a quoted name after ``.`` is a STRUCT field, one before
    ``:=`` a ``struct_pack`` field, and one before a type name a STRUCT field of a CAST's type.
    """
    tokens = duck_tokens(sql)
    out = []
    for i, (pos, tok) in enumerate(tokens):
        if not tok.startswith('"'):
            continue
        before = next((t for _, t in reversed(tokens[:i]) if not t.isspace()), "")
        after = [t for _, t in tokens[i + 1:i + 4] if not t.isspace()]
        if before == "." or after[:2] == [":", "="] or (after and after[0].upper() in _DUCK_TYPES):
            continue
        out.append((pos, pos + len(tok), tok[1:-1].replace('""', '"')))
    return out


def duck_tokens(sql: str) -> list[tuple[int, str]]:
    """The tokens of DuckDB SQL ``sql``, ``(start, text)`` each.

    String literals, quoted names, words, runs of whitespace, single other characters.
    """
    return [(m.start(), m.group()) for m in _DUCK_TOKEN.finditer(sql)]


def _rewritten(expr: str, below: dict[str, str]) -> str:
    """``expr`` (an upper item or condition) over the lower Calc's input.

    Each lower column becomes the lower expression's DuckDB SQL, parenthesized unless it is a
    column itself (so that a column passed on stays one).
    """
    refs = [r for r in column_references(expr) if r[2] in below]
    lower = [below[name] for *_, name in refs]
    text = _replaced(expr, refs, [v if _one_column(v) else f"({v})" for v in lower])
    if isinstance(expr, Compiled):
        flink = _flink_rewritten(expr.flink, {name: flink_text(e) for name, e in below.items()})
    else:  # SQL we wrote (a sink's cast), which EXPLAIN shows as it is: its columns as Flink SQL
        flink = _replaced(expr, refs, [flink_text(v) for v in lower])
    deterministic = all(getattr(v, "deterministic", True) for v in [expr, *lower])
    return Compiled(text, flink, getattr(expr, "type", None), deterministic)


def _replaced(sql: str, refs: list[tuple[int, int, str]], values: list[str]) -> str:
    """``sql`` with each reference ``(start, end, name)`` of ``refs`` replaced by its value."""
    out, last = [], 0
    for (start, end, _), value in zip(refs, values):
        out += [sql[last:start], value]
        last = end
    return "".join(out) + sql[last:]


def _one_column(sql: str) -> bool:
    """Whether DuckDB SQL ``sql`` is one column (it needs no parentheses)."""
    return [(0, len(sql))] == [r[:2] for r in column_references(sql)]


# Flink SQL tokens: a string literal, a back-quoted or plain identifier, anything else.
_FLINK_TOKEN = re.compile(r"'(?:[^']|'')*'|`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_$]*|.", re.DOTALL)
_SIMPLE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_$]*|`(?:[^`]|``)*`|'(?:[^']|'')*'|-?[0-9.]+)$")


def _flink_rewritten(text: str, flink: dict[str, str]) -> str:
    """Flink SQL ``text`` (for EXPLAIN) with each lower column replaced by its Flink SQL."""
    out, tokens = [], _FLINK_TOKEN.findall(text)
    if len(tokens) == 1 and text in flink:  # a column passed on: the lower expression as it is
        return flink[text]
    for i, tok in enumerate(tokens):
        name = tok[1:-1].replace("``", "`") if tok.startswith("`") else tok
        after = next((t for t in tokens[i + 1:] if not t.isspace()), "")
        if name in flink and (i == 0 or tokens[i - 1] != ".") and after != "(" and not tok.startswith("'"):
            value = flink[name]
            tok = value if _SIMPLE.match(value) or _one_call(value) else f"({value})"
        out.append(tok)
    return "".join(out)


def _one_call(text: str) -> bool:
    """Whether Flink SQL ``text`` is one function call, ``F(...)`` (needs no parentheses around it)."""
    m = re.match(r"[A-Za-z_][A-Za-z0-9_$]*\(", text)
    if m is None or not text.endswith(")"):
        return False
    depth = 0
    for i, tok in enumerate(_FLINK_TOKEN.findall(text[m.end() - 1:])):
        depth += tok == "("
        depth -= tok == ")"
        if depth == 0:
            return i == len(_FLINK_TOKEN.findall(text[m.end() - 1:])) - 1
    return False


def _and(first: str, second: str) -> str:
    """``first AND second`` (DuckDB SQL), each operand parenthesized."""
    return Compiled(f"({first}) AND ({second})", f"({flink_text(first)}) AND ({flink_text(second)})",
                    getattr(first, "type", None), getattr(first, "deterministic", True)
                    and getattr(second, "deterministic", True))

