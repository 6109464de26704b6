"""A Kafka job stopped with a savepoint mid-stream, then resumed from it: the e2e tests' shared steps.

:func:`stop_then_resume` puts the first ``cut`` rows in the source topic, runs the INSERT unbounded
until it has read them and completed a checkpoint, stops it with ``STOP JOB ... WITH SAVEPOINT``,
puts the other rows in, and runs the INSERT again from the savepoint, bounded (the source's
``'scan.bounded.mode' = 'latest-offset'``), to the end. The tests compare the sink topic's committed
records (:func:`~tests.integration.test_kafka_connectors.read_all`) with Flink's or an oracle's.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson
from confluent_kafka import Producer

from streamsql import StreamEnvironment
from tests.e2e.test_embedding_api import until


def savepoint_env(tmp_path, name: str, **settings) -> StreamEnvironment:
    """An environment checkpointing every 100 ms under ``tmp_path``, its pipeline named ``name``."""
    return StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                              "state.dir": str(tmp_path / "state"), "pipeline.name": name,
                              "execution.checkpointing.interval": "100 ms", **settings})


def stop_then_resume(bootstrap: str, src: str, rows: list[dict], cut: int, tmp_path, name: str,
                     ddl: Callable[[StreamEnvironment, bool], None], insert: str,
                     after_stop: Callable[[], object] = lambda: None) -> object:
    """Run ``insert`` over ``rows[:cut]``, stop it with a savepoint, resume it over the rest.

    ``ddl(env, bounded)`` creates the tables (the source bounded for the resumed job only);
    ``after_stop()`` runs between the two jobs (what the first one committed) and its value is
    returned. Asserts that the second job restored the savepoint.
    """
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for r in rows[:cut]:
        producer.produce(src, orjson.dumps(r))
    producer.flush(30)
    with savepoint_env(tmp_path, name) as env:
        ddl(env, False)
        job = env.execute_sql(insert).job
        until(lambda: job.metrics.get("rows_in", 0) >= cut, timeout=60)
        until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 1, timeout=60)
        (path,) = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0]
    between = after_stop()
    for r in rows[cut:]:
        producer.produce(src, orjson.dumps(r))
    producer.flush(30)
    with savepoint_env(tmp_path, name, **{"execution.savepoint.path": path}) as env:
        ddl(env, True)
        again = env.execute_sql(insert).job
        until(lambda: again.done, timeout=120)
        assert again.runner.restored_from is not None
    return between
