"""RAND(seed) and RAND_INTEGER(seed, bound) row by row as Flink 2.3 (``tests/functions/flink_rand.json``).

Flink's answers are recorded by ``scripts/flink_rand.py`` (one task: one java.util.Random per call
site with a literal seed, a new one per row for any other seed). Each query runs here with all rows
in one batch and with one row per batch (the Randoms live on across batches).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from streamsql.core.elements import RowKind
from streamsql.core.errors import StreamSQLError
from streamsql.functions.scalars.java_random import JavaRandom, first_doubles, first_ints
from tests.runtime.oracle import fold, make_env

FLINK = json.loads((Path(__file__).parent / "flink_rand.json").read_text())
QUERIES = {q["query"]: q for q in FLINK["queries"]}
FIRST = QUERIES["SELECT x, RAND(42), RAND_INTEGER(42, 10), RAND(42), RAND_INTEGER(-7, 1500000000) FROM "
                "(VALUES (1), (2), (3), (4), (5), (6)) AS t(x)"]["rows"]


def test_sequences_are_flinks():
    """nextDouble() and nextInt(bound) of one Random, as Flink's first query's columns."""
    assert JavaRandom(42).doubles(6).tolist() == [r[2] for r in FIRST]
    assert JavaRandom(42).ints(np.full(6, 10)).tolist() == [r[3] for r in FIRST]
    assert JavaRandom(-7).ints(np.full(6, 1500000000)).tolist() == [r[5] for r in FIRST]


def test_draws_in_parts_are_the_same_draws():
    """Drawing per row or per batch, constant or mixed bounds (with retried tries), gives one sequence."""
    bounds = np.array([1500000000, 7, 1 << 30, 1500000000, 1500000000, 3, 1500000000] * 40)
    whole = JavaRandom(-7).ints(bounds)
    r = JavaRandom(-7)
    assert [int(r.ints(bounds[i:i + 1])[0]) for i in range(len(bounds))] == whole.tolist()
    big = np.full(300, 1500000000)
    r = JavaRandom(5)
    assert JavaRandom(5).ints(big).tolist() == [int(r.ints(big[:1])[0]) for _ in range(300)]
    r = JavaRandom(5)
    parts = np.concatenate([r.doubles(3), r.doubles(0), r.doubles(10)])
    assert parts.tolist() == JavaRandom(5).doubles(13).tolist()


def test_first_values_are_a_new_randoms():
    """A seed that is not a literal: the first value of ``new Random(seed)`` per row."""
    seeds = np.array([42, -7, 0, 2**31 - 1])
    assert first_doubles(seeds).tolist() == [JavaRandom(int(s)).doubles(1)[0] for s in seeds]
    bounds = np.array([10, 1500000000, 1 << 20, 1500000000])
    assert first_ints(seeds, bounds).tolist() == [int(JavaRandom(int(s)).ints(bounds[i:i + 1])[0])
                                                  for i, s in enumerate(seeds)]
    with pytest.raises(ValueError, match="bound must be positive"):
        first_ints(seeds, np.array([1, 0, 1, 1]))


@pytest.mark.parametrize("batch_size", [None, 1])
@pytest.mark.parametrize("query", sorted(QUERIES))
def test_query_is_flinks(tmp_path, query, batch_size):
    env = make_env(tmp_path, "hashmap", batch_size, {"table.local-time-zone": "UTC"})
    for s in FLINK["setup"]:
        env.execute_sql(s)
    flink = QUERIES[query]
    if "error" in flink:
        last = flink["error"].split(" / ")[-1].split("\n")[0].split("(")[0].strip()
        with pytest.raises(StreamSQLError, match=last.replace("(", r"\(")):
            list(env.execute_sql(query))
        return
    ours = list(env.execute_sql(query))
    # the final table (each row keeps its x: which row drew which value); an aggregate's updates
    # may come in other batches, a UNION ALL's branches in another order
    shorts = [k.short for k in RowKind]
    assert fold(ours) == fold((RowKind(shorts.index(r[0])), r[1:]) for r in flink["rows"])
