"""DOUBLE keys as Apache Flink 2.3 keys them: -0.0 apart from 0.0, every NaN one key.

``float_keys_flink.json`` is written by ``scripts/flink_float_keys.py`` (PyFlink 2.3): a GROUP BY, a
COUNT(DISTINCT) and two joins over rows holding 0.0, -0.0, two NaNs and a NULL. StreamSQL's final
tables must be Flink's.

StreamSQL keyed -0.0 as 0.0 until ``encode_keys`` kept it apart, and the GROUP BY's DuckDB grouping
(:func:`~streamsql.state.layout.group_by_items`) and its distinct multisets
(:class:`~streamsql.core.java_hash.DoubleKey`) with it. Each query runs twice: all rows in one
batch, and one row per batch (then -0.0's group, and a NaN's, meet state written by an earlier
batch, and a restored multiset's keys are decoded ones).
"""

from __future__ import annotations

import json
import math
import struct
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import RowKind
from streamsql.core.java_hash import double_key
from streamsql.state.layout import decode_value, encode_keys, encode_value
from tests.runtime.oracle import fold, make_env

FLINK = json.loads(Path(__file__).with_name("float_keys_flink.json").read_text())
KINDS = {k.short: k for k in RowKind}


def _cell(v):
    return "NaN" if isinstance(v, float) and v != v else v  # a NaN equals no other


QUERIES = sorted(FLINK["queries"])


@pytest.mark.parametrize("batch_size", [None, 1])
@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_final_table_is_flinks(tmp_path, query, backend, batch_size):
    # one row per batch with no accumulator cache: every batch reads back what the last one wrote
    settings = {"state.cache.max-entries": "0"} if batch_size else None
    env = make_env(tmp_path, backend, batch_size, settings)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in FLINK["rows"]))
    for name, columns in FLINK["tables"].items():
        env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'json')")
    ours = fold([(kind, tuple(map(_cell, row))) for kind, row in env.execute_sql(query)])
    flink = fold([(KINDS[r[0]], tuple(map(_cell, r[1:]))) for r in FLINK["queries"][query]])
    assert Counter(ours) == Counter(flink)


#: encode_keys of (DOUBLE, BIGINT 1) and of (FLOAT) keys 1.5, 0.0, NaN, NULL, -2.0, inf, written by
#: StreamSQL before -0.0 was keyed apart (commit 7a59b18): every key but -0.0's must stay these bytes,
#: or a checkpoint's state under them would no longer be found.
_OLD_DOUBLE = ["013ff8000000000000010000000000000001", "010000000000000000010000000000000001",
               "017ff8000000000000010000000000000001", "000000000000000000010000000000000001",
               "01c000000000000000010000000000000001", "017ff0000000000000010000000000000001"]
_OLD_FLOAT = ["013ff8000000000000", "010000000000000000", "017ff8000000000000", "000000000000000000",
              "01c000000000000000", "017ff0000000000000"]


@pytest.mark.parametrize("float_type", [pa.float64(), pa.float32()])
def test_state_keys_of_all_but_negative_zero_are_unchanged(float_type):
    vals = [1.5, 0.0, float("nan"), None, -2.0, float("inf"), -0.0]
    doubles = pa.array(vals, float_type)
    if float_type == pa.float64():
        keys, old = encode_keys([doubles, pa.array([1] * 7, pa.int64())], 7), _OLD_DOUBLE
    else:
        keys, old = encode_keys([doubles], 7), _OLD_FLOAT
    assert [k.hex() for k in keys[:6]] == old
    assert keys[6] != keys[1]  # -0.0 is a key of its own now (it was 0.0's)
    assert keys[6][1:9] == struct.pack(">d", -0.0)


def test_double_keys_survive_state_as_java_keys():
    """A multiset keyed by -0.0, 0.0 and NaN reads back with the three keys apart (Java's equals)."""
    ms = {double_key(v): n for v, n in [(-0.0, 1), (0.0, 2), (float("nan"), 3)]}
    back = decode_value(encode_value(ms))
    assert len(back) == 3
    assert back[double_key(-0.0)] == 1 and back[0.0] == 2 and back[double_key(float("nan"))] == 3
    assert math.copysign(1.0, next(k for k, n in back.items() if n == 1)) == -1.0
