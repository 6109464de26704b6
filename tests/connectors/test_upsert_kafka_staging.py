"""upsert-kafka sink: early (staged) encoding keeps one message per key per epoch.

No broker: the producer session's handle is replaced by a recorder (the sink is never opened).
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
from streamsql.connectors.kafka.upsert import UpsertKafkaSink

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.elements import Batch, RowKind
from streamsql.core.types import SqlType

INS, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE


class Recorder:
    def __init__(self):
        self.sent: list[list[tuple[bytes, bytes | None]]] = []

    def produce_many(self, topic, keys, values, partition=-1, timestamps=None, headers=None):
        self.sent.append(list(zip(keys, values)))

    def flush(self):
        pass

    def check(self):
        pass


def sink(**extra) -> tuple[UpsertKafkaSink, Recorder]:
    opts = {
        "connector": "upsert-kafka",
        "topic": "t",
        "properties.bootstrap.servers": "127.0.0.1:1",
        "key.format": "json",
        "value.format": "json",
        "sink.delivery-guarantee": "at-least-once",
        "sink.buffer-flush.interval": "0",
    }
    opts.update(extra)
    cols = [ColumnDef("id", SqlType.parse("BIGINT")), ColumnDef("name", SqlType.parse("STRING"))]
    tdef = TableDef("u", cols, opts, primary_key=["id"])
    s = UpsertKafkaSink(ConnectorContext(tdef, "job", {}))
    rec = Recorder()
    s.session.handle = rec
    return s, rec


def batch(ids, names, kinds) -> Batch:
    t = pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array(names, pa.string())})
    return Batch(t, np.asarray(kinds, dtype=np.int8))


def decoded(msgs):
    return {json.loads(k)["id"]: (None if v is None else json.loads(v)["name"]) for k, v in msgs}


def test_staged_changes_stay_compacted_per_epoch():
    s, rec = sink()
    s.stage_rows = 2  # stage after every write
    s.write(batch([1, 2], ["a", "x"], [INS, INS]))
    assert s._staged and not s._buf and not rec.sent  # encoded early, not produced
    s.write(batch([1, 1, 3], ["a", "b", "y"], [UB, UA, INS]))
    s.write(batch([1, 1, 2], ["b", "c", "x"], [UB, UA, D]))
    s.write(batch([4], ["z"], [INS]))  # below stage_rows: stays in the Arrow buffer
    assert s._buf
    s.pre_commit(1)
    assert len(rec.sent) == 1
    msgs = rec.sent[0]
    assert len(msgs) == len({k for k, _ in msgs}) == 4  # one message per key
    assert decoded(msgs) == {1: "c", 2: None, 3: "y", 4: "z"}
    assert s.rows_compacted == 5  # the -U rows too: each is a tombstone its key's +U replaces
    assert not s._staged and not s._buf


def test_a_lone_update_before_is_a_tombstone():
    """A -U that no +U of its key follows (the row left a WHERE after an aggregation, or an update
    changed the key): Flink's upsert-kafka writes a tombstone for it, so the key is gone."""
    s, rec = sink()
    s.write(batch([1, 2], ["a", "x"], [INS, INS]))
    s.pre_commit(1)
    s.write(batch([1, 2, 3], ["a", "x", "y"], [UB, UB, UA]))
    s.pre_commit(2)
    assert decoded(rec.sent[-1]) == {1: None, 2: None, 3: "y"}


def test_no_early_staging_after_a_heavily_compacted_epoch():
    s, rec = sink()
    s.stage_rows = 2
    s.write(batch([1] * 10, [str(i) for i in range(10)], [UA] * 10))
    s.write(batch([1] * 10, [str(i) for i in range(10, 20)], [UA] * 10))
    s.pre_commit(1)
    assert decoded(rec.sent[0]) == {1: "19"}
    assert s._distinct_ratio < 0.5
    s.write(batch([1, 2, 3], ["a", "b", "c"], [INS] * 3))
    assert not s._staged and s._buf  # the last epoch compacted a lot: encoding waits for the flush
    s.pre_commit(2)
    assert decoded(rec.sent[1]) == {1: "a", 2: "b", 3: "c"}
    assert s._distinct_ratio == 1.0


def test_max_rows_counts_staged_changes():
    s, rec = sink(**{"sink.buffer-flush.max-rows": "5"})
    s.stage_rows = 2
    s.write(batch([1, 2, 3], ["a", "b", "c"], [INS] * 3))
    assert not rec.sent and len(s._staged) == 3
    s.write(batch([4, 5], ["d", "e"], [INS] * 2))  # 3 staged + 2 buffered: an early flush
    assert len(rec.sent) == 1 and decoded(rec.sent[0]) == {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}
