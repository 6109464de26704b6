"""Aggregates over DOUBLE/FLOAT -0.0, 0.0, NaN and the infinities, as Apache Flink 2.3 answers them.

``float_aggs_flink.json`` is written by ``scripts/flink_float_aggs.py`` (PyFlink 2.3, one task):
MIN/MAX over an insert-only table (Flink's ``MinAggFunction``: Java's primitive ``<``, the first
of -0.0/0.0 stays and a NaN only when first), over another GROUP BY and over a debezium changelog
(``MinWithRetractAggFunction``: ``Double.compareTo`` order, -0.0 < 0.0 < ... < NaN), in TUMBLE,
HOP and CUMULATE windows and in OVER windows; COUNT/SUM(DISTINCT) keyed by ``Double.equals``;
SUM/AVG added and retracted row by row. The insert-only MIN/MAX depend on row order: the file
is read in order by one task on both sides, so only that order is tested.

Each query runs with all rows in one batch and with one row per batch (then every row meets the
state an earlier batch wrote), and the final table must be Flink's.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from streamsql.core.elements import RowKind
from streamsql.core.errors import StreamSQLError
from tests.runtime.oracle import fold, make_env

FLINK = json.loads(Path(__file__).with_name("float_aggs_flink.json").read_text())
KINDS = {k.short: k for k in RowKind}


def _files(tmp_path: Path) -> dict[str, Path]:
    t = tmp_path / "t.json"
    t.write_text("".join(json.dumps(r) + "\n" for r in FLINK["rows"]["t"]))
    c = tmp_path / "c.json"
    c.write_text("".join(json.dumps({"before": b, "after": a, "op": op}) + "\n"
                         for op, b, a in FLINK["rows"]["c"]))
    return {"t": t, "c": c}


@pytest.mark.parametrize("batch_size", [None, 1])
@pytest.mark.parametrize("query", sorted(FLINK["queries"]))
def test_final_table_is_flinks(tmp_path, query, batch_size):
    settings = {"table.local-time-zone": "UTC"}
    if batch_size:  # no accumulator cache: every batch reads back what the last one wrote
        settings["state.cache.max-entries"] = "0"
    env = make_env(tmp_path, "hashmap", batch_size, settings)
    for name, path in _files(tmp_path).items():
        columns, fmt = FLINK["tables"][name]
        env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = '{fmt}')")
    flink = FLINK["queries"][query]
    if "error" in flink:  # Flink refuses it (SUM(DISTINCT) in a HOP window): so must we
        with pytest.raises(StreamSQLError):
            list(env.execute_sql(query))
        return
    ours = fold([(kind, tuple(row)) for kind, row in env.execute_sql(query)])
    theirs = fold([(KINDS[r[0]], tuple(r[1:])) for r in flink["rows"]])
    assert Counter(ours) == Counter(theirs)
