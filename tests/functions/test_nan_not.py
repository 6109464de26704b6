"""NOT over comparisons of DOUBLE / FLOAT values, NaN included, against Flink 2.3's answers.

``nan_not_flink.json`` is written by ``scripts/flink_nan_not.py`` on PyFlink (never by hand):
Calcite pushes a NOT into the comparison it negates (``NOT (d <= 1)`` is ``d > 1``), so a NaN,
FALSE in every Java comparison, passes neither (:mod:`streamsql.functions.scalars.not_pushdown`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.functions.recorded_table import recorded_table_env

FLINK = json.loads((Path(__file__).parent / "nan_not_flink.json").read_text())


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    yield from recorded_table_env(tmp_path_factory.mktemp("nan_not"), FLINK)


@pytest.mark.parametrize("cond", sorted(FLINK["cases"]))
def test_not_of_a_floating_comparison_as_flink(env, cond):
    flink = FLINK["cases"][cond]
    where = sorted([list(r) for _, r in env.execute_sql(f"SELECT id FROM t WHERE {cond}")])
    assert where == flink["where"]
    select = sorted([list(r) for _, r in env.execute_sql(f"SELECT id, {cond} AS b FROM t")])
    assert select == flink["select"]
