"""A GROUP BY's unread calls pruned as Flink 2.3 prunes them, against Flink's recorded answers.

``scripts/flink_agg_prune.py`` ran each query of ``agg_prune_flink.json`` on PyFlink (streaming, one
task) over a small debezium changelog: an update that changes only a call the outer query does not
really read must emit nothing, so the outer LISTAGG keeps its order. A COUNT is never NULL, so Calcite
folds ``a1 IS NULL`` of a COUNT to FALSE and prunes the COUNT (query fuzz seed 300343), and so
``a1 + 1 IS NULL`` (an expression of NOT NULL operands; the binder's fold); the recorded
optimized plan's inner aggregate (``inner_select``) shows which calls Flink kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.elements import RowKind

FLINK = json.loads((Path(__file__).parent / "agg_prune_flink.json").read_text())
DDL = FLINK["ddl"]


def _fold(changes) -> list[list]:
    rows: list[list] = []
    for kind, row in changes:
        if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
            rows.append(list(row))
        else:
            rows.remove(list(row))
    return sorted(rows, key=repr)


@pytest.mark.parametrize("case", [pytest.param(c, id=c["query"][:60]) for c in FLINK["cases"]])
def test_final_rows_as_flink(case, tmp_path):
    path = tmp_path / "cd.json"
    path.write_text("".join(json.dumps(e) + "\n" for e in FLINK["events"]))
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(DDL.format(path=path))
        got = _fold(env.execute_sql(case["query"]).collect(timeout=60))
    assert got == sorted(case["rows"], key=repr), case["changes"]


def test_count_read_only_by_is_null_is_pruned(tmp_path):
    """Flink's inner aggregate keeps MAX alone; so does ours (EXPLAIN)."""
    case = FLINK["cases"][0]
    assert case["inner_select"] == ["g, MAX_RETRACT(s) AS m0"]
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(DDL.format(path=tmp_path / "cd.json"))
        plan = env.execute_sql("EXPLAIN " + case["query"]).message
    inner = next(line for line in plan.splitlines() if "groupBy=[g]" in line)
    assert "COUNT" not in inner and "MAX(s)" in inner, plan
