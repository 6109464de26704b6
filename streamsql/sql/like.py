"""``CREATE TABLE t2 (...) WITH (...) LIKE t1 (<like options>)``: Flink's merging of a base table.

The new table starts from the base table's columns (in their order, its own columns after them),
watermark, primary key and options, as Flink's ``MergeTableLikeUtil``. Each feature has a
strategy: ``INCLUDING`` (take the base's, fail on a clash with the new table's), ``EXCLUDING``
(leave the base's out) or ``OVERWRITING`` (take the base's, the new table's win a clash).
Without options, every feature is INCLUDING except OPTIONS, which is OVERWRITING; ``ALL`` sets
every feature first, then the other options apply whatever their order. Physical columns of the
base are always included. The messages are Flink 2.3's (``scripts/flink_catalog.py`` records them).
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from streamsql.core.catalog import ColumnDef, TableDef, WatermarkDef
from streamsql.core.secrets import masked
from streamsql.sql.parser import error_at

FEATURES = ("CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS")
"""The features a like option names, besides ``ALL`` (Flink's ``SqlTableLike.FeatureOption``)."""
_DEFAULTS = dict.fromkeys(FEATURES, "INCLUDING") | {"OPTIONS": "OVERWRITING"}
# Flink's SqlTableLike.validate: strategies a feature does not take.
_ILLEGAL = {("OVERWRITING", "ALL"), ("OVERWRITING", "CONSTRAINTS"), ("OVERWRITING", "PARTITIONS")}


def strategies(like: exp.LikeProperty, sql: str) -> dict[str, str]:
    """Each feature's strategy (``INCLUDING``, ``EXCLUDING`` or ``OVERWRITING``) for ``like``'s options.

    Raises:
        SqlError: Flink's "Each like option feature can be declared only once." or "Illegal
            merging strategy 'OVERWRITING' for 'CONSTRAINTS' option.", at the option.
    """
    options = [(o.name.upper(), o.text("value").upper(), o) for o in like.expressions]
    seen: set[str] = set()
    for strategy, feature, node in options:
        if feature in seen:
            raise error_at(node, "Each like option feature can be declared only once.", sql)
        seen.add(feature)
        if (strategy, feature) in _ILLEGAL:
            raise error_at(node, f"Illegal merging strategy '{strategy}' for '{feature}' option.", sql)
    result = dict(_DEFAULTS)
    for strategy, feature, _ in options:
        if feature == "ALL":
            result = dict.fromkeys(FEATURES, strategy)
    for strategy, feature, _ in options:
        if feature != "ALL":
            result[feature] = strategy
    return result


def merge_columns(base: TableDef, new: list[tuple[ColumnDef, exp.Expr]], how: dict[str, str],
                  sql: str) -> list[ColumnDef]:
    """The base table's columns (computed / metadata ones per GENERATED / METADATA), then ``new``'s.

    ``new``: each declared column with the node to point at.

    Raises:
        SqlError: Flink's "A column named 'id' already exists in the base table." (a physical
            column, or one of another kind), or "A generated column named 'c' already exists in
            the base table. You might want to specify EXCLUDING GENERATED or OVERWRITING
            GENERATED." (and the METADATA counterpart) under INCLUDING.
    """
    merged = [replace(c) for c in base.columns
              if not (c.computed is not None and how["GENERATED"] == "EXCLUDING")
              and not (c.metadata_key is not None and how["METADATA"] == "EXCLUDING")]
    for column, at in new:
        index = next((i for i, c in enumerate(merged) if c.name.lower() == column.name.lower()), None)
        if index is None:
            merged.append(column)
            continue
        old = merged[index]
        feature = "GENERATED" if column.computed is not None else "METADATA" if column.metadata_key else None
        same_kind = feature is not None and (old.computed is not None) == (column.computed is not None) and (
            (old.metadata_key is not None) == (column.metadata_key is not None))
        if not same_kind:
            raise error_at(at, f"A column named '{column.name}' already exists in the base table.", sql)
        if how[feature] == "INCLUDING":
            kind = "generated" if feature == "GENERATED" else "metadata"
            msg = (f"A {kind} column named '{column.name}' already exists in the base table. You might want "
                   f"to specify EXCLUDING {feature} or OVERWRITING {feature}.")
            raise error_at(at, msg, sql)
        merged[index] = column  # OVERWRITING: in the base column's place, as Flink's
    return merged


def base_watermark(base: TableDef, new: exp.WatermarkColumnConstraint | None, how: dict[str, str],
                   sql: str) -> WatermarkDef | None:
    """The base table's watermark if it is kept; None when WATERMARKS is EXCLUDING or ``new`` overwrites it.

    Raises:
        SqlError: Flink's "There already exists a watermark spec for column 'ts' in the base
            table. You might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS."
    """
    wm = base.watermark
    if wm is None or how["WATERMARKS"] == "EXCLUDING":
        return None
    if new is not None and new.this.name.lower() == wm.column.lower():
        if how["WATERMARKS"] == "INCLUDING":
            msg = (f"There already exists a watermark spec for column '{wm.column}' in the base table. You "
                   "might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.")
            raise error_at(new.this, msg, sql)
        return None
    return wm


def base_primary_key(base: TableDef, new: exp.Expr | None, how: dict[str, str], sql: str) -> list[str]:
    """The base table's primary key if CONSTRAINTS is INCLUDING (else none).

    Raises:
        SqlError: Flink's "The base table already has a primary key. You might want to specify
            EXCLUDING CONSTRAINTS." when the new table declares one too.
    """
    if not base.primary_key or how["CONSTRAINTS"] == "EXCLUDING":
        return []
    if new is not None:
        msg = "The base table already has a primary key. You might want to specify EXCLUDING CONSTRAINTS."
        raise error_at(new, msg, sql)
    return list(base.primary_key)


def base_partition_keys(base: TableDef, new: exp.Expr | None, how: dict[str, str], sql: str) -> list[str]:
    """The base table's partition keys if PARTITIONS is INCLUDING (else none).

    Raises:
        SqlError: Flink's "The base table already has partitions defined. You might want to
            specify EXCLUDING PARTITIONS." when the new table declares its own.
    """
    if not base.partition_keys or how["PARTITIONS"] == "EXCLUDING":
        return []
    if new is not None:
        msg = "The base table already has partitions defined. You might want to specify EXCLUDING PARTITIONS."
        raise error_at(new, msg, sql)
    return list(base.partition_keys)


def check_key_columns(key: list[str], base: TableDef, new_names: set[str], at: exp.Expr, sql: str) -> None:
    """A new primary key on a nullable column of the base table fails, as Flink's.

    Columns declared by the new statement become NOT NULL in a key; the base's keep their type.

    Raises:
        SqlError: Flink's "Invalid primary key 'PK_ts'. Column 'ts' is nullable."
    """
    for name in key:
        column = base.column(name)
        if name.lower() not in new_names and column is not None and column.type is not None \
                and column.type.nullable:
            msg = f"Invalid primary key 'PK_{'_'.join(key)}'. Column '{column.name}' is nullable."
            raise error_at(at, msg, sql)


def merge_options(base: TableDef, new: dict[str, str], keys: dict[str, exp.Expr], how: dict[str, str],
                  sql: str) -> dict[str, str]:
    """The base's options per OPTIONS, with the new table's (``keys``: each new key's node).

    Raises:
        SqlError: Flink's "There already exists an option ['k' -> 'v']  in the base table. You
            might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS." under INCLUDING.
    """
    if how["OPTIONS"] == "EXCLUDING":
        return dict(new)
    if how["OPTIONS"] == "INCLUDING":
        for key in new:
            if key in base.options:
                msg = (f"There already exists an option ['{key}' -> '{masked(key, base.options[key])}']  in "
                       "the base table. You might want to specify EXCLUDING OPTIONS or OVERWRITING OPTIONS.")
                raise error_at(keys[key], msg, sql)
    return {**base.options, **new}
