"""A NULL rowtime, as Flink 2.3: the job fails, or the row is dropped and counted.

End to end (filesystem tables, no watermark push-down): every query of
``scripts/flink_null_rowtime.py`` runs here over the same rows and must end as Flink's did
(``null_rowtime_flink.json``). Operator level (what a Kafka source, whose watermark Flink
pushes into the source, lets through): the window operators, as Flink's ``SliceAssigners``,
``SessionUnsliceAssigner`` and ``AlignedWindowTableFunctionOperator``
(``streamsql.runtime.operators.rowtime_nulls``).
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ExecutionError
from streamsql.plan.query import compile_query
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import OperatorContext
from streamsql.runtime.operators.rowtime_nulls import METRIC, NULL_ROWTIME, NULL_SESSION_ROWTIME
from streamsql.runtime.operators.session_window import SessionWindowAggOperator
from streamsql.runtime.operators.slicing_window import SlicingWindowAggOperator
from streamsql.runtime.operators.watermark_assigner import WatermarkAssignerOperator
from streamsql.runtime.operators.window_agg import WindowTableFunctionOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import make_env
from tests.runtime.test_windows import BASE, IN_SCHEMA, OP_AGGS, OUT_SCHEMA

FLINK = json.loads((Path(__file__).parent / "null_rowtime_flink.json").read_text())
DDL = ("CREATE TABLE {name} (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
VERSIONED = ("CREATE VIEW ver AS SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
             "ORDER BY ts DESC) AS rn FROM ev2) WHERE rn = 1")


@pytest.mark.parametrize("name", sorted(FLINK["queries"]))
def test_query_over_a_null_rowtime_ends_as_flink(tmp_path, name):
    """Each query's outcome as Flink's: its error message (all of them fail at the source's
    watermark assigner: a filesystem table has no watermark push-down)."""
    case = FLINK["queries"][name]
    env = make_env(tmp_path)
    for table, rows in FLINK["rows"].items():
        path = tmp_path / f"{table}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        env.execute_sql(DDL.format(name=table, path=path))
    env.execute_sql(VERSIONED)
    assert "error" in case, f"{name}: Flink answered {case.get('rows')}"  # every case fails in Flink
    with pytest.raises(Exception, match=r"RowTime field should not be null, please convert it to a "
                                        r"non-null long value\. \(column 'ts' of the table 'ev'\)"):
        list(env.execute_sql(case["sql"]).collect(timeout=30))
    assert NULL_ROWTIME in case["error"]


#: A bounded OVER frame drops the NULL rowtime as late even before any watermark: epoch 0 is not
#: after the key's last emitted rowtime, 0 at first (Flink's ``lastTriggeringTs``).
BOUNDED_OVER = ("over_range", "over_rows", "over_rows_bounded")


@pytest.fixture(scope="module")
def kafka_tables(kafka_bootstrap, kafka_admin):
    """The DDL of ``ev``, ``ev2`` and ``evl`` as Kafka tables over topics holding Flink's rows."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import NewTopic

    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    topics, ddl = [], {}
    for table, rows in FLINK["rows"].items():
        topic = f"null-rowtime-{table}-{uuid.uuid4().hex[:10]}"
        kafka_admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(60)
        topics.append(topic)
        for row in rows:
            producer.produce(topic, json.dumps(row).encode())
        ddl[table] = FLINK["kafka_ddl"]["table"].format(name=table, topic=topic, bootstrap=kafka_bootstrap)
    assert producer.flush(30) == 0
    yield ddl
    for fut in kafka_admin.delete_topics(topics, operation_timeout=10).values():
        fut.result(timeout=15)


def _flink_rows(case: dict) -> Counter:
    """Flink's rows as ``str(list(row))`` (an updating result, recorded with its kinds: folded)."""
    rows = Counter()
    for r in case["rows"]:
        kind = r[2:4] if r.startswith("['") and r[4:7] == "', " and r[2] in "+-" else None
        row = r if kind is None else "[" + r[len("['+I', "):]
        rows[row] += -1 if kind in ("-U", "-D") else 1
    return +rows


def _run(env, ddl: dict, sql: str) -> tuple[Counter, dict]:
    """``sql``'s rows here (folded, as ``str(list(row))``) and its job's metrics."""
    for statement in [*ddl.values(), *FLINK["kafka_ddl"]["views"]]:
        env.execute_sql(statement)
    result = env.execute_sql(sql)
    rows = Counter()
    for kind, row in result.collect(timeout=60):
        rows[str(list(row))] += 1 if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER) else -1
    return +rows, result.job.metrics


@pytest.mark.parametrize("name", sorted(FLINK["kafka"]))
def test_kafka_query_over_a_null_rowtime_as_flink(tmp_path, kafka_tables, name):
    """Behind a Kafka table (the watermark pushed into the source, the row goes on) each query ends
    as Flink's: its rows (the NULL rowtime read as 1970-01-01 00:00:00 by OVER, ORDER BY,
    MATCH_RECOGNIZE, the legacy group windows, row-time deduplication and the temporal join; the
    row keeps its NULL), or its error. A row Flink leaves out of a window TVF is counted."""
    case = FLINK["kafka"][name]
    env = make_env(tmp_path)
    if "error" in case:
        message = case["error"].split(" / ")[-1]
        with pytest.raises(ExecutionError, match=re.escape(message)):
            _run(env, kafka_tables, case["sql"])
        return
    rows, metrics = _run(env, kafka_tables, case["sql"])
    assert rows == _flink_rows(case)
    tvf = "TABLE(TUMBLE(TABLE ev," in case["sql"]
    assert metrics.get(METRIC, 0) == (1 if tvf else 0)
    assert metrics.get("late_records", 0) == (1 if name in BOUNDED_OVER else 0)


@pytest.mark.parametrize("name", sorted(FLINK["kafka_late"]))
def test_kafka_late_null_rowtime_as_flink(tmp_path, kafka_tables, name):
    """``evl``'s NULL rowtime comes after the watermark passed 2024-05-01 00:01:25: read as
    1970-01-01 it is late, and every operator that Flink's drops it in drops and counts it in
    ``late_records`` (Flink: a watermark after every row, ``'scan.watermark.emit.strategy' =
    'on-event'``; here a batch of one row, each followed by its watermark)."""
    case = FLINK["kafka_late"][name]
    rows, metrics = _run(make_env(tmp_path, batch_size=1), kafka_tables, case["sql"])
    assert rows == _flink_rows(case)
    kept = any("'b'" in r for r in rows)
    if name == "tumble_select":
        assert metrics.get(METRIC, 0) == 1 and not kept
    else:
        assert metrics.get("late_records", 0) == (0 if kept else 1)


def _batch(rows) -> Batch:
    k, ts, v = zip(*rows)
    times = pa.array(ts, pa.int64()).cast(pa.timestamp("ms"))
    return Batch(pa.Table.from_arrays([pa.array(k, pa.string()), times, pa.array(v, pa.int32())],
                                      schema=IN_SCHEMA))


ROWS = [("a", BASE, 1), ("b", None, 2), ("a", BASE + 90_000, 3)]


@pytest.mark.parametrize(("kind", "message"), [("TUMBLE", NULL_ROWTIME), ("HOP", NULL_ROWTIME),
                                               ("CUMULATE", NULL_ROWTIME), ("SESSION", NULL_SESSION_ROWTIME)])
def test_window_aggregate_fails_on_a_null_rowtime(tmp_path, kind, message):
    """Past a source that lets it through (Kafka), the window aggregate fails the job with
    Flink's message: ``SliceAssigners`` (TUMBLE/HOP/CUMULATE), ``SessionUnsliceAssigner``'s own
    words for SESSION (Flink's answers behind Kafka tables: ``FLINK["kafka"]``)."""
    assert message in FLINK["kafka"][f"{kind.lower()}_aggregate"]["error"]
    if kind == "SESSION":
        op = SessionWindowAggOperator(WindowSpec("SESSION", gap=3000), 1, 1, OP_AGGS, IN_SCHEMA, OUT_SCHEMA)
    else:
        slide = {"HOP": 5000, "CUMULATE": 2000}.get(kind, 0)
        op = SlicingWindowAggOperator(WindowSpec(kind, size=10_000, slide=slide), 1, 1, OP_AGGS, IN_SCHEMA,
                                      OUT_SCHEMA)
    op, backend = open_operator(op, "hashmap", tmp_path / "w", "w")
    try:
        op.process_batch(_batch(ROWS[:1]), 0)  # no NULL: fine
        with pytest.raises(ExecutionError, match=fr"^{message} \(column '__ts' of the .*window aggregate\)$"):
            op.process_batch(_batch(ROWS), 0)
    finally:
        backend.close()


def test_window_tvf_without_aggregation_drops_and_counts_a_null_rowtime(tmp_path):
    """As Flink's ``AlignedWindowTableFunctionOperator``: the row is dropped and counted
    (``numNullRowTimeRecordsDropped``; here ``null_rowtime_records``), the others go on."""
    flink = FLINK["kafka"]["tumble_select"]["rows"]  # behind Kafka: 'b' (NULL rowtime) is not there
    assert len(flink) == 2 and not any("'b'" in r for r in flink)
    out = pa.schema(list(IN_SCHEMA) + [pa.field(n, pa.timestamp("ms")) for n in ("ws", "we", "wt")])
    metrics: dict = {}
    op, backend = open_operator(WindowTableFunctionOperator(WindowSpec("TUMBLE", size=60_000), 1, out),
                                "hashmap", tmp_path / "w", "w", metrics=metrics)
    try:
        (got,) = op.process_batch(_batch(ROWS), 0)
    finally:
        backend.close()
    assert got.table.column("__a1").to_pylist() == [1, 3]
    assert metrics == {METRIC: 1}


def _assigner(null_rowtime):
    schema = pa.schema([("k", pa.string()), ("ts", pa.timestamp("ms"))])
    query = BatchQuery(compile_query([("wm", "ts - INTERVAL 5 SECOND")], None, schema))
    eager = None if null_rowtime is None else 200  # as the planner: Kafka has push-down, no eager cuts
    op = WatermarkAssignerOperator(query, eager_interval_ms=eager, null_rowtime=null_rowtime)
    op.open(OperatorContext("watermark-1", None, {}))
    return op, schema


def test_watermark_assigner_fails_on_a_null_rowtime_without_push_down():
    """As Flink's ``WatermarkAssignerOperator`` (a source without watermark push-down)."""
    op, schema = _assigner(("ts", "ev"))
    ts = pa.array([BASE, None], pa.int64()).cast(pa.timestamp("ms"))
    batch = Batch(pa.Table.from_arrays([pa.array(["a", "b"]), ts], schema=schema))
    with pytest.raises(ExecutionError, match=r"^RowTime field .* \(column 'ts' of the table 'ev'\)$"):
        op.process_batch(batch, 0)
    assert "'b', 2, None" in FLINK["kafka"]["scan"]["rows"][-1]  # Kafka: Flink passes the row
    op, _ = _assigner(None)  # Kafka: Flink's pushed-down generator skips a NULL watermark value
    assert op.process_batch(batch, 0)[0].table.num_rows == 2
    assert np.array_equal(op.maxes, [BASE - 5000])
