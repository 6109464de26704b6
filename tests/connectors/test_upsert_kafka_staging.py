"""upsert-kafka sink: every change written by default; with both buffer-flush options (reducing,
as Flink's ReducingUpsertWriter) early (staged) encoding keeps one message per key per flush.

No broker: the producer session's handle is replaced by a recorder (the sink is never opened).
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from streamsql.connectors.kafka.upsert import UpsertKafkaSink

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError
from streamsql.core.types import SqlType

INS, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
#: Both buffer-flush options > 0: the sink reduces per key (Flink's ReducingUpsertWriter).
REDUCING = {"sink.buffer-flush.max-rows": "100000", "sink.buffer-flush.interval": "1 h"}


class Recorder:
    batch = None  # no librdkafka batch produce: keys and values come as lists

    def __init__(self):
        self.sent: list[list[tuple[bytes, bytes | None]]] = []

    def produce_many(self, topic, keys, values, partition=-1, timestamps=None, headers=None):
        self.sent.append(list(zip(keys, values)))

    def flush(self):
        pass

    def check(self):
        pass


class BatchRecorder(Recorder):
    """A producer with librdkafka's batch produce (exactly-once): Arrow arrays, one call a flush."""

    batch = True

    def produce_many(self, topic, keys, values, partition=-1, timestamps=None, headers=None):
        assert isinstance(keys, pa.Array) and isinstance(values, pa.Array), "no Python object per change"
        assert keys.null_count == 0 and timestamps is None and headers is None
        as_bytes = [v if v is None else v.encode() for v in values.to_pylist()]
        super().produce_many(topic, [k.encode() for k in keys.to_pylist()], as_bytes, partition)


def sink(recorder: type[Recorder] = Recorder, **extra) -> tuple[UpsertKafkaSink, Recorder]:
    opts = {
        "connector": "upsert-kafka",
        "topic": "t",
        "properties.bootstrap.servers": "127.0.0.1:1",
        "key.format": "json",
        "value.format": "json",
        "sink.delivery-guarantee": "at-least-once",
    }
    opts.update(extra)
    cols = [ColumnDef("id", SqlType.parse("BIGINT")), ColumnDef("name", SqlType.parse("STRING"))]
    tdef = TableDef("u", cols, opts, primary_key=["id"])
    s = UpsertKafkaSink(ConnectorContext(tdef, "job", {}))
    rec = recorder()
    s.session.handle = rec
    return s, rec


def batch(ids, names, kinds) -> Batch:
    t = pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array(names, pa.string())})
    return Batch(t, np.asarray(kinds, dtype=np.int8))


def decoded(msgs):
    return {json.loads(k)["id"]: (None if v is None else json.loads(v)["name"]) for k, v in msgs}


@pytest.mark.parametrize("recorder", [Recorder, BatchRecorder])
def test_every_change_is_written_by_default(recorder):
    """Flink 2.3's upsert-kafka sink without 'sink.buffer-flush.*' writes every change, in order:
    3 changes of one key in one checkpoint are 3 records (a -U a tombstone, as Flink's
    DynamicKafkaRecordSerializationSchema). Compacted to 1 before."""
    s, rec = sink(recorder)
    assert not s.reducing
    s.write(batch([1], ["a"], [INS]))
    s.write(batch([1, 1, 1], ["a", "b", "c"], [UB, UA, UA]))
    s.pre_commit(1)
    msgs = [m for sent in rec.sent for m in sent]
    assert [(json.loads(k)["id"], v and json.loads(v)["name"]) for k, v in msgs] == [
        (1, "a"), (1, None), (1, "b"), (1, "c")]
    assert s.rows_compacted == 0


@pytest.mark.parametrize("options", [
    {"sink.buffer-flush.max-rows": "10"},
    {"sink.buffer-flush.interval": "1 s"},
    {"sink.buffer-flush.max-rows": "10", "sink.buffer-flush.interval": "0"},
])
def test_one_buffer_flush_option_alone_is_refused_in_flinks_words(options):
    with pytest.raises(ConfigError, match=(
            "'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' must be set to be greater "
            "than zero together to enable sink buffer flushing.")) as ei:
        sink(**options)
    max_rows = options.get("sink.buffer-flush.max-rows", "0") != "0"
    assert ei.value.option == ("sink.buffer-flush.max-rows" if max_rows else "sink.buffer-flush.interval")


def test_reducing_flushes_when_max_rows_keys_are_buffered():
    """As Flink's ReducingUpsertWriter: the buffer is written once it holds max-rows distinct keys
    (not rows), each key's last change."""
    s, rec = sink(**{**REDUCING, "sink.buffer-flush.max-rows": "2"})
    s.write(batch([1, 1], ["a", "b"], [INS, UA]))
    s.write(batch([1], ["c"], [UA]))
    assert not rec.sent  # 3 rows, 1 key
    s.write(batch([2], ["x"], [INS]))
    assert len(rec.sent) == 1 and decoded(rec.sent[0]) == {1: "c", 2: "x"} and len(rec.sent[0]) == 2
    s.write(batch([1], ["d"], [UA]))
    s.pre_commit(1)
    assert decoded(rec.sent[1]) == {1: "d"}


def test_staged_changes_stay_compacted_per_epoch():
    s, rec = sink(**REDUCING)
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


@pytest.mark.parametrize("recorder", [Recorder, BatchRecorder])
def test_a_lone_update_before_is_a_tombstone(recorder):
    """A -U that no +U of its key follows (the row left a WHERE after an aggregation, or an update
    changed the key): Flink's upsert-kafka writes a tombstone for it, so the key is gone."""
    s, rec = sink(recorder)
    s.write(batch([1, 2], ["a", "x"], [INS, INS]))
    s.pre_commit(1)
    s.write(batch([1, 2, 3], ["a", "x", "y"], [UB, UB, UA]))
    s.pre_commit(2)
    assert decoded(rec.sent[-1]) == {1: None, 2: None, 3: "y"}


def test_no_early_staging_after_a_heavily_compacted_epoch():
    s, rec = sink(**REDUCING)
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
    s, rec = sink(**{**REDUCING, "sink.buffer-flush.max-rows": "5"})
    s.stage_rows = 2
    s.write(batch([1, 2, 3], ["a", "b", "c"], [INS] * 3))
    assert not rec.sent and len(s._staged) == 3
    s.write(batch([4, 5], ["d", "e"], [INS] * 2))  # 3 staged + 2 buffered: an early flush
    assert len(rec.sent) == 1 and decoded(rec.sent[0]) == {1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}


def test_batch_produce_interleaves_tombstones_in_order():
    """The batch path (one Arrow array of values, a NULL a tombstone) writes the list path's records."""
    changes = [([1, 2, 3, 1], ["a", "x", "y", "a"], [INS, INS, INS, D]),
               ([2, 2, 3, 4, 4], ["x", "w", "y", "k", "k"], [UB, UA, D, INS, UB]),
               ([4, 5], ["k", "é\n"], [D, INS]),
               ([5], ["é\n"], [D])]  # only deletes: no value encoded
    written = []
    for recorder in (Recorder, BatchRecorder):
        s, rec = sink(recorder)
        for ids, names, kinds in changes:
            s.write(batch(ids, names, kinds))
        s.pre_commit(1)
        written.append(rec.sent)
    assert written[0] == written[1]
    assert [(json.loads(k)["id"], v and json.loads(v)["name"]) for sent in written[1] for k, v in sent] == [
        (1, "a"), (2, "x"), (3, "y"), (1, None),
        (2, None), (2, "w"), (3, None), (4, "k"), (4, None),
        (4, None), (5, "é\n"),
        (5, None)]
