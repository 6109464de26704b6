"""A Python UDF written once for both engines, for DESCRIBE FUNCTION (scripts/flink_statements.py).

PyFlink's ``udf`` and ``DataTypes`` when PyFlink is installed (the oracle run), else StreamSQL's.
"""

try:  # the PyFlink run (scripts/flink_statements.py)
    from pyflink.table import DataTypes
    from pyflink.table.udf import udf

    BIGINT = DataTypes.BIGINT()
except ImportError:
    from streamsql.functions.udf import udf

    BIGINT = "BIGINT"


@udf(result_type=BIGINT)
def plus_one(x):
    """``x + 1``."""
    return x + 1
