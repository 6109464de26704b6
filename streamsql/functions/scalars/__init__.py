"""Scalar functions: the registry, one module per group, and the binder.

Importing this package registers every built-in (the group modules register at import):
:mod:`.string`, :mod:`.text`, :mod:`.conditional`, :mod:`.arithmetic`, :mod:`.temporal`,
:mod:`.clock`, :mod:`.composite`, :mod:`.collections`,
:mod:`.json_functions`, :mod:`.hash`, :mod:`.hash_code`, :mod:`.misc`, :mod:`.formatting`,
:mod:`.utf16`, :mod:`.variant`, :mod:`.structured`.
:func:`~.binder.bind` compiles an expression through the registry; :mod:`.registry` holds the
entries, :mod:`.typerules` Flink's type derivation, :mod:`.operators` the operators whose
semantics differ from DuckDB's and :mod:`.calls` how sqlglot call nodes map to Flink's names
and argument order.
"""

from streamsql.functions.scalars import (  # noqa: F401  (register)
    arithmetic,
    clock,
    collections,
    composite,
    conditional,
    fdlibm,
    formatting,
    hash,
    hash_code,
    json_functions,
    misc,
    string,
    structured,
    temporal,
    text,
    utf16,
    variant,
)
from streamsql.functions.scalars.binder import bind
from streamsql.functions.scalars.registry import REGISTRY, FunctionError, planning_session

__all__ = ["REGISTRY", "FunctionError", "bind", "planning_session"]
