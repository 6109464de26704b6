"""TO_CHANGELOG and FROM_CHANGELOG, Flink 2.3's built-in process table functions, in FROM.

As Flink 2.3 (``BuiltInFunctionDefinitions.TO_CHANGELOG`` / ``FROM_CHANGELOG``, their type
strategies and ``ToChangelogFunction`` / ``FromChangelogFunction``; answers recorded by
``scripts/flink_changelog_ptf.py`` in ``tests/runtime/changelog_ptf_flink.json``):

- ``TO_CHANGELOG(input => TABLE t [, op => DESCRIPTOR(c)] [, op_mapping => MAP[...]])`` turns any
  table (insert-only or updating; an upsert input gets its -U rows, Flink's REQUIRE_UPDATE_BEFORE)
  into an append-only one: each row becomes a +I row led by a STRING column (``op`` unless the
  descriptor names another) holding its change operation's code: ``INSERT``, ``UPDATE_BEFORE``,
  ``UPDATE_AFTER``, ``DELETE`` by default. ``op_mapping`` maps change operation names (several
  comma-separated in one key, trimmed) to codes; an operation no key names is dropped.
- ``FROM_CHANGELOG(input => TABLE t [, op => DESCRIPTOR(c)] [, op_mapping => MAP[...]])`` reads an
  append-only table with a STRING op column (``op`` by default) as a changelog (retract mode
  +I/-U/+U/-D, no primary key): each row's op code gives its row kind, and the op column is
  dropped. ``op_mapping`` maps codes (several comma-separated in one key, trimmed) to change
  operation names; the default maps each name to itself; a code in two keys is refused (Flink's
  job fails to build: ``Duplicate key c (attempted merging values INSERT and DELETE)``).
  Keys split as Java's ``String.split(",")``: trailing empty names dropped (:func:`_split_key`).
  A code that is NULL or not mapped fails the job (:mod:`streamsql.runtime.operators.changelog_ptf`).

Both have row semantics (no state): a ``PARTITION BY`` on the table argument is refused, as
Flink 2.3's validator does. Parameters in Flink's order: ``input, op, op_mapping, on_time, uid``
(the last two every PTF's); ``on_time`` is not supported here yet (refused at the argument).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pyarrow as pa
from sqlglot import exp

from streamsql.plan.nodes import INSERT_ONLY, RETRACT, PlanNode
from streamsql.sql import nodes as syntax

#: Flink's change operation names (``RowKind.name()``), by row kind byte (+I, -U, +U, -D).
KIND_NAMES: tuple[str, ...] = ("INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE")
_VALID = f"[{', '.join(KIND_NAMES)}]"
_MAPPING = "Invalid target mapping for argument 'op_mapping'."
_UNKNOWN = _MAPPING + " Unknown change operation: '{}'. Valid values are: " + _VALID + "."
_DUPLICATE = _MAPPING + " Duplicate change operation: '{}'."
_DUPLICATE_HINT = (" Use comma-separated keys to map multiple codes to the same operation "
                   "(e.g., MAP['c, r', 'INSERT']).")
_UPSERT = ("The 'op_mapping' must include UPDATE_BEFORE for retract mode. Upsert mode (without "
           "UPDATE_BEFORE) is not supported in this version.")


@dataclass(eq=False)
class ChangelogFunctionNode(PlanNode):
    """TO_CHANGELOG (insert-only output) or FROM_CHANGELOG (retract output), stateless.

    Attributes:
        function: ``TO_CHANGELOG`` or ``FROM_CHANGELOG``.
        passed: input column indexes passed on, in output order (TO_CHANGELOG's op column first).
        op_index: FROM_CHANGELOG: the input's op column index (-1 for TO_CHANGELOG).
        to_codes: TO_CHANGELOG: row kind byte → code (a kind not in it is dropped).
        from_kinds: FROM_CHANGELOG: code → row kind byte.
        invocation: the call as EXPLAIN shows it; uid: the ``uid`` argument or None.
    """

    function: str = ""
    passed: list[int] = field(default_factory=list)
    op_index: int = -1
    to_codes: dict[int, str] = field(default_factory=dict)
    from_kinds: dict[str, int] = field(default_factory=dict)
    invocation: str = ""
    uid: str | None = None

    kind: ClassVar[str] = "changelog-ptf"

    def describe(self) -> str:
        """One line for EXPLAIN, as Flink's ``ProcessTableFunction``."""
        return (f"ProcessTableFunction(invocation=[{self.invocation}], uid=[{self.uid or 'null'}], "
                f"select=[{','.join(self.schema.names)}])")


def plan_changelog_call(planner, call: syntax.ChangelogCall) -> PlanNode:
    """The node of ``call``, over its planned table argument (the planner's FROM hook).

    Raises:
        SqlError: what Flink 2.3 refuses, in its words, at the argument at fault: a missing
            input (``DEFAULT is only allowed for optional parameters``) or one that is no table,
            PARTITION BY, a descriptor of more than one column, a mapping that
            is not a MAP literal or names unknown or repeated change operations, an op column
            clashing with an input column (TO) or missing / not a string (FROM), an updating input
            (FROM), a mapping with UPDATE_AFTER but not UPDATE_BEFORE or a code in two keys
            (FROM); ``on_time``.
    """
    name = call.function
    table = call.args.get("input")
    if table is None:
        planner._fail(call.this, "DEFAULT is only allowed for optional parameters")
    if not table.meta.get("table_arg"):
        planner._fail(table, "Invalid argument value. Argument 'input' expects a table to be passed.")
    partition = call.args.get("partition_by")
    if partition:
        planner._fail(partition[0], "Only tables with set semantics may be partitioned. Invalid PARTITION BY "
                                    f"clause in the 0-th operand of table function '{name}'")
    if call.args.get("on_time") is not None:
        planner._fail(call.args["on_time"], f"{name}(on_time => ...) is not supported yet: the output "
                                            "of TO_CHANGELOG / FROM_CHANGELOG here has no time attribute")
    uid = _string_literal(planner, call.args.get("uid"), "uid")
    op_name = _op_column(planner, call.args.get("op"))
    mapping = _mapping(planner, call.args.get("op_mapping"))
    node, scope = planner._from(table)
    names = [c.name for c in scope.columns]
    indexes = [node.schema.get_field_index(c.internal) for c in scope.columns]
    invocation = _invocation(name, call)
    if name == "TO_CHANGELOG":
        codes = _to_codes(planner, call.args.get("op_mapping"), mapping)
        if op_name in names:
            planner._fail(call.args.get("op") or call.this,
                          f"Field names must be unique. Found duplicates: [{op_name}]")
        fields = [pa.field(op_name, pa.string())] + [_field(node, i, n) for i, n in zip(indexes, names)]
        return ChangelogFunctionNode([node], pa.schema(fields), INSERT_ONLY, function=name, passed=indexes,
                                     to_codes=codes, invocation=invocation, uid=uid)
    if op_name not in names:
        planner._fail(call.args.get("op") or table,
                      f"The op column '{op_name}' does not exist in the input schema.")
    op = scope.columns[names.index(op_name)]
    if op.type.name not in ("STRING", "VARCHAR", "CHAR"):
        planner._fail(call.args.get("op") or table,
                      f"The op column '{op_name}' must be of STRING type, but was '{op.type.sql()}'.")
    if node.mode != INSERT_ONLY:
        planner._fail(table, "StreamPhysicalProcessTableFunction doesn't support consuming update changes "
                             f"which is produced by node {node.describe()} ({name} reads an append-only "
                             "table of op-coded rows)")
    kinds = _from_kinds(planner, call.args.get("op_mapping"), mapping)
    op_at = names.index(op_name)
    keep = [(i, n) for j, (i, n) in enumerate(zip(indexes, names)) if j != op_at]
    fields = [_field(node, i, n) for i, n in keep]
    return ChangelogFunctionNode([node], pa.schema(fields), RETRACT, function=name,
                                 passed=[i for i, _ in keep], op_index=indexes[op_at], from_kinds=kinds,
                                 invocation=invocation, uid=uid)


def _field(node: PlanNode, index: int, name: str) -> pa.Field:
    return node.schema.field(index).with_name(name)


def _op_column(planner, descriptor: exp.Expression | None) -> str:
    """The op column's name: the descriptor's one column, or ``op``."""
    if descriptor is None or isinstance(descriptor, exp.Null):
        return "op"
    if not isinstance(descriptor, syntax.DescriptorArg):
        planner._fail(descriptor, "The argument 'op' must be a DESCRIPTOR(<column name>)")
    if len(descriptor.expressions) != 1:
        planner._fail(descriptor, "The descriptor for argument 'op' must contain exactly one column name.")
    return descriptor.expressions[0].name


def _string_literal(planner, value: exp.Expression | None, what: str) -> str | None:
    if value is None or isinstance(value, exp.Null):
        return None
    if not (isinstance(value, exp.Literal) and value.is_string):
        planner._fail(value, f"The '{what}' argument must be a STRING literal")
    return value.this


def _mapping(planner, value: exp.Expression | None) -> list[tuple[str, str]] | None:
    """The MAP literal's entries in order (a repeated key keeps its last value, as a MAP), or None.

    None when absent or a NULL (``CAST(NULL AS MAP<STRING, STRING>)``: the default mapping).
    """
    if value is None or isinstance(value, exp.Null):
        return None
    if isinstance(value, exp.Cast) and isinstance(value.this, exp.Null):
        return None
    if not isinstance(value, exp.VarMap):
        planner._fail(value, "The 'op_mapping' argument must be a constant MAP literal.")
    keys, values = value.args["keys"].expressions, value.args["values"].expressions
    for item in (*keys, *values):
        if not (isinstance(item, exp.Literal) and item.is_string):
            planner._fail(item, "The 'op_mapping' argument must be a constant MAP literal.")
    entries = dict(zip((k.this for k in keys), (v.this for v in values)))
    return list(entries.items())


def _to_codes(planner, at: exp.Expression, mapping: list[tuple[str, str]] | None) -> dict[int, str]:
    """TO_CHANGELOG: row kind byte → code (each name maps to itself without a mapping)."""
    if mapping is None:
        return dict(enumerate(KIND_NAMES))
    out: dict[int, str] = {}
    for key, code in mapping:
        for kind in _split_key(key):
            if kind not in KIND_NAMES:
                planner._fail(at, _UNKNOWN.format(kind))
            if KIND_NAMES.index(kind) in out:
                planner._fail(at, _DUPLICATE.format(kind))
            out[KIND_NAMES.index(kind)] = code
    return out


def _from_kinds(planner, at: exp.Expression, mapping: list[tuple[str, str]] | None) -> dict[str, int]:
    """FROM_CHANGELOG: code → row kind byte (each name is its own code without a mapping)."""
    if mapping is None:
        return {name: i for i, name in enumerate(KIND_NAMES)}
    out: dict[str, int] = {}
    seen: set[str] = set()
    for codes, target in mapping:
        kind = target.strip()
        if kind not in KIND_NAMES:
            planner._fail(at, _UNKNOWN.format(kind))
        if kind in seen:
            planner._fail(at, _DUPLICATE.format(kind) + _DUPLICATE_HINT)
        seen.add(kind)
        for code in _split_key(codes):
            if code in out:  # Flink's Collectors.toMap, when the job is built
                planner._fail(at, f"Duplicate key {code} (attempted merging values "
                                  f"{KIND_NAMES[out[code]]} and {kind})")
            out[code] = KIND_NAMES.index(kind)
    if "UPDATE_AFTER" in seen and "UPDATE_BEFORE" not in seen:
        planner._fail(at, _UPSERT)
    return out


def _split_key(key: str) -> list[str]:
    """A mapping key's comma-separated names, each trimmed, as Flink's ``key.split(",")``.

    Java's ``String.split`` drops trailing empty strings (``'INSERT,'`` names INSERT only, ``','``
    nothing) but keeps inner and leading ones (``'c,,d'`` names ``''`` too) and a blank one
    (``'c, '`` names ``''``, once trimmed).
    """
    parts = key.split(",")
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if parts == [""] and key:  # only commas: Java gives no names at all
        return []
    return [p.strip() for p in parts]


def _invocation(name: str, call: syntax.ChangelogCall) -> str:
    """``TO_CHANGELOG(TABLE(#0), DESCRIPTOR(o), DEFAULT(), ...)`` as Flink's EXPLAIN shows the call."""
    parts = ["TABLE(#0)"]
    for key in syntax.CHANGELOG_PARAMS[1:]:
        value = call.args.get(key)
        if value is None:
            parts.append("DEFAULT()")
        elif isinstance(value, syntax.DescriptorArg):
            parts.append(f"DESCRIPTOR({', '.join('`' + c.name + '`' for c in value.expressions)})")
        else:
            parts.append(value.sql())
    return f"{name}({', '.join(parts)})"

