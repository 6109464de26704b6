"""Top-N changelogs when one of tied rows is deleted, as Apache Flink 2.3 emits them.

``topn_ties_flink.json`` is written by ``scripts/flink_topn_ties.py`` (PyFlink 2.3, one task, the
debezium file read in order): rows tied on the ORDER BY key inserted, then one of them deleted, the
ranked one or not, with and without the id and the rank number selected. Flink's
``RetractableTopNFunction`` takes a retraction row by row, as the ranking here over an updating
input, whatever the batch: the changelog a sink sees (not only the final table) must be Flink's,
in order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql.core.elements import RowKind
from tests.runtime.oracle import make_env

FLINK = json.loads(Path(__file__).with_name("topn_ties_flink.json").read_text())


@pytest.mark.parametrize(("backend", "batch_size"), [("hashmap", 1), ("rocksdb", 1), ("hashmap", None)])
@pytest.mark.parametrize("query", sorted(FLINK["queries"]))
def test_changelog_is_flinks(tmp_path, backend, batch_size, query):
    path = tmp_path / "c.json"
    path.write_text("".join(json.dumps(e) + "\n" for e in FLINK["events"]))
    env = make_env(tmp_path, backend, batch_size=batch_size)
    env.execute_sql(f"CREATE TABLE c ({FLINK['columns']}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = 'debezium-json')")
    got = [[RowKind(kind).short, *row] for kind, row in env.execute_sql(query)]
    assert got == FLINK["queries"][query]["rows"]
