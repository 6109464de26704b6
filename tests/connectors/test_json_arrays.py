"""The ``json`` format on records that are JSON arrays, against Flink 2.3's answers.

Flink's JSON format emits a row per object of a top-level array (``[]``: none); a record whose
array holds another value is bad (with ``'json.ignore-parse-errors'``: none of its rows is kept).
``json_arrays_flink.json`` is written by ``scripts/flink_json_arrays.py`` (a filesystem table
``t (a INT, b STRING)``, every column read and only ``a``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment

ORACLE = json.loads((Path(__file__).parent / "json_arrays_flink.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_array_records_are_flinks(name, tmp_path):
    case = ORACLE[name]
    path = tmp_path / "r.json"
    path.write_text("\n".join(case["lines"]) + "\n", encoding="utf-8")
    config = {"execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'json', "
                        f"'json.ignore-parse-errors' = '{str(case['ignore']).lower()}')")
        query = case["query"].format(t="t")
        if isinstance(case["result"], dict):
            with pytest.raises(Exception, match="Illegal JSON object data"):  # noqa: PT011  (a failed job)
                list(env.execute_sql(query).collect(timeout=60))
            return
        rows = list(env.execute_sql(query).collect(timeout=60))
    assert sorted(json.dumps(list(r[1])) for r in rows) == case["result"]
