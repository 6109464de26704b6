"""DECIMAL text as Flink 2.3's JSON format writes it by default: ``stripTrailingZeros().toString()``.

Flink's ``JsonRowDataSerializationSchema`` puts a DECIMAL into a Jackson number node, whose
factory strips the trailing zeros (``JsonNodeFactory.numberNode(BigDecimal)``), and writes it
with ``BigDecimal.toString()`` unless ``'json.encode.decimal-as-plain-number' = 'true'`` (then
``toPlainString()`` of the value with its scale, :func:`.common.render_decimal`). Flink 2.3 wrote,
for ``DECIMAL(10, 2)`` values ``100.00``, ``0.00``, ``0.10``, ``1234.50``, ``1500.00``:
``1E+2``, ``0``, ``0.1``, ``1234.5``, ``1.5E+3``; for ``DECIMAL(38, 18)`` ``1E-18`` and ``0.000001``
(recorded in ``tests/connectors/json_encode_flink.json``).

``BigDecimal.toString()`` and Python's ``str(Decimal)`` both follow the General Decimal
Arithmetic "to-scientific-string" rule (plain when the exponent is ≤ 0 and the adjusted exponent
≥ -6), so the values that need exponent notation — an integer ending in ``0`` once stripped, or a
non-zero magnitude below ``1E-6`` — are written by ``Decimal.normalize`` one by one; the others
only lose their fraction's trailing zeros, vectorized.
"""

from __future__ import annotations

import decimal

import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.common import combine, render_decimal
from streamsql.connectors.formats.timestamp_text import TRAILING_ZEROS

_EXPONENT_FORM = r"^-?[0-9]*[1-9]0+$|^-?0\.000000"  # stripped text Java writes with an exponent
_CONTEXT = decimal.Context(prec=100)  # normalize() rounds to the context's precision: keep all 38


def flink_decimal_text(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``BigDecimal.stripTrailingZeros().toString()`` of each value (NULL stays NULL)."""
    text = combine(render_decimal(arr))
    if len(text) == 0:
        return text
    if pc.any(pc.ends_with(text, "0")).as_py():
        text = pc.replace_substring_regex(text, TRAILING_ZEROS, r"\1")
    elif arr.type.scale <= 6:  # nothing to strip, and no magnitude below 1E-6 at this scale
        return text
    sci = pc.fill_null(pc.match_substring_regex(text, _EXPONENT_FORM), False)
    if not pc.any(sci).as_py():
        return text
    java = [str(_CONTEXT.normalize(decimal.Decimal(t))) for t in pc.filter(text, sci).to_pylist()]
    return pc.replace_with_mask(text, sci, pa.array(java, pa.string()))
