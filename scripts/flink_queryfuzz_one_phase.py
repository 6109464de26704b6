"""Record Flink 2.3's answers to query fuzz seeds under 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE'.

Run as the recorder's worker runs printable queries: one job, a print sink each, the lines read
back (PyFlink's collect cannot hand a FLOAT Infinity over). The seeds of :data:`SEEDS` differ from
Flink's default (AUTO, two-phase) answers in a window MIN / MAX over FLOATs holding NaN
(``tests/runtime/query_fuzz_flink.py`` KNOWN: the local partial of a bundle led by NaN is NaN,
which the global merge never takes). Run with one phase, Flink folds the values row by row, as
StreamSQL does: if its answer then agrees with StreamSQL's, the difference is the two-phase
bundling, not the sort keys or the MIN itself.

Writes ``tests/runtime/query_fuzz_one_phase_flink.json`` (the query fuzz fixture's format, these
seeds only, ``config`` holding the setting), which ``tests/runtime/test_query_fuzz_flink.py``'s
``test_one_phase_agrees`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_queryfuzz_one_phase.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import flink_queryfuzz as qf  # it puts tests/runtime's flink_queries on the path (qf.fq)

OUT = qf.ROOT / "tests" / "runtime" / "query_fuzz_one_phase_flink.json"
SEEDS = [500001, 500124]
SETTING = {"table.optimizer.agg-phase-strategy": "ONE_PHASE"}


def main() -> int:
    """Answer :data:`SEEDS` with :data:`SETTING` and write :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    capture = qf.Capture()  # before the JVM starts: the print sinks' lines, as the recorder reads them
    with tempfile.TemporaryDirectory() as tmp:
        prep = qf.prepare(SEEDS, Path(tmp))
        tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        config = {**qf.fq.CONFIG, **SETTING}
        for k, v in config.items():
            tenv.get_config().set(k, v)
        for d in prep["ddl"]:
            tenv.execute_sql(d)
        planned = [qf.plan(tenv, q) for q in prep["queries"]]
        # one job of print sinks, as the recorder's worker (a FLOAT Infinity does not pass PyFlink's collect)
        cases = qf.answer_together(tenv, capture, planned)
        if cases is None:
            msg = "the job of the seeds' print sinks failed or printed a line that does not read back"
            raise RuntimeError(msg)
    OUT.write_text(json.dumps({"generated_by": "scripts/flink_queryfuzz_one_phase.py", "flink": "2.3.0",
                               "config": config, "data": prep["data"], "cases": cases}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
