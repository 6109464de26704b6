"""Calls in an OVER window ordered by a non-time column beyond COUNT/SUM/AVG/MIN/MAX, as Flink 2.3.

``over_nontime_calls_flink.json`` is written by ``scripts/flink_over_nontime_calls.py`` (PyFlink
2.3): per call, the changelog Flink emitted over the events of ``over_nontime_flink.json``, or
Flink's refusal. StreamSQL must emit the same changelog, row for row (but for Flink's no-op
updates, which it does not emit: then the same final table), or refuse the query.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql.core.errors import SqlError
from tests.runtime.oracle import make_env
from tests.runtime.test_over_nontime import BACKENDS, _changelog, _source, _table

FLINK = json.loads((Path(__file__).with_name("over_nontime_calls_flink.json")).read_text())
#: Flink's refusals StreamSQL gives in Flink's words (ROW_NUMBER's ROWS window beside the default
#: RANGE one; a ranking call's own frame).
_FLINK_WORDS = ("All aggregates must be computed on the same window. please re-check the over window "
                "statement.", "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")


@pytest.mark.parametrize("name", sorted(FLINK))
@pytest.mark.parametrize("backend", BACKENDS)
def test_changelog_is_flinks_or_refused_as_flink_refuses(tmp_path, name, backend):
    scenario = FLINK[name]
    env = make_env(tmp_path, backend)
    _source(env, tmp_path, name, scenario)
    if "flink_error" in scenario:
        words = next((w for w in _FLINK_WORDS if w in scenario["flink_error"]), "")
        with pytest.raises(SqlError, match=re.escape(words)):
            env.execute_sql(scenario["query"])
        return
    ours, flink = _changelog(env, scenario["query"]), scenario["changelog"]
    if not _noop_updates(flink):
        assert ours == flink
    else:  # Flink's no-op -U/+U pairs are not emitted here (docs/windows.md): the same table
        assert _table(ours) == _table(flink)
        assert len(ours) == len(flink) - 2 * _noop_updates(flink)


def _noop_updates(changelog: list[list]) -> int:
    """The -U/+U pairs of ``changelog`` that change nothing (the same row before and after)."""
    pairs = zip(changelog, changelog[1:])
    return sum(1 for a, b in pairs if a[0] == "-U" and b[0] == "+U" and a[1:] == b[1:])
