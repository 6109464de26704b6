"""The BITMAP scalar functions of Flink 2.3 (FLIP-556), computed with pyroaring over whole batches.

A BITMAP value is RoaringBitmap's portable serialization in an Arrow ``binary`` column
(:mod:`streamsql.core.bitmap`). Each function below is a Python function over the batch's Arrow
arrays, called from DuckDB (:func:`~.registry.python_call`); every one is NULL when an argument
is NULL. Semantics and types, as Flink's ``BuiltInFunctionDefinitions`` and its
``functions/scalar/Bitmap*Function`` (checked with PyFlink 2.3, ``scripts/flink_bitmap.py``):

============================ ===================== ================================================
call                         result                value
============================ ===================== ================================================
``BITMAP_BUILD(array)``      BITMAP                the set of the ARRAY<INT>'s non-NULL elements
                                                   (an ARRAY of TINYINT / SMALLINT too), each read
                                                   unsigned (-1 is 4294967295)
``BITMAP_CARDINALITY(b)``    BIGINT                the number of elements
``BITMAP_AND/OR/XOR(a, b)``  BITMAP                intersection, union, symmetric difference
``BITMAP_ANDNOT(a, b)``      BITMAP                the elements of ``a`` not in ``b``
``BITMAP_TO_ARRAY(b)``       ARRAY<INT>            the elements ascending as unsigned, as Java ints
                                                   (``[0, 2147483647, -2147483648]``)
``BITMAP_TO_BYTES(b)``       BYTES                 the portable serialization, run-optimized
``BITMAP_FROM_BYTES(bytes)`` BITMAP                the bitmap the bytes hold; bytes that hold none
                                                   fail the job (as Flink's)
``BITMAP_TO_STRING(b)``      STRING                ``{1,2,4294967295}`` (RoaringBitmap.toString)
============================ ===================== ================================================

Another argument type is refused at planning with Flink's ``Invalid input arguments. Expected
signatures are: ...`` (the registry's :func:`~.registry.expected_signatures`; another number of
arguments: Calcite's ``No match found for function signature``); a BITMAP_FROM_BYTES of a string
with its own ``Unsupported argument type. Expected type of family 'BINARY_STRING' ...`` (the
registry's ``refusal`` too).
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
from pyroaring import BitMap

from streamsql.core import bitmap
from streamsql.core.types import SqlType
from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.registry import Call, expected_signatures, python_call, scalar, template

BITMAP = SqlType("BITMAP")
_INT_ELEMENTS = ("TINYINT", "SMALLINT", "INT")
_GROUP = "bitmap"


def _from_array(c: Call) -> SqlType:
    """BITMAP, for an ARRAY of TINYINT, SMALLINT or INT (Flink's implicit cast to ARRAY<INT>).

    Raises:
        FunctionError: an ARRAY of other elements, as the binder refuses other types (Flink's
            ``Invalid input arguments. Expected signatures are: ...``).
    """
    t = c.args[0].type
    if t is not None and t.name == "ARRAY" and t.children[0].name not in (*_INT_ELEMENTS, "NULL"):
        raise c.fail(_BUILD_REFUSAL("BITMAP_BUILD", [t]))
    return BITMAP


def _binary_refusal(name: str, types: list) -> str:
    """BITMAP_FROM_BYTES of another type than BYTES, in Flink's words (its input type strategy)."""
    return (f"Unsupported argument type. Expected type of family 'BINARY_STRING' but actual type was "
            f"'{types[0]}'.")


def _call(label: str, fn: Callable, params: tuple[str, ...], returns: str, out: pa.DataType):
    """A build calling ``fn`` per row of whole batches (NULL in, NULL out)."""
    return python_call(label, lambda *arrays: rowwise(fn, arrays, out), params, returns)


def _build(values: list) -> bytes:
    return bitmap.to_bytes(BitMap(bitmap.element(v) for v in values if v is not None))


def _binary(op: Callable[[BitMap, BitMap], BitMap]) -> Callable[[bytes, bytes], bytes]:
    return lambda a, b: bitmap.to_bytes(op(bitmap.from_bytes(a), bitmap.from_bytes(b)))


def _one(name: str, result: SqlType, fn: Callable, returns: str, out: pa.DataType, **extra) -> None:
    """Register ``name(bitmap)``."""
    scalar(name, group=_GROUP, sig=(("BITMAP",),), result=lambda c: result, cast=False,
           refusal=expected_signatures(name, ("bitmap <BITMAP>",)), **extra)(
        _call(name, fn, ("BLOB",), returns, out))


_BUILD_REFUSAL = expected_signatures("BITMAP_BUILD", ("array <ARRAY<INT>>",))
_OPS = {"BITMAP_AND": BitMap.__and__, "BITMAP_OR": BitMap.__or__, "BITMAP_XOR": BitMap.__xor__,
        "BITMAP_ANDNOT": BitMap.__sub__}
for _name, _op in _OPS.items():
    scalar(_name, group=_GROUP, sig=(("BITMAP", "BITMAP"),), result=lambda c: BITMAP, cast=False,
           refusal=expected_signatures(_name, ("a <BITMAP>", "b <BITMAP>")))(
        _call(_name, _binary(_op), ("BLOB", "BLOB"), "BLOB", pa.binary()))

scalar("BITMAP_BUILD", group=_GROUP, sig=(("ARRAY",),), result=_from_array, cast=False,
       refusal=_BUILD_REFUSAL, nulls="NULL if the array is NULL; its NULL elements are skipped")(
    _call("BITMAP_BUILD", _build, ("INTEGER[]",), "BLOB", pa.binary()))
scalar("BITMAP_FROM_BYTES", group=_GROUP, sig=(("BYTES",),), result=lambda c: BITMAP, cast=False,
       refusal=_binary_refusal,
       nulls="NULL if the bytes are NULL; bytes that hold no bitmap fail the job (as Flink's)")(
    _call("BITMAP_FROM_BYTES", lambda b: bitmap.to_bytes(bitmap.from_bytes(b)), ("BLOB",), "BLOB",
          pa.binary()))
_one("BITMAP_CARDINALITY", SqlType("BIGINT"), lambda b: len(bitmap.from_bytes(b)), "BIGINT", pa.int64())
_one("BITMAP_TO_ARRAY", SqlType.array(SqlType("INT")),
     lambda b: [bitmap.signed(v) for v in bitmap.from_bytes(b)], "INTEGER[]", pa.list_(pa.int32()))
_one("BITMAP_TO_BYTES", SqlType("BYTES"), lambda b: bitmap.to_bytes(bitmap.from_bytes(b)), "BLOB",
     pa.binary())
def _texts(a: pa.ChunkedArray) -> pa.Array:
    return rowwise(lambda b: bitmap.text(bitmap.from_bytes(b)), (a,), pa.string())


_TEXT = register(VectorFunction("__streamsql_bitmap_text", "Function BITMAP_TO_STRING", _texts, ("BLOB",),
                                "VARCHAR"))


def text_sql(arg: str) -> str:
    """DuckDB SQL of a BITMAP's text (``arg``: compiled SQL of a BITMAP): BITMAP_TO_STRING's, CAST's."""
    return f"{_TEXT.name}({arg})"


scalar("BITMAP_TO_STRING", group=_GROUP, sig=(("BITMAP",),), result=lambda c: SqlType("STRING"), cast=False,
       refusal=expected_signatures("BITMAP_TO_STRING", ("bitmap <BITMAP>",)))(
    lambda c: template(text_sql("{0}"), c.args[0]))
