"""Scalar functions: the registry, one module per group, and the binder.

Importing this package registers every built-in (the group modules register at import):
:mod:`.string`, :mod:`.conditional`, :mod:`.arithmetic`, :mod:`.temporal`, :mod:`.hash`.
:func:`~.binder.bind` compiles an expression through the registry; :mod:`.registry` holds the
entries, :mod:`.typerules` Flink's type derivation, :mod:`.operators` the operators whose
semantics differ from DuckDB's and :mod:`.calls` how sqlglot call nodes map to Flink's names
and argument order.
"""

from streamsql.functions.scalars import arithmetic, conditional, hash, string, temporal  # noqa: F401  (register)
from streamsql.functions.scalars.binder import bind
from streamsql.functions.scalars.registry import REGISTRY, FunctionError

__all__ = ["REGISTRY", "FunctionError", "bind"]
