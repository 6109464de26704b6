"""A job's "rows in" (SHOW JOBS, DESCRIBE JOB, the run's summary, ``job.metrics``) counts changes.

A newcomer's report: SHOW JOBS said ``rows in 16`` for a job over an ``upsert-kafka`` topic of 11
records (5 keys, 5 updates, a tombstone): each update was counted twice, as the -U and the +U row
the source makes of it. Flink's source counts the record once; so does "rows in" now. Shown here
with a ``debezium-json`` file (no broker needed): 3 creates, 2 updates and a delete are 6 events.
"""

import json

from streamsql import StreamEnvironment


def _event(op: str, before: dict | None, after: dict | None) -> str:
    return json.dumps({"before": before, "after": after, "op": op})


def test_an_update_read_as_a_minus_u_plus_u_pair_is_one_row_in(tmp_path):
    events = [_event("c", None, {"k": 1, "v": 10}), _event("c", None, {"k": 2, "v": 20}),
              _event("c", None, {"k": 3, "v": 30}), _event("u", {"k": 1, "v": 10}, {"k": 1, "v": 11}),
              _event("u", {"k": 2, "v": 20}, {"k": 2, "v": 21}), _event("d", {"k": 3, "v": 30}, None)]
    (tmp_path / "changes.json").write_text("\n".join(events) + "\n")
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")}) as env:
        env.execute_sql(f"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp_path}/changes.json', 'format' = 'debezium-json')")
        env.execute_sql("CREATE TABLE out_t (k INT, v INT) WITH ('connector' = 'blackhole')")
        job = env.execute_sql("INSERT INTO out_t SELECT k, v FROM src").job
        assert job.wait(60) == "FINISHED"
        # 3 +I, 2 x (-U, +U), 1 -D flow on: 8 rows out, from 6 changes in
        assert (job.metrics["rows_in"], job.metrics["rows_out"]) == (6, 8)
        row = env.execute_sql("SHOW JOBS").rows[0]
        assert row[4:6] == (6, 8)
