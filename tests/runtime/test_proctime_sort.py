"""``ORDER BY <proctime> [, ...]`` without LIMIT: Flink 2.3's ``ProcTimeSort``, checked against Flink.

``proctime_sort_flink.json`` (``scripts/flink_proctime_sort.py``) holds what Flink 2.3 does with
each query: its plan (``TemporalSort(orderBy=[pt ASC, ...])``), its rows over a bounded filesystem
table and over an unbounded Kafka topic (several runs: an answer that depends on the timing shows
its variants), or its refusal. The operator tests drive the processing-time clock themselves.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import Batch
from streamsql.core.errors import SqlError
from streamsql.runtime.operators.proctime import ProcessingTimeOperator
from streamsql.runtime.operators.temporal_sort import TemporalSortOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import make_env

FLINK = json.loads((Path(__file__).parent / "proctime_sort_flink.json").read_text())
SCENARIOS = FLINK["scenarios"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms
SCHEMA = pa.schema([("id", pa.int32()), ("k", pa.string()), ("pt", pa.timestamp("ms", tz="UTC"))])


# -- operator level: the clock is the test's ---------------------------------------------------------


class Clock:
    """A processing-time clock the test moves (ms)."""

    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


def _batch(rows):
    ids, ks = zip(*rows)
    pt = pa.array([0] * len(rows), pa.int64()).cast(pa.timestamp("ms", tz="UTC"))  # overwritten on arrival
    arrays = [pa.array(ids, pa.int32()), pa.array(ks, pa.string()), pt]
    return Batch(pa.Table.from_arrays(arrays, schema=SCHEMA))


def _ids(elements):
    return [r["id"] for el in elements if isinstance(el, Batch) for r in el.table.to_pylist()]


def _sort_op(order, tmp_path, clock):
    inner = TemporalSortOperator(2, order, [True] * len(order), [False] * len(order), SCHEMA, by_arrival=True)
    return open_operator(ProcessingTimeOperator(inner, 2, eager=not order), "hashmap", tmp_path / "w",
                         "temporal-sort-1", clock=clock)


def test_rows_wait_for_the_next_tick_then_go_sorted_by_the_other_keys(tmp_path):
    clock = Clock(BASE)
    op, backend = _sort_op([1], tmp_path, clock)  # ORDER BY pt, k DESC
    assert _ids(op.process_batch(_batch([(1, "a"), (2, "c"), (3, "b")]), 0)) == []
    assert _ids(op.process_batch(_batch([(4, "d")]), 0)) == []  # the same tick's rows sort together
    clock.now += 200
    assert _ids(op.on_tick()) == [4, 2, 3, 1]
    assert _ids(op.process_batch(_batch([(5, "z"), (6, "a")]), 0)) == []
    assert _ids(op.on_tick()) == [5, 6]  # the next tick: the clock moved on with the batch
    assert _ids(op.process_batch(_batch([(7, "a")]), 0)) == []
    assert _ids(op.finish()) == []  # end of input: the waiting row is dropped, as Flink's timer
    backend.close()


def test_with_no_other_key_rows_go_on_in_arrival_order(tmp_path):
    op, backend = _sort_op([], tmp_path, Clock(BASE))
    assert _ids(op.process_batch(_batch([(2, "b"), (1, "a")]), 0)) == [2, 1]
    assert _ids(op.process_batch(_batch([(3, "c")]), 0)) == [3]
    backend.close()


# -- against Flink 2.3 ---------------------------------------------------------------------------------


def _env(tmp_path, source: str, kafka_bootstrap=None, topic=None):
    env = make_env(tmp_path)
    if source == "kafka":
        env.execute_sql(f"CREATE TABLE ev ({FLINK['columns']}) WITH ('connector' = 'kafka', "
                        f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        "'scan.startup.mode' = 'earliest-offset', 'format' = 'json')")
        return env
    rows, fmt, key = (FLINK["changes"], "debezium-json", ", PRIMARY KEY (id) NOT ENFORCED") \
        if source == "changelog" else (FLINK["rows"], "json", "")
    path = tmp_path / "ev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env.execute_sql(f"CREATE TABLE ev ({FLINK['columns']}{key}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = '{fmt}')")
    return env


def _desc(value):
    return tuple(-b for b in value.encode()) + (1,) if isinstance(value, str) else -value


#: Per scenario with keys after the processing-time attribute: the sort key of a source row (Flink:
#: NULLS FIRST for ASC, LAST for DESC unless told), and the rows that reach the sort.
SORTS = {
    "bounded_then_key": (lambda r: (r["k"] is not None, r["k"] or ""), lambda r: True),
    "bounded_then_keys": (lambda r: (r["k"] is None, _desc(r["k"] or ""), r["v"]), lambda r: True),
    "bounded_filtered": (lambda r: r["v"], lambda r: r["v"] > 0),
    "kafka_then_keys": (lambda r: (r["k"] is not None, _desc(r["k"] or ""), r["v"]), lambda r: True),
    "kafka_hidden_key": (lambda r: -r["v"], lambda r: True),
}


def _firings(out: list[list], name: str) -> bool:
    """Whether ``out`` (rows led by kind and id) is the arrival order cut into firings, each sorted.

    As Flink's ``ProcTimeSortOperator``: the rows that arrived before each timer, sorted by the
    other keys (a stable sort), firing after firing; the rows of the last ones may be missing (a
    bounded input's end drops the rows still waiting).
    """
    key, kept = SORTS[name]
    by_id = {r["id"]: r for r in FLINK["rows"]}
    arrival = [r for r in FLINK["rows"] if kept(r)]
    ids = [row[1] for row in out]

    def cut(i: int, at: int) -> bool:  # out[at:] is arrival[i:]'s firings (or a prefix of them)
        if at == len(ids):
            return True
        return any(ids[at:at + j - i] == [r["id"] for r in sorted(arrival[i:j], key=key)]
                   and cut(j, at + j - i) for j in range(i + 1, len(arrival) + 1))

    return all(row[0] == "+I" and row[1] in by_id for row in out) and cut(0, 0)


def _flink_plan_line(record: dict) -> str:
    return next(ln.strip().lstrip("+- ") for ln in record["plan"].splitlines() if "TemporalSort" in ln)


def _as_flink(rows) -> list[list]:
    return [[kind.short, *row] for kind, row in rows]


@pytest.mark.parametrize("name", [n for n, r in SCENARIOS.items() if r["source"] != "kafka"])
def test_bounded_as_flink(tmp_path, name):
    """A bounded input: Flink's plan and rows, or its refusal.

    With other keys after the processing-time attribute Flink's answer depends on whether its
    1 ms timer fired before the input ended (its runs: no row, or every row sorted); here the end
    of a short file comes before the first tick: no row, one of Flink's answers.
    """
    record = SCENARIOS[name]
    env = _env(tmp_path, record["source"])
    if "flink_error" in record:
        words = record["flink_error"].split(": ", 1)[1].split(" which ")[0].rstrip(".")
        with pytest.raises(SqlError, match=words):
            env.execute_sql(record["query"])
        return
    assert _flink_plan_line(record) in env.execute_sql("EXPLAIN " + record["query"]).message
    got = _as_flink(env.execute_sql(record["query"]).collect(timeout=60))
    if name not in SORTS:  # the processing-time attribute alone: the input as it is, every run
        assert got in record["runs"], (got, record["runs"])
        return
    assert all(_firings(run, name) for run in record["runs"]), record["runs"]  # the model is Flink's
    assert _firings(got, name), got


@pytest.mark.parametrize("name", [n for n, r in SCENARIOS.items() if r["source"] == "kafka"])
def test_unbounded_kafka_as_flink(tmp_path, kafka_bootstrap, kafka_topic_factory, name):
    """An unbounded topic written before the job starts: the rows Flink emitted, in its order."""
    from confluent_kafka import Producer

    record = SCENARIOS[name]
    topic = kafka_topic_factory("gaps35-ptsort")
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for r in FLINK["rows"]:
        producer.produce(topic, json.dumps(r).encode())
    producer.flush(10)
    env = _env(tmp_path, "kafka", kafka_bootstrap, topic)
    assert _flink_plan_line(record) in env.execute_sql("EXPLAIN " + record["query"]).message
    result = env.execute_sql(record["query"])
    got, deadline = [], time.monotonic() + 60
    it = iter(result.collect(timeout=60))
    while len(got) < len(FLINK["rows"]) and time.monotonic() < deadline:
        kind, row = next(it)
        got.append([kind.short, *row])
    result.job.cancel()
    if name in SORTS:
        assert all(_firings(run, name) for run in record["runs"]), record["runs"]
    assert got in record["runs"], (got, record["runs"])
