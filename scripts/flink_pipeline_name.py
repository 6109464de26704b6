"""Record what Apache Flink 2.3 does with two INSERTs submitted under one ``'pipeline.name'``.

Writes ``tests/e2e/pipeline_name_flink.json``: two INSERTs (a bounded, throttled datagen each, so
that they run at the same time) submitted one after the other in one session with the same
``'pipeline.name'``, and per job its id and final status, or Flink's error. Read by
``tests/e2e/test_pipeline_name_shared.py``. Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_pipeline_name.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "e2e" / "pipeline_name_flink.json"
GEN = "WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'rows-per-second' = '5')"
DDL = [
    f"CREATE TABLE g1 (id INT) {GEN}",
    f"CREATE TABLE g2 (id INT) {GEN}",
    "CREATE TABLE s1 (id INT) WITH ('connector' = 'blackhole')",
    "CREATE TABLE s2 (id INT) WITH ('connector' = 'blackhole')",
]
INSERTS = ["INSERT INTO s1 SELECT id FROM g1", "INSERT INTO s2 SELECT id FROM g2"]
NAME = "shared-name"


def main() -> int:
    """Submit both INSERTs, wait for both, write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t.get_config().set("parallelism.default", "1")
    t.get_config().set("pipeline.name", NAME)
    for ddl in DDL:
        t.execute_sql(ddl)
    jobs = []
    try:
        results = [t.execute_sql(s) for s in INSERTS]  # the second is submitted while the first runs
        ids = [str(r.get_job_client().get_job_id()) for r in results]
        for s, r, job_id in zip(INSERTS, results, ids):
            r.wait()  # raises unless the job finished
            jobs.append({"insert": s, "job_id": job_id, "status": "FINISHED"})
        outcome = {"jobs": jobs,
                   "distinct_job_ids": len({j["job_id"] for j in jobs}) == len(jobs)}
    except Exception as e:  # noqa: BLE001  (PyFlink raises its own wrappers and Py4JJavaError)
        outcome = {"error": str(e)}
    doc = {"pipeline.name": NAME, "ddl": DDL, "inserts": INSERTS, **outcome}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
