"""Python UDFs give Flink's answers: the cases of tests/functions/udf_flink run here and on PyFlink.

``expected.json`` is written by ``scripts/flink_udf.py`` from Apache Flink 2.3's results (the same
functions, udf_flink/udfs.py, registered on PyFlink); each case runs here through a real job and
its folded changelog must equal Flink's, value for value (compared as text).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.functions.udf import udaf, udtf
from tests.runtime.oracle import fold

HERE = Path(__file__).resolve().parent / "udf_flink"
EXPECTED = json.loads((HERE / "expected.json").read_text())
sys.path.insert(0, str(HERE))
import udfs  # noqa: E402  (the cases' module, shared with the PyFlink script)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("udf_flink")
    config = {"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")}
    with StreamEnvironment(config) as e:
        for name, (fn, types, kind) in udfs.FUNCTIONS.items():
            obj = fn() if isinstance(fn, type) else fn
            declared = udaf(obj, result_type=types) if kind == "aggregate" else udtf(obj, result_types=types)
            e.create_temporary_function(name, declared)
        for ddl in udfs.TABLES:
            e.execute_sql(ddl.replace("${DIR}", str(HERE)))
        yield e


@pytest.mark.parametrize("case", sorted(udfs.CASES))
def test_same_rows_as_flink(env, case):
    expected = EXPECTED[case]
    assert "flink_error" not in expected, f"Flink refused {case}: {expected['flink_error']}"
    rows = fold(env.execute_sql(udfs.CASES[case]).collect(timeout=60))
    actual = Counter(tuple(None if v is None else str(v) for v in r) for r in rows.elements())
    assert actual == Counter(tuple(r) for r in expected["rows"])
