"""``DESCRIBE FUNCTION [EXTENDED] f``: a function's info rows, as Flink 2.3's ``DescribeFunctionOperation``.

Rows of ``(info name, info value)``, every value a string (checked against PyFlink 2.3:
``scripts/flink_statements.py``, script ``functions``)::

    is system function   true for a built-in and a TEMPORARY SYSTEM function
    is temporary         true for a TEMPORARY [SYSTEM] function
    class name           the 'module.function' path        (a user function that is not a
    function language    PYTHON                              system one only)
    resource uris        []
    -- with EXTENDED:
    kind                 SCALAR, AGGREGATE, TABLE or PROCESS_TABLE (TO_CHANGELOG, FROM_CHANGELOG)
    requirements         []
    is deterministic     true / false, as declared
    supports constant folding  true
    signature            f(<CHARACTER_STRING>) for a built-in (its argument families in Flink's
                         names); default_catalog.default_database.f(*) for a catalog or temporary
                         function, f(*) for a system one, as Flink prints a Python function's;
                         Flink's own for a built-in PTF (``BUILT_IN_PTF_SIGNATURES``)

The name is looked up as Flink's: a temporary system function, then a built-in, then a user
function (a qualified ``c.db.f`` names a user function: functions are not namespaced here, its
last part is looked up). A built-in's signature lists the argument families of its first
signature (Flink's own type inference may word some differently) under the name as written.
"""

from __future__ import annotations

from streamsql.core.errors import SqlError
from streamsql.functions.aggregates import AGGREGATE_DOCS
from streamsql.functions.scalars.calls import BUILT_IN_PTF_SIGNATURES
from streamsql.functions.scalars.registry import REGISTRY
from streamsql.functions.udaf import UserAggregate
from streamsql.functions.udf import WINDOW_FUNCTIONS, UserFunction
from streamsql.functions.udtf import UserTableFunction

#: Our argument families in Flink's ``LogicalTypeFamily`` names.
_FAMILIES = {"STRING": "CHARACTER_STRING", "BYTES": "BINARY_STRING", "TIMESTAMP": "TIMESTAMP",
             "ANY": "ANY"}
_KINDS = {UserFunction: "SCALAR", UserAggregate: "AGGREGATE", UserTableFunction: "TABLE"}


def _flag(value: bool) -> str:
    return "true" if value else "false"


def describe_function(functions: dict[str, object], parts: tuple[str, ...], extended: bool,
                      persistent: set[str], namespace: tuple[str, str]) -> list[tuple[str, str]]:
    """The info rows of ``DESCRIBE FUNCTION [EXTENDED] parts`` (module docstring).

    Args:
        functions: the session's user functions by upper-case name (``Catalog.functions``).
        parts: the name as written, one to three parts (``f``, ``db.f``, ``c.db.f``).
        extended: EXTENDED.
        persistent: the upper-case names created without TEMPORARY (catalog functions).
        namespace: the current ``(catalog, database)``, for a catalog function's signature.

    Raises:
        SqlError: Flink's "Function with the identifier '`nope`' doesn't exist."
    """
    name = parts[-1]
    user = functions.get(name.upper())
    if not isinstance(user, (UserFunction, UserAggregate, UserTableFunction)):
        user = None
    if len(parts) == 1 and (user is None or not user.system):
        builtin = _builtin(name)
        if builtin is not None:
            kind, families = builtin
            rows = [("is system function", "true"), ("is temporary", "false")]
            signature = (f"{name}{BUILT_IN_PTF_SIGNATURES[name.upper()]}" if kind == "PROCESS_TABLE"
                         else f"{name}({', '.join(f'<{_FAMILIES.get(f, f)}>' for f in families)})")
            return rows + (_extended(kind, True, signature) if extended else [])
    if user is None:
        identifier = ".".join(f"`{p}`" for p in parts)
        msg = f"Function with the identifier '{identifier}' doesn't exist."
        raise SqlError(msg)
    temporary = user.system or name.upper() not in persistent
    rows = [("is system function", _flag(user.system)), ("is temporary", _flag(temporary))]
    if not user.system:
        rows += [("class name", user.path), ("function language", "PYTHON"), ("resource uris", "[]")]
    if extended:
        args = ", ".join(t.sql() for t in user.params) if user.params else "*"
        qualified = user.name if user.system else ".".join((*namespace, user.name))
        rows += _extended(_KINDS[type(user)], user.deterministic, f"{qualified}({args})")
    return rows


def _extended(kind: str, deterministic: bool, signature: str) -> list[tuple[str, str]]:
    return [("kind", kind), ("requirements", "[]"), ("is deterministic", _flag(deterministic)),
            ("supports constant folding", "true"), ("signature", signature)]


def _builtin(name: str) -> tuple[str, tuple[str, ...]] | None:
    """``(kind, argument families)`` of the built-in ``name``, or None."""
    upper = name.upper()
    scalar = REGISTRY.get(upper)
    if scalar is not None:
        first = scalar.signatures[0] if scalar.signatures else ()
        return "SCALAR", tuple(f.rstrip(".") for f in first)
    if any(upper in doc.names for doc in AGGREGATE_DOCS):
        return "AGGREGATE", ("NUMERIC",) if upper in ("SUM", "AVG") else ("ANY",)
    if upper in WINDOW_FUNCTIONS:
        return "AGGREGATE", ()
    if upper in BUILT_IN_PTF_SIGNATURES:
        return "PROCESS_TABLE", ()
    return None
