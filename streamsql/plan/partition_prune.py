"""Partition pruning: a WHERE on a partitioned filesystem table's partition columns picks its folders.

As Flink's ``PushPartitionIntoTableSourceScanRule`` (the filesystem source is
``SupportsPartitionPushDown``), a scan read by one Calc whose condition has conjuncts on partition
columns only reads the folders those conjuncts allow: ``k = 'u'``, ``k IN ('u', 'v')``, ``k IS
NULL`` (the ``'partition.default-name'`` folder), ``d = 3`` (an integer, DECIMAL, DOUBLE or FLOAT
key: compared as numbers, ``1.50`` picks the folder ``1.5``). The Calc still filters every row, so
pruning only saves reading: a conjunct of another form (``k LIKE 'u%'``, a cast, an OR) prunes
nothing. Partition columns of CHAR(n) type are not pruned (their values are padded when read).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import duckdb
import sqlglot
from sqlglot import exp

from streamsql.connectors.partitions import INTEGER_TYPES, canonical_text, literal_text
from streamsql.plan.nodes import CalcNode, PlanNode, ScanNode, readers_of

#: The types a literal is compared with a folder's text for (STRING/VARCHAR: as is; numbers: as numbers).
_TEXT = ("STRING", "VARCHAR")
_NUMBERS = (*INTEGER_TYPES, "DECIMAL", "DOUBLE", "FLOAT")
#: Keys compared with a constant expression's value (evaluated by DuckDB): ``p = DATE '2024-01-05'``.
_TYPED = ("DECIMAL", "DOUBLE", "FLOAT", "DATE", "TIME", "TIMESTAMP")


def partition_filters(nodes: list[PlanNode]) -> dict[int, dict[str, frozenset[str | None]]]:
    """For each scan (by ``id``) whose partitions a WHERE prunes: partition key -> the values allowed.

    A value is a folder's text (an integer's digits, a string as is) or None (NULL: the default
    partition). Scans of tables without partitions, and those read by anything but one Calc
    with a condition, are absent.
    """
    readers = readers_of(nodes)
    out = {}
    for node in nodes:
        if not isinstance(node, ScanNode) or not getattr(node.table, "partition_keys", None):
            continue
        calcs = readers.get(id(node), [])
        if len(calcs) != 1 or not isinstance(calcs[0], CalcNode) or not calcs[0].query.condition:
            continue
        allowed = _allowed(calcs[0].query.condition, node)
        if allowed:
            out[id(node)] = allowed
    return out


def _allowed(condition: str, scan: ScanNode) -> dict[str, frozenset[str | None]]:
    try:
        tree = sqlglot.parse_one(condition, read="duckdb")
    except sqlglot.errors.ParseError:
        return {}
    keys = {}
    for k in scan.table.partition_keys:
        col = scan.table.column(k)
        name = col.type.name.upper() if col is not None and col.type is not None else ""
        if name in _TEXT or name in _NUMBERS or name in _TYPED:
            keys[k.lower()] = (k, name)
    out: dict[str, frozenset[str | None]] = {}
    for conjunct in tree.flatten() if isinstance(tree, exp.And) else [tree]:
        found = _values(conjunct, keys)
        if found is not None:
            key, values = found
            out[key] = out[key] & values if key in out else values
    return out


def _values(e: exp.Expr, keys: dict) -> tuple[str, frozenset[str | None]] | None:
    """``(key, allowed values)`` of one conjunct, or None when it is no partition filter we read."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
        key = _key(e.this, keys)
        return (key[0], frozenset([None])) if key else None
    if isinstance(e, exp.EQ):
        col, lit = (e.this, e.expression) if isinstance(e.this, exp.Column) else (e.expression, e.this)
        key = _key(col, keys)
        text = _text(lit, key)
        return (key[0], frozenset([text])) if key and text is not None else None
    if isinstance(e, exp.In) and not e.args.get("query"):
        key = _key(e.this, keys)
        texts = [_text(v, key) for v in e.expressions]
        return (key[0], frozenset(texts)) if key and texts and None not in texts else None
    return None


def _key(col: exp.Expr, keys: dict) -> tuple[str, str] | None:
    if not isinstance(col, exp.Column) or col.table:
        return None
    return keys.get(col.name.lower())


def _text(lit: exp.Expr, key: tuple[str, str] | None) -> str | None:
    """The folder text a literal equals for the key's type, or None (not a literal of that type)."""
    if key is not None and key[1] in _TYPED and not isinstance(lit, exp.Literal):
        return _constant_text(lit, key[1])
    if key is None or not isinstance(lit, exp.Literal):
        return None
    if key[1] in _NUMBERS:
        if lit.is_string or (key[1] in INTEGER_TYPES and not lit.this.lstrip("-").isdigit()):
            return None
        try:
            Decimal(lit.this)
        except InvalidOperation:
            return None
        return canonical_text(lit.this, key[1])  # 007 is 7, 1.50 is 1.5
    return lit.this if lit.is_string else None


def _constant_text(e: exp.Expr, kind: str) -> str | None:
    """The folder text a constant expression (no column: a cast, a DATE literal) equals, or None.

    Evaluated by DuckDB as the Calc would; None for an expression with a column or one that fails.
    """
    if e.find(exp.Column) is not None:
        return None
    try:
        with duckdb.connect() as con:
            value = con.execute(f"SELECT {e.sql(dialect='duckdb')}").fetchall()[0][0]
    except duckdb.Error:
        return None
    return canonical_text(literal_text(value), kind) if value is not None else None
