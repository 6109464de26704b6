"""Table options as Apache Flink 2.3 with the Kafka SQL connector 5.0 takes them.

``options_flink.json`` is written by ``scripts/flink_options.py`` on PyFlink (never by hand): per
scenario the DDL, an EXPLAIN, and whether Flink planned it. What Flink accepts must plan here;
what it refuses must be refused, with a message holding the scenario's ``expect_error``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

SCENARIOS = json.loads((Path(__file__).parent / "options_flink.json").read_text())["scenarios"]


def run(env: StreamEnvironment, scenario: dict):
    """The scenario's DDL, then its statement (an INSERT runs to its end)."""
    for ddl in scenario["ddl"]:
        env.execute_sql(ddl)
    result = env.execute_sql(scenario["statement"])
    if scenario["statement"].startswith("INSERT"):
        assert result.job.wait(60) == "FINISHED"
    else:
        assert "== Optimized Physical Plan ==" in result.message


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_as_flink(scenario, tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "st")})
    try:
        if scenario["flink"] == "ok":
            run(env, scenario)
            return
        with pytest.raises(StreamSQLError) as err:
            run(env, scenario)
        for part in scenario["expect_error"]:
            assert part in str(err.value), (scenario["flink_error"], str(err.value))
    finally:
        env.close()
