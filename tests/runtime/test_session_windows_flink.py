"""Window Top-N, deduplication and joins over SESSION windows that end together and start apart,
against Flink 2.3's recorded answers (``scripts/flink_session_windows.py``, ``session_windows_flink.json``).

Flink knows a window of these operators by its ``window_end`` alone: SESSION windows of other
partition keys ending at the same instant are ranked (and joined) together (queryfuzz36, seed 600034);
a SESSION aggregate grouped by more keys than its PARTITION BY is a GroupAggregate over the TVF's
rows (seeds 600121, 600176, 600289).
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


def _fold(changes: list[list[str]]) -> list[list[str]]:
    """A changelog (``[kind, *cells]``) folded into its final rows, sorted."""
    rows: list[list[str]] = []
    for kind, *cells in changes:
        if kind in ("+I", "+U"):
            rows.append(cells)
        else:
            rows.remove(cells)
    return sorted(rows)


@pytest.mark.parametrize("name", sorted(DOC["answers"]))
def test_session_window_operators_match_flink(name, tmp_path):
    want = _fold(DOC["answers"][name])
    assert [list(r) for r in SCRIPT.ROWS] == DOC["rows"], "the rows changed: record again"
    env = make_env(tmp_path, settings={"table.local-time-zone": "UTC"})
    try:
        env.execute_sql(SCRIPT.DDL.format(path=SCRIPT.write_rows(tmp_path / "sw.json")))
        for view in SCRIPT.VIEWS:
            env.execute_sql(view)
        res = env.execute_sql(SCRIPT.QUERIES[name])
        got = _fold([[kind.short, *map(str, row)] for kind, row in res.collect(timeout=60)])
    finally:
        env.close()
    assert got == want
