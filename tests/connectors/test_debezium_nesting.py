"""The ``debezium-json`` format on records nested 1000 to 1030 deep, against Flink 2.3's answers.

``debezium_nesting_flink.json`` is written by ``scripts/flink_debezium_nesting.py`` (a filesystem
table ``t (k INT)`` whose records' ``after`` holds an unread field nested so that the record is
that deep). orjson reads records up to 1024 deep; Jackson (Flink) refuses one deeper than 1000:
the job fails, or with ``'debezium-json.ignore-parse-errors'`` the record is dropped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment

ORACLE = json.loads((Path(__file__).parent / "debezium_nesting_flink.json").read_text(encoding="utf-8"))


def record(k: int, depth: int) -> str:
    """As ``scripts/flink_debezium_nesting.py``'s."""
    deep = "[" * (depth - 2) + "]" * (depth - 2) if depth > 2 else "0"
    return '{"before":null,"after":{"k":%d,"d":%s},"op":"c"}' % (k, deep)


def _id(case: dict) -> str:
    return "all-ignored" if case["ignore"] else str(case["depths"][0])


@pytest.mark.parametrize("case", ORACLE["cases"], ids=_id)
def test_deep_records_are_flinks(case, tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "r.json").write_text("\n".join(record(d, d if d > 9 else 0) for d in case["depths"]) + "\n")
    config = {"execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE t (k INT) WITH ('connector' = 'filesystem', 'path' = '{folder}', "
                        "'format' = 'debezium-json', "
                        f"'debezium-json.ignore-parse-errors' = '{str(case['ignore']).lower()}')")
        expected = case["result"]
        if isinstance(expected, dict):
            deep = r"Document nesting depth \(1001\) exceeds the maximum allowed"  # Flink's reason
            with pytest.raises(Exception, match=deep):  # noqa: PT011
                list(env.execute_sql("SELECT k FROM t").collect(timeout=60))
            return
        rows = list(env.execute_sql("SELECT k FROM t").collect(timeout=60))
    assert sorted(f"+I{list(r[1])}" for r in rows) == expected
