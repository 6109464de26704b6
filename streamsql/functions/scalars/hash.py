"""Hash functions: MD5, SHA1, SHA256, SHA2 (lower-case hex digests of the string's UTF-8 bytes)."""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import Call, duckdb_call, fixed, scalar, template

STRING = fixed("STRING")


@scalar("SHA2", group="hash", sig=(("STRING", "INTEGER"),), result=STRING,
        differences="Only the digest length 256 (DuckDB has no SHA-224/384/512): 224, 384 and 512 are "
                    "refused at planning; the length must be a literal. Flink fails the job on other "
                    "lengths; StreamSQL refuses them at planning.")
def sha2(c: Call) -> exp.Expression:
    """SHA2(s, bits): the SHA-2 digest of the given length (bits a literal; NULL gives NULL)."""
    bits = c.literal(1, "the digest length")
    if bits is None:
        return exp.Null()
    if bits != 256:
        what = ("is not supported yet" if bits in (224, 384, 512)
                else "is not a SHA-2 digest length (Flink: Unsupported algorithm)")
        msg = f"SHA2: digest length {bits} {what}; supported: 256"
        raise c.fail(msg)
    return template("sha256({0})", c.args[0])

scalar("MD5", group="hash", sig=(("STRING",),), result=STRING)(duckdb_call("md5"))

scalar("SHA1", group="hash", sig=(("STRING",),), result=STRING)(duckdb_call("sha1"))

scalar("SHA256", group="hash", sig=(("STRING",),), result=STRING)(duckdb_call("sha256"))
