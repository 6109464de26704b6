"""The sink upsert materializer (``ON CONFLICT DO DEDUPLICATE``) row by row, against Flink 2.3.

The expected changelogs are what Flink 2.3 printed for
``INSERT INTO snk SELECT a, s FROM (SELECT a, SUM(v) AS s FROM src GROUP BY a UNION ALL SELECT a,
MAX(v) AS s FROM src GROUP BY a) ON CONFLICT DO DEDUPLICATE`` (sink keyed by ``a``; a UNION has no
upsert key, so rows are matched on every column) over the debezium events of
``tests/compat/cases/on_conflict_deduplicate_key_mismatch/src.jsonl``, at parallelism 1. Flink
fed its materializer the SUM branch's whole changelog, then the MAX branch's: the inputs below
are those two aggregates' changelogs (Flink's GroupAggregate without mini-batch), in that order.
The cases with an upsert key are in tests/compat (``on_conflict_deduplicate_*``).
"""

from __future__ import annotations

import logging

import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.runtime.operators.sink_materializer import SinkUpsertMaterializer
from tests.runtime.harness import open_operator

P, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
SCHEMA = pa.schema([("a", pa.int32()), ("s", pa.int32())])

SUM_BRANCH = [(P, 1, 10), (UB, 1, 10), (UA, 1, 30), (UB, 1, 30), (UA, 1, 20), (UB, 1, 20), (UA, 1, 25),
              (UB, 1, 25), (UA, 1, 20), (P, 2, 7), (UB, 2, 7), (UA, 2, 15), (UB, 2, 15), (UA, 2, 24),
              (UB, 2, 24), (UA, 2, 17), (UB, 2, 17), (UA, 2, 34), (UB, 2, 34), (UA, 2, 25), (UB, 2, 25),
              (UA, 2, 8), (P, 3, 1), (D, 3, 1)]
MAX_BRANCH = [(P, 1, 10), (UB, 1, 10), (UA, 1, 20), (P, 2, 7), (UB, 2, 7), (UA, 2, 8), (UB, 2, 8),
              (UA, 2, 9), (UB, 2, 9), (UA, 2, 17), (UB, 2, 17), (UA, 2, 8), (P, 3, 1), (D, 3, 1)]
#: Flink 2.3's print sink, in order
FLINK_OUT = [(P, 1, 10), (D, 1, 10), (P, 1, 30), (D, 1, 30), (P, 1, 20), (D, 1, 20), (P, 1, 25), (D, 1, 25),
             (P, 1, 20), (P, 2, 7), (D, 2, 7), (P, 2, 15), (D, 2, 15), (P, 2, 24), (D, 2, 24), (P, 2, 17),
             (D, 2, 17), (P, 2, 34), (D, 2, 34), (P, 2, 25), (D, 2, 25), (P, 2, 8), (P, 3, 1), (D, 3, 1),
             (UA, 1, 10), (UA, 1, 20), (UA, 1, 20), (UA, 2, 7), (UA, 2, 8), (UA, 2, 8), (UA, 2, 9),
             (UA, 2, 8), (UA, 2, 17), (UA, 2, 8), (UA, 2, 8), (P, 3, 1), (D, 3, 1)]


def _batch(rows):
    table = pa.table({"a": pa.array([r[1] for r in rows], pa.int32()),
                      "s": pa.array([r[2] for r in rows], pa.int32())})
    return Batch(table, pa.array([int(r[0]) for r in rows], pa.int8()).to_numpy())


def _play(op, batches) -> list[tuple]:
    out = []
    for rows in batches:
        for b in op.process_batch(_batch(rows), 0):
            kinds = b.kinds.tolist() if b.kinds is not None else [int(P)] * b.table.num_rows
            out += [(RowKind(k), *r) for k, r in zip(kinds, zip(*[c.to_pylist() for c in b.table.columns]))]
    return out


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("batch_rows", [1, 5, 1000])
def test_without_upsert_key_as_flink(tmp_path, backend, batch_rows):
    op, b = open_operator(SinkUpsertMaterializer([0], None, SCHEMA), backend, tmp_path / "w", "sink-mat-1",
                          config={"state.cache.max-entries": "1"})
    rows = SUM_BRANCH + MAX_BRANCH
    out = _play(op, [rows[i:i + batch_rows] for i in range(0, len(rows), batch_rows)])
    b.close()
    assert out == FLINK_OUT


def test_with_upsert_key_a_row_is_replaced_in_place(tmp_path):
    # upsert key (a, s): an update of the held row's upsert key replaces it where it is, so a
    # later retraction of the other row finds this one last (Flink: addRow's values.set)
    op, b = open_operator(SinkUpsertMaterializer([0], [0, 1], SCHEMA), "hashmap", tmp_path / "w",
                          "sink-mat-1")
    out = _play(op, [[(P, 1, 1), (P, 1, 2), (UA, 1, 1), (D, 1, 2), (D, 1, 1)]])
    b.close()
    assert out == [(P, 1, 1), (UA, 1, 2), (UA, 1, 1), (UA, 1, 1), (D, 1, 1)]


def test_a_retraction_of_a_row_not_held_is_dropped_counted_and_logged_once(tmp_path, caplog):
    """Flink drops it too, logging "The state is cleared because of state ttl" each time; here the
    job metric ``dropped_retractions`` counts them and the warning is logged once."""
    metrics = {}
    op, b = open_operator(SinkUpsertMaterializer([0], None, SCHEMA), "hashmap", tmp_path / "w", "sink-mat-1",
                          metrics=metrics)
    with caplog.at_level(logging.WARNING, "streamsql.runtime.operators.sink_materializer"):
        out = _play(op, [[(P, 1, 1), (D, 1, 9), (UB, 2, 3)], [(D, 3, 3), (P, 3, 4)]])
    b.close()
    assert out == [(P, 1, 1), (P, 3, 4)]
    assert metrics["dropped_retractions"] == 3
    warnings = [r.getMessage() for r in caplog.records if "dropped_retractions" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].startswith("sink-mat-1: a retraction of a row it does not hold was dropped")
    assert "The state is cleared because of state ttl" in warnings[0]


def test_dropped_retractions_are_in_the_job_summary():
    from types import SimpleNamespace

    from streamsql.jobs import describe_job, job_summary, task_summary

    runner = SimpleNamespace(restored_from=None)
    metrics = {"rows_in": 5, "rows_out": 2, "dropped_retractions": 3}
    job = SimpleNamespace(metrics=metrics, last_checkpoint=None, runner=runner, name="j", status="FINISHED",
                          tasks=[], job_id="x", started=0.0)
    assert job_summary(job) == ("[INFO] Job 'j' FINISHED: 5 rows in, 2 rows out, 3 retractions of expired "
                                "rows dropped")
    assert "Dropped retractions: 3" in describe_job(job)
    task = {"task": "0-0", "worker": "w", "rows_in": 5, "input": "sources", "to_tables": True, "rows_out": 2,
            "rows_exchanged": 0, "to_exchange": False, "dropped_retractions": 3, "status": "FINISHED"}
    assert task_summary(task) == ("task 0-0 (worker w): 5 rows in from the sources, 2 rows out to tables, "
                                  "3 retractions of expired rows dropped")


def test_force_into_a_print_sink_prints_the_materializers_changelog(tmp_path, capfd):
    """'upsert-materialize' = 'FORCE' materializes an insert-only query into a keyed print sink, as
    Flink 2.3's analyzeUpsertMaterializeStrategy (a PRIMARY KEY, not a retract sink): the second row
    of key 1 is printed as +U (StreamSQL planned FORCE as AUTO and printed +I)."""
    from streamsql import StreamEnvironment

    src = tmp_path / "in.jsonl"
    src.write_text("".join(f'{{"id": {i}, "v": {v}}}\n' for i, v in ((1, 10), (2, 20), (1, 30), (3, 40))))
    env = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                             "execution.checkpointing.dir": str(tmp_path / "cp")})
    env.execute_sql(f"CREATE TABLE src (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = '{src}', "
                    "'format' = 'json')")
    env.execute_sql("CREATE TABLE snk (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                    "'connector' = 'print')")
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'FORCE'")
    capfd.readouterr()
    assert env.execute_sql("INSERT INTO snk SELECT id, v FROM src").wait(120) == "FINISHED"
    env.close()
    lines = [ln for ln in capfd.readouterr().out.splitlines() if ln[:2] in ("+I", "+U", "-U", "-D")]
    assert lines == ["+I[1, 10]", "+I[2, 20]", "+U[1, 30]", "+I[3, 40]"]
