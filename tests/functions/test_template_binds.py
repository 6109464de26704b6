"""What a function's compiled SQL binds (``registry.template``'s lets, the collection functions'
lambdas) must never capture a column of the user's: Flink allows any name for a column, ``__x`` and
``__let0_0`` too. Expected values are Apache Flink 2.3's answers to the same queries over the same
rows (PyFlink, streaming, parallelism 1)."""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment

# Columns named as the lambda parameters and lets of our compiled SQL.
ROWS = [{"id": 1, "__x": 2, "__let0_0": 99999999, "j": 9, "arr": [1, 2, 3], "__a": 7, "__s0": "p"},
        {"id": 2, "__x": 3, "__let0_0": -5, "j": 11, "arr": [3, 3, 1], "__a": 1, "__s0": "q"}]
DDL = ("CREATE TABLE c (id INT, __x INT, __let0_0 INT, j INT, arr ARRAY<INT>, __a INT, __s0 STRING) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("binds")
    (tmp / "c.json").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp"),
                            "table.local-time-zone": "UTC", "parallelism.default": "1"}) as e:
        e.execute_sql(DDL.format(path=tmp / "c.json"))
        yield e


def rows(env, sql: str) -> list:
    return sorted(tuple(row) for _, row in env.execute_sql(sql).collect(timeout=60))


@pytest.mark.parametrize("sql, flink", [
    # GREATEST binds its long first argument as __let0_0: the column of that name was read as it
    ("SELECT id, GREATEST(j * 1000 + j * 100 + j * 10 + j + 1000000 + j * j, __let0_0) FROM c",
     [(1, 99999999), (2, 1012342)]),
    # ARRAY_REMOVE filters with a lambda over __x, ARRAY_SLICE binds __a: the columns were the elements
    ("SELECT id, ARRAY_REMOVE(arr, __x), ARRAY_SLICE(arr, __a, 2), ARRAY_SLICE(arr, 1, __a) FROM c",
     [(1, [1, 3], [], [1, 2, 3]), (2, [1], [3, 3], [3])]),
    ("SELECT id, ARRAY_JOIN(ARRAY[__s0, NULL, 'z'], ',', __s0), SPLIT(__s0, ','), "
     "STR_TO_MAP(CONCAT(__s0, '=1')) FROM c",
     [(1, "p,p,z", ["p"], {"p": "1"}), (2, "q,q,z", ["q"], {"q": "1"})]),
    ("SELECT id, CAST(ARRAY[__x, __a] AS STRING), ARRAY_SORT(ARRAY[__a, __x, j]) FROM c",
     [(1, "[2, 7]", [2, 7, 9]), (2, "[3, 1]", [1, 3, 11])]),
])
def test_a_column_named_as_a_bound_name_is_the_column(env, sql, flink):
    got = [tuple(dict(v) if isinstance(v, list) and v and isinstance(v[0], tuple) else v for v in r)
           for r in rows(env, sql)]
    assert got == flink
