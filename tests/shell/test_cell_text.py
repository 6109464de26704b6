"""A query's cells as Flink's SQL client prints them: CAST(x AS STRING) of each value.

Flink's client renders a cell with the CAST-to-STRING rules in printing mode
(``RowDataToStringConverterImpl``); our CAST(x AS STRING) follows Flink 2.3's (checked by the
conformance cases, tests/functions/cases.py), so each shown value is compared with the engine's
CAST of the same value in the same row. Python's str() showed ``10:00:00.123000``,
``...+00:00``, ``1e+20``, ``0E-10`` and ``b'\\x01'`` instead.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.output import format_value, shown_changelog, tableau

CONSTANTS = [
    "CAST('2024-05-01 10:00:00' AS TIMESTAMP(3))",
    "CAST('2024-05-01 10:00:00.12' AS TIMESTAMP(3))",
    "CAST('2024-05-01 10:00:00.123456' AS TIMESTAMP(6))",
    "CAST(1e20 AS DOUBLE)", "CAST(1e-5 AS DOUBLE)", "CAST(0.1 AS DOUBLE)", "CAST(100 AS DOUBLE)",
    "CAST(1.5 AS FLOAT)", "CAST(0.1 AS FLOAT)", "CAST(1e10 AS FLOAT)",
    "CAST(0 AS DECIMAL(38, 10))", "CAST(1.5 AS DECIMAL(5, 2))",
    "ARRAY[CAST('2024-05-01 10:00:00' AS TIMESTAMP(3))]",
    "ROW(CAST(1e20 AS DOUBLE), CAST(NULL AS DOUBLE))",
]
# random values of a table's columns: a TIMESTAMP_LTZ(3) column is only typed so when it is not
# a constant (a constant is left coarse, TIMESTAMP_LTZ(6): plan/query.py _keep_compiled_types)
TABLE = """CREATE TABLE t (ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3), d DOUBLE, f FLOAT, m DECIMAL(38, 10))
           WITH ('connector' = 'datagen', 'number-of-rows' = '50')"""


def _shown_and_cast(env, expressions: list[str], source: str = "") -> list[tuple[str, str, str]]:
    select = ", ".join(f"{e} AS v{i}, CAST({e} AS STRING) AS s{i}" for i, e in enumerate(expressions))
    result = env.execute_sql(f"SELECT {select} {source}")
    rows = [row for _, row in shown_changelog(result.collect(), result.column_types, result.time_zone)]
    assert rows
    return [(e, format_value(row[2 * i]), row[2 * i + 1]) for row in rows for i, e in enumerate(expressions)]


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_a_cell_shows_what_cast_to_string_gives(zone):
    with StreamEnvironment({"table.local-time-zone": zone}) as env:
        env.execute_sql(TABLE)
        cells = _shown_and_cast(env, CONSTANTS) + _shown_and_cast(env, ["ts", "lt", "d", "f", "m"], "FROM t")
    for expression, shown, cast in cells:
        assert shown == (cast if cast is not None else "<NULL>"), expression


def test_bytes_show_as_hex_and_values_keep_their_type():
    """BYTES print as x'..' (Flink's BinaryToStringCastRule when printing), NULL as <NULL>."""
    with StreamEnvironment() as env:
        result = env.execute_sql("SELECT X'FF01' AS b, CAST(NULL AS BYTES) AS n, CAST(2.5 AS DOUBLE) AS d")
        [(_, row)] = list(shown_changelog(result.collect(), result.column_types, result.time_zone))
    assert tableau(["b", "n", "d"], [row]).splitlines()[3] == "| x'ff01' | <NULL> | 2.5 |"
    assert row[0] == b"\xff\x01" and row[2] == 2.5 and isinstance(row[2], float)  # sorting unchanged
