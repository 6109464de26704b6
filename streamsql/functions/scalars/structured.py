"""Flink 2.3's structured types: OBJECT_OF and OBJECT_UPDATE.

A structured value is a ROW with a class name (:meth:`SqlType.structured`, an Arrow struct):
``OBJECT_OF('com.example.User', 'name', n, 'age', a)`` is a ``STRUCTURED<'com.example.User',
`name` STRING, `age` INT>`` whose fields are read as a ROW's (``u.name``), printed as a ROW's
(``+I[Bob, 42]``), written to a ROW or a STRUCTURED column, and written as JSON by JSON_STRING
(``{"age":42,"name":"Bob"}``). ``OBJECT_UPDATE(u, 'age', a + 1)`` is ``u`` with fields replaced, its
type the new values' (Flink's TYPEOF: ``age`` INT NOT NULL after ``OBJECT_UPDATE(u, 'age', 1)``).
The class name and the field names are literals; a name given twice (OBJECT_OF), or a field the type
has not (OBJECT_UPDATE), is refused in Flink's words (``Invalid function call``). Checked against
Flink 2.3 by ``scripts/flink_variant.py`` (cases ``object_*``).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.scalars.registry import (
    Call,
    FunctionError,
    invalid_call,
    scalar,
    sql_string,
    template,
)


def _pairs(c: Call, first: int) -> list[tuple[str, int]]:
    """(field name, argument index of its value) of the name/value pairs from argument ``first`` on.

    Raises:
        FunctionError: an odd count, a name that is not a string literal, or one given twice.
    """
    rest = len(c.args) - first
    if rest < (0 if c.name.upper() == "OBJECT_OF" else 2) or rest % 2:
        raise _invalid(c, "the fields come in name, value pairs")
    out: list[tuple[str, int]] = []
    for i in range(first, len(c.args), 2):
        name = c.args[i].value() if c.args[i].is_literal else None
        if not isinstance(name, str):
            raise _invalid(c, "a field name is a string literal")
        if any(n == name for n, _ in out):
            raise _invalid(c, f"The field name '{name}' is given more than once")
        out.append((name, i + 1))
    return out


def _invalid(c: Call, why: str) -> FunctionError:
    """Flink's ``Invalid function call`` of ``c``, then why (in StreamSQL's words)."""
    return c.fail(invalid_call(c.name.upper(), [a.type for a in c.args], f"Invalid input arguments: {why}"))


def _class_name(c: Call) -> str:
    name = c.args[0].value() if c.args[0].is_literal else None
    if not isinstance(name, str) or not name.strip():
        raise _invalid(c, "the class name is a non-empty string literal")
    return name


def _value_type(c: Call, i: int) -> SqlType:
    t = c.args[i].type
    if t is None or t.name == "NULL":
        raise _invalid(c, "a field's value has a type (CAST an untyped NULL)")
    return t


def _object_of_type(c: Call) -> SqlType:
    """``STRUCTURED<'class', name type, ...>`` of the values' types."""
    return SqlType.structured(_class_name(c), [(n, _value_type(c, i)) for n, i in _pairs(c, 1)])


def _update_type(c: Call) -> SqlType:
    """The object's type with the updated fields' types replaced by the new values' types."""
    t = c.args[0].type
    if t is None or t.class_name is None:
        raise _invalid(c, "the first argument is a structured object (OBJECT_OF)")
    new = dict(_pairs(c, 1))
    for name in new:
        if t.field(name) is None or t.field(name)[1] != name:
            raise _invalid(c, f"The field name '{name}' is not a field of {t}")
    fields = [(n, _value_type(c, new[n]) if n in new else ft) for n, ft in t.fields]
    return SqlType.structured(t.class_name, fields)


def _pack(fields: list[tuple[str, str]]) -> str:
    """DuckDB SQL of a struct of ``(name, DuckDB SQL)`` fields, in order."""
    return "struct_pack(" + ", ".join(f'"{n.replace(chr(34), chr(34) * 2)}" := {v}' for n, v in fields) + ")"


@scalar("OBJECT_OF", group="collection", sig=(("STRING", "ANY..."),), result=_object_of_type,
        cast=False, nulls="never NULL (a NULL value is a NULL field)")
def object_of(c: Call) -> exp.Expression:
    """OBJECT_OF(class, name, value, ...): a structured object of the named fields."""
    _object_of_type(c)
    return template(_pack([(n, f"{{{i}}}") for n, i in _pairs(c, 1)]), *c.args)


@scalar("OBJECT_UPDATE", group="collection", sig=(("ANY", "ANY..."),), result=_update_type,
        cast=False, nulls="NULL if the object is NULL")
def object_update(c: Call) -> exp.Expression:
    """OBJECT_UPDATE(object, name, value, ...): the object with the named fields given new values."""
    t = _update_type(c)
    new = dict(_pairs(c, 1))
    fields = [(n, f"{{{new[n]}}}" if n in new else f"struct_extract({{0}}, {sql_string(n)})")
              for n, _ in t.fields]
    return template(f"CASE WHEN {{0}} IS NOT NULL THEN {_pack(fields)} END", *c.args)
