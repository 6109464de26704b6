"""NOT over comparisons of DOUBLE / FLOAT values, NaN included, against Flink 2.3's answers.

``nan_not_flink.json`` is written by ``scripts/flink_nan_not.py`` on PyFlink (never by hand):
Calcite pushes a NOT into the comparison it negates (``NOT (d <= 1)`` is ``d > 1``), so a NaN,
FALSE in every Java comparison, passes neither (:mod:`streamsql.functions.scalars.not_pushdown`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment

FLINK = json.loads((Path(__file__).parent / "nan_not_flink.json").read_text())


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp("nan_not")
    path = d / "t.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in FLINK["records"]))
    e = StreamEnvironment({"state.dir": str(d / "s"), "execution.checkpointing.dir": str(d / "c")})
    e.execute_sql(f"CREATE TABLE t ({FLINK['columns']}) WITH ('connector' = 'filesystem', "
                  f"'path' = '{path}', 'format' = 'json')")
    yield e
    e.close()


@pytest.mark.parametrize("cond", sorted(FLINK["cases"]))
def test_not_of_a_floating_comparison_as_flink(env, cond):
    flink = FLINK["cases"][cond]
    where = sorted([list(r) for _, r in env.execute_sql(f"SELECT id FROM t WHERE {cond}")])
    assert where == flink["where"]
    select = sorted([list(r) for _, r in env.execute_sql(f"SELECT id, {cond} AS b FROM t")])
    assert select == flink["select"]
