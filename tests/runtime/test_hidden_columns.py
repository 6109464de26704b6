"""Columns of the user's named as the evaluator's hidden columns (``__kind``, ``__split``, ``__row``):
Flink allows any name, and a filter over such a table failed with an internal error ('Field "__row"
exists 2 times in schema'). Expected rows: DuckDB's answer to the same query over the same file."""

from __future__ import annotations

import json

import duckdb

from streamsql import StreamEnvironment

ROWS = [{"id": 1, "__row": 100, "__kind": 7, "__split": 9, "__dummy": 1},
        {"id": 2, "__row": 200, "__kind": 8, "__split": 10, "__dummy": 2},
        {"id": 3, "__row": None, "__kind": 9, "__split": 11, "__dummy": 3}]


def test_a_column_named_as_a_hidden_column_is_the_column(tmp_path):
    path = tmp_path / "h.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    query = "SELECT id, __row, __kind + 1, __split, __dummy FROM h WHERE id > 1"
    want = sorted(duckdb.sql(query.replace("FROM h", f"FROM read_json('{path}')")).fetchall())
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE h (id INT, __row INT, __kind INT, __split INT, __dummy INT) WITH "
                        f"('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
        got = sorted(tuple(row) for _, row in env.execute_sql(query).collect(timeout=60))
    assert got == want == [(2, 200, 9, 10, 2), (3, None, 10, 11, 3)]
