"""Window Top-N, deduplication and joins over SESSION windows that end together and start apart,
against Flink 2.3's recorded answers (``scripts/flink_session_windows.py``, ``session_windows_flink.json``).

Flink knows a window of these operators by its ``window_end`` alone: SESSION windows of other
partition keys ending at the same instant are ranked (and joined) together (queryfuzz36, seed 600034).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.runtime.oracle import make_env

HERE = Path(__file__).parent
DOC = json.loads((HERE / "session_windows_flink.json").read_text(encoding="utf-8"))


def _script():
    spec = importlib.util.spec_from_file_location("flink_session_windows",
                                                  HERE.parents[1] / "scripts" / "flink_session_windows.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SCRIPT = _script()


@pytest.mark.parametrize("name", sorted(DOC["answers"]))
def test_session_window_operators_match_flink(name, tmp_path):
    want = DOC["answers"][name]
    assert [list(r) for r in SCRIPT.ROWS] == DOC["rows"], "the rows changed: record again"
    env = make_env(tmp_path, settings={"table.local-time-zone": "UTC"})
    try:
        env.execute_sql(SCRIPT.DDL.format(path=SCRIPT.write_rows(tmp_path / "sw.json")))
        for view in SCRIPT.VIEWS:
            env.execute_sql(view)
        res = env.execute_sql(SCRIPT.QUERIES[name])
        got = sorted([kind.short, *map(str, row)] for kind, row in res.collect(timeout=60))
    finally:
        env.close()
    assert got == want
