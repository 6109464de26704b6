"""A WATERMARK on a timestamp of precision above 3 is refused, as Flink 2.3 refuses it.

``rowtime_precision_flink.json`` is written by ``scripts/flink_rowtime_precision.py``: per table
definition, whether Flink 2.3 plans a TUMBLE window aggregate over it or its error. A declared
column is refused at CREATE TABLE (Flink's ``DefaultSchemaResolver``), a computed one when the
table is first planned; both at the WATERMARK's line:column, in Flink's words. (Accepted, a
TIMESTAMP(6) rowtime with sub-millisecond digits failed the window job with an internal error.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql.core.errors import SqlError
from tests.runtime.oracle import make_env

ORACLE = json.loads(Path(__file__).with_name("rowtime_precision_flink.json").read_text())


@pytest.mark.parametrize("name", sorted(ORACLE["scenarios"]))
def test_watermark_precision_as_flink(tmp_path, name):
    s = ORACLE["scenarios"][name]
    with make_env(tmp_path) as env:
        if "answer" in s:
            env.execute_sql(f"CREATE TABLE t ({s['columns']}) WITH ('connector' = 'datagen')")
            assert "TUMBLE" in env.execute_sql("EXPLAIN " + ORACLE["query"]).message.upper()
            return
        with pytest.raises(SqlError) as e:
            env.execute_sql(f"CREATE TABLE t ({s['columns']}) WITH ('connector' = 'datagen')")
            env.execute_sql("EXPLAIN " + ORACLE["query"])
        assert s["flink_error"].split(" / ")[-1] in str(e.value)
        assert e.value.line == 1 and e.value.col
