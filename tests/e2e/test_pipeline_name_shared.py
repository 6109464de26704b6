"""Two INSERTs of one session under one ``'pipeline.name'`` both run, as in Flink 2.3.

``pipeline_name_flink.json`` (``scripts/flink_pipeline_name.py``): Flink ran both INSERTs at once,
as two jobs of that name with their own job ids. Here the second failed ("the checkpoint folder ...
is in use by job 'shared-name'"): checkpoints live under the job's name. Now the second is named
``shared-name-2`` (its checkpoint folder and transactional ids too), said in an [INFO] line, and a
rerun of the script gives each INSERT the same name again.
"""

from __future__ import annotations

import json
from pathlib import Path

from streamsql import StreamEnvironment

FLINK = json.loads((Path(__file__).parent / "pipeline_name_flink.json").read_text())


def _run(tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "st"),
                             "execution.checkpointing.interval": "200 ms",
                             "pipeline.name": FLINK["pipeline.name"]})
    for ddl in FLINK["ddl"]:
        env.execute_sql(ddl)
    results = [env.execute_sql(s) for s in FLINK["inserts"]]
    return env, results


def test_both_jobs_run_as_in_flink(tmp_path):
    assert "error" not in FLINK and FLINK["distinct_job_ids"]
    assert [j["status"] for j in FLINK["jobs"]] == ["FINISHED", "FINISHED"]
    for _ in range(2):  # a rerun of the script: each INSERT under its own name again
        env, results = _run(tmp_path)
        try:
            jobs = [r.job for r in results]
            assert [j.wait(60) for j in jobs] == ["FINISHED", "FINISHED"], [j.error for j in jobs]
            assert [j.name for j in jobs] == ["shared-name", "shared-name-2"]
            assert "this job is named 'shared-name-2'" in results[1].message
            assert "already names another INSERT" not in results[0].message
        finally:
            env.close()
    assert sorted(p.name for p in (tmp_path / "chk").iterdir()) == ["shared-name", "shared-name-2"]
