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

from collections import Counter

import pytest

from tests.checkpoint.test_shared_argument_savepoint import _run, check_updating_inserts


@pytest.mark.parametrize("parallelism", [2, 3])
def test_735568bs_savepoint_restores_into_a_parallel_job(tmp_path, kafka_bootstrap, kafka_topic_factory,
                                                        parallelism):
    kout = (f"CREATE TABLE kout (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = "
            f"'{kafka_topic_factory()}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
            "'format' = 'json')")
    job, written = _run(tmp_path, "hashmap", more={"parallelism.default": str(parallelism)},
                        extra=(kout, "INSERT INTO kout SELECT k, v FROM t"))
    assert job.status == "FINISHED"
    assert job.runner.restored_from is not None
    by_insert, expected = check_updating_inserts(written)
    over = Counter(r for _, r in by_insert["over"])
    assert not over - expected["over"]
    windows = Counter(r for _, r in by_insert["window"])
    assert not windows - expected["window"]
