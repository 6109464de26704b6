"""Hash functions: MD5, SHA1, SHA224, SHA256, SHA384, SHA512, SHA2.

Each is the lower-case hex digest of the string's UTF-8 bytes. DuckDB has MD5, SHA-1 and
SHA-256; SHA-224/384/512 are computed with Python's hashlib over whole batches.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import rowwise
from streamsql.functions.scalars.registry import Call, duckdb_call, fixed, python_call, scalar, template

STRING = fixed("STRING")


def _hashlib(algorithm: str):
    def digest(a: pa.ChunkedArray) -> pa.Array:
        return rowwise(lambda s: hashlib.new(algorithm, s.encode()).hexdigest(), (a,), pa.string())

    return python_call(algorithm.upper(), digest, ("VARCHAR",), "VARCHAR")


_DIGESTS = {224: _hashlib("sha224"), 384: _hashlib("sha384"), 512: _hashlib("sha512"),
            256: lambda c: template("sha256({0})", c.args[0])}


@scalar("SHA2", group="hash", sig=(("STRING", "INTEGER"),), result=STRING,
        differences="The length must be a literal. Flink fails the job on a length other than 224, 256, "
                    "384 and 512; StreamSQL refuses it at planning.")
def sha2(c: Call) -> exp.Expression:
    """SHA2(s, bits): the SHA-2 digest of the given length (bits a literal; NULL gives NULL)."""
    bits = c.literal(1, "the digest length")
    if bits is None:
        return exp.Null()
    if bits not in _DIGESTS:
        msg = f"SHA2: digest length {bits} is not a SHA-2 digest length (Flink: Unsupported algorithm); "
        msg += "supported: 224, 256, 384, 512"
        raise c.fail(msg)
    return _DIGESTS[bits](Call(c.name, c.args[:1], c.node))

for _bits in (224, 384, 512):
    scalar(f"SHA{_bits}", group="hash", sig=(("STRING",),), result=STRING)(_DIGESTS[_bits])

scalar("MD5", group="hash", sig=(("STRING",),), result=STRING)(duckdb_call("md5"))

scalar("SHA1", group="hash", sig=(("STRING",),), result=STRING)(duckdb_call("sha1"))

scalar("SHA256", group="hash", sig=(("STRING",),), result=STRING)(duckdb_call("sha256"))
