"""Jayway JsonPath's path functions (``$.a.length()``, ``$.a.sum()``), as Flink 2.3 evaluates them.

A function step applies to what the path found before it (its "model"), as Jayway 2.9's
``PathFunction`` classes, with their quirks kept (Flink's answers are Jayway's):

- ``min``, ``max``, ``avg``, ``sum``, ``stddev``: a ``Double`` over the numbers of an array model
  (other elements skipped) and of the parameters; none at all is an error ("Aggregation function
  attempted to calculate value using empty array"), in lax mode too. ``max`` starts from Java's
  ``Double.MIN_VALUE`` (4.9E-324), so the max of negative numbers is 4.9E-324, as Jayway's;
- ``length`` / ``size``: an ``Integer``, the size of an array or the member count of an object,
  else no value (null);
- ``keys``: the member names of an object (a JSON array), else null;
- ``first``, ``last``, ``index(n)``: an array's element (``last`` / a negative index of an array
  of one element is an error, as Jayway's ``realIndex > 0``); not an array: an error;
- ``concat(...)``: the strings of an array model, then the parameters, as one string;
- ``append(...)``: the array model with the parameters appended (the model itself otherwise).

A ``Double`` is a Python ``float`` here (documents never hold one: Flink's Jackson reads a
fraction as a ``BigDecimal``, a ``Decimal`` here). Parameters are JSON (a ``{``, a digit, ``"``
or ``-`` starts one) or paths evaluated from the document (``$``, ``@``); anything else is dropped
as Jayway's parameter reader drops it.
"""

from __future__ import annotations

import math
from decimal import Decimal

from streamsql.functions.scalars.json_errors import JsonPathFailure


class KeySet(list):
    """``keys()``'s result: Jackson's ``LinkedHashMap.keySet()``, a ``Set``.

    Written as a JSON array but no ``List``: JSON_QUERY ... RETURNING ARRAY<STRING> of it is an
    error, as Flink's cast.
    """


NAMES = ("avg", "stddev", "sum", "min", "max", "concat", "length", "size", "append", "keys", "first", "last",
         "index")


def _numbers(model, params: list) -> list[float]:
    """The ``doubleValue`` of each number of an array model, then of the parameters' values."""
    values = [v for v in model if _is_number(v)] if isinstance(model, list) else []
    for p in params:
        values += [v for v in p if _is_number(v)] if isinstance(p, list) else [p] if _is_number(p) else []
    return [float(v) for v in values]


def _is_number(v) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _aggregate(name: str, xs: list[float]) -> float:
    if not xs:
        msg = "Aggregation function attempted to calculate value using empty array"
        raise JsonPathFailure(msg)
    if name == "sum":
        total = 0.0
        for x in xs:
            total += x
        return total
    if name == "avg":
        total = 0.0
        for x in xs:
            total += x
        return total / len(xs)
    if name == "min":
        low = 1.7976931348623157e308
        for x in xs:
            low = min(low, x)
        return low
    if name == "max":
        high = 5e-324  # Java's Double.MIN_VALUE, Jayway's start
        for x in xs:
            high = max(high, x)
        return high
    total = squares = 0.0  # stddev: sqrt(E[x^2] - E[x]^2), Jayway's formula
    for x in xs:
        total += x
        squares += x * x
    n = float(len(xs))
    return math.sqrt(squares / n - total * total / n / n)


def _element(model, index: int):
    if not isinstance(model, list):
        msg = "Aggregation function attempted to calculate value using empty array"
        raise JsonPathFailure(msg)
    if index >= 0:
        if index >= len(model):
            msg = f"Index {index} out of bounds for length {len(model)}"
            raise JsonPathFailure(msg)
        return model[index]
    real = len(model) + index
    if real > 0:
        return model[real]
    msg = f"Target index:{index} larger than object count:{len(model)}"
    raise JsonPathFailure(msg)


def _strings(value) -> list[str]:
    """``Parameter.consume`` of a value as strings: each non-null element's (or its own) text."""
    from streamsql.functions.scalars.json_path import java_text  # noqa: PLC0415  (json_path imports this module)

    items = value if isinstance(value, list) else [value]
    return [v if isinstance(v, str) else java_text(v) for v in items if v is not None]


def invoke(name: str, model, params: list):
    """Jayway's function ``name`` over ``model`` with the parameters' values ``params``.

    Raises:
        JsonPathFailure: Jayway's ``JsonPathException`` (an aggregation over no numbers, an element
            out of range, a sequence function over a non-array): an error in either mode.
    """
    if name in ("avg", "stddev", "sum", "min", "max"):
        return _aggregate(name, _numbers(model, params))
    if name in ("length", "size"):
        return len(model) if isinstance(model, (list, dict)) else None
    if name == "keys":
        return KeySet(model) if isinstance(model, dict) else None
    if name == "first":
        return _element(model, 0)
    if name == "last":
        return _element(model, -1)
    if name == "index":
        numbers = [p for p in params if _is_number(p)]
        if not numbers:
            msg = "Index 0 out of bounds for length 0"
            raise JsonPathFailure(msg)
        return _element(model, int(numbers[0]))
    if name == "concat":
        parts = [v for v in model if isinstance(v, str)] if isinstance(model, list) else []
        for p in params:
            parts += _strings(p)
        return "".join(parts)
    # append
    if isinstance(model, list):
        model.extend(params)
    return model
