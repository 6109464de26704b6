"""DOUBLE keys as Apache Flink 2.3 keys them: -0.0 apart from 0.0, every NaN one key.

``float_keys_flink.json`` is written by ``scripts/flink_float_keys.py`` (PyFlink 2.3): a GROUP BY, a
COUNT(DISTINCT) and two joins over rows holding 0.0, -0.0, two NaNs and a NULL. StreamSQL's final
tables must be Flink's.

Not fixed yet (a strict xfail: a fix must remove the mark): StreamSQL keys -0.0 as 0.0
(``streamsql/state/layout.py`` encodes keys by SQL's ``=``), so it gives one group of two where
Flink gives two groups, a COUNT(DISTINCT) of 2 where Flink counts 3, and joins -0.0 with 0.0
where Flink does not. Keeping -0.0 apart in ``encode_keys`` fixes the joins but not the GROUP BY
and DISTINCT (their rows are grouped within a batch before they are keyed, where -0.0 = 0.0), and
changes the state keys of every operator keyed by a DOUBLE: left for a change of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from streamsql.core.elements import RowKind
from tests.runtime.oracle import fold, make_env

FLINK = json.loads(Path(__file__).with_name("float_keys_flink.json").read_text())
KINDS = {k.short: k for k in RowKind}


def _cell(v):
    return "NaN" if isinstance(v, float) and v != v else v  # a NaN equals no other


@pytest.mark.parametrize("query", sorted(FLINK["queries"]))
@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_final_table_is_flinks(tmp_path, query, backend):
    env = make_env(tmp_path, backend)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in FLINK["rows"]))
    for name in ("l", "r"):
        env.execute_sql(f"CREATE TABLE {name} (id INT, d DOUBLE) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'json')")
    ours = fold([(kind, tuple(map(_cell, row))) for kind, row in env.execute_sql(query)])
    flink = fold([(KINDS[r[0]], tuple(map(_cell, r[1:]))) for r in FLINK["queries"][query]])
    assert Counter(ours) == Counter(flink)
