"""Names of user functions that are the same in every process, for what compares across processes.

A scalar Python UDF is called in DuckDB as ``__udf_<n>_<types>`` and a user aggregate is
registered as ``udaf_<n>_<name>``, ``n`` counting the functions the process has declared (the
names must be unique in the process). So one function has another name after a restart, or
declared again, and two functions can have one name in two processes. What a checkpoint records
(state signatures, :mod:`streamsql.plan.state_signature`) names them through :func:`stable_sql`
instead: by SQL name and Python module and qualified name.
"""

from __future__ import annotations

import re

#: the numbered prefix of a declared function's name -> the same without the number.
_STABLE: dict[str, str] = {}
_NUMBERED = re.compile(r"__udf_\d+_|\budaf_\d+_")


def remember(numbered: str, name: str, where: str) -> None:
    """Record that the prefix ``numbered`` (``__udf_3_``, ``udaf_4_``) is function ``name`` at ``where``."""
    kind = "__udf" if numbered.startswith("__udf_") else "udaf"
    _STABLE[numbered] = f"{kind}_py[{name}={where}]_"


def stable_sql(text: str) -> str:
    """``text`` with each numbered user function's name replaced by its name in every process.

    >>> remember("__udf_41_", "bucket", "mod.bucket10")
    >>> stable_sql("CAST(__udf_41_integer(x) AS INT) + __udf_999_integer(y)")
    'CAST(__udf_py[bucket=mod.bucket10]_integer(x) AS INT) + __udf_999_integer(y)'
    """
    return _NUMBERED.sub(lambda m: _STABLE.get(m.group(0), m.group(0)), text)
