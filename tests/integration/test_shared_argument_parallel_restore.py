"""735568b's single-process savepoint (calls with columns of their own) restored into a PARALLEL job.

``tests/checkpoint/shared_arguments/`` is restored there in one task; here the same statement set
runs at 2 and 3 tasks (in-process, the embedding API's path): every stage's seed is split by key
group for today's bit-reversed assignment while its signatures are read in today's form
(:func:`~streamsql.plan.state_signature.recorded_signatures`). A parallel job needs a Kafka table
(its exchanges' brokers), so one stateless INSERT into a Kafka topic is added after the others
(a new operator: no state to claim). What the fixture's INSERTs emit must be DuckDB's answer over
all 400 rows, as in one task.
"""

from __future__ import annotations

import importlib
import shutil
from collections import Counter

import pytest

from streamsql.core.elements import RowKind
from streamsql.functions.udf import udaf
from tests.checkpoint.test_shared_argument_savepoint import FIXTURE, JOB, KEYS, _duck, _final
from tests.runtime import query_fuzz_savepoint as fuzz
from tests.runtime.oracle import make_env


def _run_parallel(tmp_path, bootstrap: str, topic: str, parallelism: int) -> tuple[object, list]:
    savepoint = tmp_path / "savepoint"
    shutil.copytree(FIXTURE / "savepoint", savepoint)
    extra = "INSERT INTO kout SELECT k, v FROM t"
    sql = JOB["statement_set"].removesuffix(" END") + f" {extra}; END"
    with fuzz.connectors():
        fuzz.GATES.clear()
        fuzz.OPENED.clear()
        fuzz.WRITTEN.clear()
        settings = {"pipeline.name": f"shared-arguments-p{parallelism}",
                    "parallelism.default": str(parallelism),
                    "execution.savepoint.path": str(tmp_path / JOB["savepoint"])}
        with make_env(tmp_path / "run", "hashmap", None, settings) as env:
            for name, (module, cls, result, inputs) in JOB["functions"].items():
                impl = getattr(importlib.import_module(module), cls)()
                env.create_temporary_function(name, udaf(impl, result_type=result, input_types=inputs))
            for ddl in JOB["ddl"]:
                env.execute_sql(ddl.format(source=JOB["source"], sink=JOB["sink"], path=FIXTURE / "t.json"))
            env.execute_sql(f"""CREATE TABLE kout (k STRING, v INT) WITH ('connector' = 'kafka',
                'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json')""")
            job = env.execute_sql(sql).job
            try:
                job.wait(240)
            finally:
                written = list(fuzz.WRITTEN)
    return job, written


@pytest.mark.parametrize("parallelism", [2, 3])
def test_735568bs_savepoint_restores_into_a_parallel_job(tmp_path, kafka_bootstrap, kafka_topic_factory,
                                                        parallelism):
    job, written = _run_parallel(tmp_path, kafka_bootstrap, kafka_topic_factory(), parallelism)
    assert job.status == "FINISHED"
    assert job.runner.restored_from is not None
    expected = _duck()
    by_insert: dict[str, list] = {q: [] for q in JOB["inserts"]}
    for kind, row in written:
        by_insert[row[0]].append((kind, row))
    for q, width in KEYS.items():
        changes = by_insert[q]
        assert RowKind.INSERT not in {k for k, _ in changes}, q  # every key's state was restored
        assert _final(changes, width) == expected[q], q
    over = Counter(r for _, r in by_insert["over"])
    assert not over - expected["over"]
    windows = Counter(r for _, r in by_insert["window"])
    assert not windows - expected["window"]
