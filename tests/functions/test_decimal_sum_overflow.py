"""SUM / AVG of a DECIMAL(38, 18) whose running sum leaves 38 digits, against Flink 2.3's answers.

``scripts/flink_decimal_sum_overflow.py`` recorded ``decimal_sum_overflow_flink.json`` (query fuzz seeds
500093, 500142, 500158, 500165 failed here with an internal error). Flink's DECIMAL plus is NULL past
the precision: its SUM starts again from the next value (NULL + v is v; a retraction, NULL - v, is
-v), while an AVG (its sum starts at 0) and an OVER SUM (Calcite's $SUM0) stay NULL, row by row: a
GROUP BY over a table or a changelog, an OVER frame and a SESSION window follow it here
(``aggregates.decimal_sum``, ``Sum.sticky``). A TUMBLE / HOP / CUMULATE window sums each batch's
rows of a slice in DuckDB first: it fails the job naming the call instead (strict xfail).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.runtime import flink_queries as fq
from tests.runtime.oracle import make_env

FLINK = json.loads((Path(__file__).parent / "decimal_sum_overflow_flink.json").read_text())
_SPEC = importlib.util.spec_from_file_location(
    "flink_decimal_sum_overflow", Path(__file__).parents[2] / "scripts" / "flink_decimal_sum_overflow.py")
SCRIPT = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(SCRIPT)
#: query prefix → why StreamSQL differs.
KNOWN = {
    "SELECT g, window_start, SUM(e) AS s FROM TABLE(TUMBLE":
        "a TUMBLE / HOP / CUMULATE window's partial sums are DuckDB's over each batch's rows of a slice, "
        "not row by row: the job fails naming the call (query fuzz seed 500113)",
}


def _param(case: dict, batch):
    reason = next((r for k, r in KNOWN.items() if case["query"].startswith(k)), None)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, batch, marks=marks, id=f"{case['query'][:70]}-{batch}")


@pytest.mark.parametrize(("case", "batch"), [_param(c, b) for c in FLINK["cases"] for b in (1, None)])
def test_rows_as_flink(case, batch, tmp_path):
    paths = SCRIPT.files(tmp_path)
    env = make_env(tmp_path / "w", "hashmap", batch, {"table.local-time-zone": "UTC"})
    try:
        for ddl in SCRIPT.DDL:
            env.execute_sql(ddl.format(**paths))
        res = env.execute_sql(case["query"])
        changes = [(kind.short, [fq.cell(v) for v in row]) for kind, row in res.collect(timeout=60)]
    finally:
        env.close()
    assert fq.fold(changes) == case["rows"]
