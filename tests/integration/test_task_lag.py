"""``JobHandle.tasks`` of a parallel job: each task's input lag, asked beside the reading consumer.

The lag's end offsets were asked on the task's reading consumer, whose connection to the leader
holds a fetch request until data arrives (``fetch.wait.max.ms``): each query waited behind it,
~0.5 s per partition with the default (``job.tasks`` took seconds), and with a longer wait than
the query's 1 s timeout the lag was unknown (None). They are now asked on a consumer of their
own (``EndOffsets``), made once and reused.
"""

from __future__ import annotations

import time

from tests.integration.test_parallel import PARTITIONS, _env, _load, _rows, _upsert_sink

N = 400


def test_an_idle_tasks_lag_is_zero_while_its_consumer_waits_on_a_fetch(kafka_bootstrap, kafka_topic_factory,
                                                                        tmp_path):
    """The source's fetches wait 3 s for data, longer than a lag query's 1 s."""
    src, out = kafka_topic_factory("lag_src", PARTITIONS), kafka_topic_factory("lag_out")
    _load(kafka_bootstrap, src, _rows(5, N))
    env = _env(2, tmp_path)
    try:
        env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
            'connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
            'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
            'properties.fetch.wait.max.ms' = '3000')""")
        _upsert_sink(env, out, kafka_bootstrap, "k INT, n BIGINT", "k")
        job = env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job
        deadline = time.monotonic() + 120
        while sum(t["rows_in"] for t in job.tasks if t["task"].startswith("0-")) < N:
            assert time.monotonic() < deadline and not job.done, job.error
            time.sleep(0.5)
        # every record was read by the sources; the exchange's readers may still be a record or a
        # commit marker behind, so their lag goes to 0 soon after. Each query must answer (None:
        # it waited behind the reading consumer's fetch, the bug) and quickly.
        while True:
            asked = time.monotonic()
            tasks = job.tasks
            assert time.monotonic() - asked < 5, "job.tasks waited behind the fetches"
            lags = [t["input_lag"] for t in tasks]
            assert None not in lags, tasks
            if lags == [0] * len(tasks):
                break
            assert time.monotonic() < deadline, tasks
            time.sleep(0.5)
    finally:
        env.close()
