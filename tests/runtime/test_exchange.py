"""The exchange routes a row to the task whose keyed state holds its key, and its records carry
batches with their row kinds intact."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from streamsql.connectors.kafka.exchange import decode_batch, encode_batch

from streamsql.core.elements import Batch
from streamsql.runtime.exchange import owner_tasks
from streamsql.state.layout import KG_ASSIGNMENT_RANGES, MAX_PARALLELISM, encode_keys, key_group


def test_owner_is_the_key_group_range_of_the_state_key():
    """Ranges of the state key's key group: bit-reversed for a new run, Flink's for an older run."""
    table = pa.table({"k": pa.array([1, None, 7, -3, 2**40], pa.int64()), "s": ["a", "b", None, "", "é"]})
    batch = Batch(table)
    for tasks in (1, 2, 3, 4, 8):
        owners = owner_tasks(batch, [0, 1], tasks)
        old = owner_tasks(batch, [0, 1], tasks, KG_ASSIGNMENT_RANGES)
        for i in range(table.num_rows):
            kg = key_group(encode_keys([table.column(0).slice(i, 1), table.column(1).slice(i, 1)])[0])
            assert owners[i] == int(f"{kg:07b}"[::-1], 2) * tasks // MAX_PARALLELISM
            assert old[i] == kg * tasks // MAX_PARALLELISM
        assert set(owners) <= set(range(tasks))


def test_no_key_sends_everything_to_one_task():
    batch = Batch(pa.table({"v": list(range(50))}))
    assert len(set(owner_tasks(batch, [], 4))) == 1


def test_records_round_trip_rows_and_kinds_in_chunks():
    n = 20_000
    table = pa.table({"k": np.arange(n), "s": [f"value-{i:08d}" * 4 for i in range(n)]})
    kinds = (np.arange(n) % 4).astype(np.int8)
    records = encode_batch(Batch(table, kinds))
    assert len(records) > 1 and all(len(r) < 1024 * 1024 for r in records)
    parts = [decode_batch(r) for r in records]
    assert pa.concat_tables([p.table for p in parts]).equals(table)
    assert np.array_equal(np.concatenate([p.kind_array() for p in parts]), kinds)
    insert_only = decode_batch(encode_batch(Batch(table.slice(0, 3)))[0])
    assert insert_only.kinds is None and insert_only.table.equals(table.slice(0, 3))
