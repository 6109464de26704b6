"""f3e00a5a's single-process savepoint of GROUP BYs with calls nobody reads, restored into a PARALLEL job.

``tests/checkpoint/pruned_calls/`` is restored in one task there; here the same statement set runs
at 2 tasks (in-process): the savepoint is checked against the whole plan's signatures (those before
pruning accepted) before it is split by key group into the tasks' seeds, and each task drops the
pruned calls' accumulators of its keys when it restores its seed. A parallel job needs a Kafka table
(its exchanges' brokers), so one stateless INSERT into a Kafka topic is added after the others (a new
operator: no state to claim). The changes of both runs, folded, must be DuckDB's answer over all
400 rows, as in one task.
"""

from __future__ import annotations

from tests.checkpoint.test_pruned_calls_savepoint import JOB, _run, check_both_runs


def test_f3e00a5as_savepoint_restores_into_a_parallel_job(tmp_path, kafka_bootstrap, kafka_topic_factory):
    kout = (f"CREATE TABLE kout (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = "
            f"'{kafka_topic_factory()}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
            "'format' = 'json')")
    extra = (kout, "INSERT INTO kout SELECT k, v FROM t")
    job, written, _ = _run(tmp_path, "hashmap", JOB["jobs"]["kept"], JOB["savepoints"]["kept"],
                           more={"parallelism.default": "2"}, extra=extra)
    assert job.status == "FINISHED"
    assert job.runner.restored_from is not None
    check_both_runs("kept", written)
