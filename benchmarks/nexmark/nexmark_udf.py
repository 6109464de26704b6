"""q14's ``count_char``, Nexmark's Java UDF (com.github.nexmark.flink.udf.CountChar) as a Python UDF.

Written once for both engines: PyFlink's ``udf`` when PyFlink is installed (the Flink runs),
else StreamSQL's. Loaded by ``CREATE FUNCTION count_char AS 'nexmark_udf.count_char' LANGUAGE
PYTHON`` with this file in ``'python.files'``.
"""

try:  # the Flink side (scripts/nexmark_flink.py, benchmarks' Flink runs)
    from pyflink.table import DataTypes
    from pyflink.table.udf import udf

    _TYPES = {"result_type": DataTypes.BIGINT(), "input_types": [DataTypes.STRING(), DataTypes.STRING()]}
except ImportError:
    from streamsql.functions.udf import udf

    _TYPES = {"result_type": "BIGINT", "input_types": ["STRING", "STRING"]}


def _count_char(s, character):
    """How many bytes of ``s`` (UTF-8) equal the first byte of ``character``; 0 for a NULL ``s``."""
    if s is None:
        return 0
    return s.encode().count(character.encode()[:1])


count_char = udf(_count_char, **_TYPES)
