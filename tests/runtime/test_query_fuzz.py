"""A few seeds of the random-query oracle (:mod:`tests.runtime.query_fuzz`) in the default suite.

Each seed is one generated query — filters, GROUP BY/HAVING, aggregates of aggregates, joins
(of aggregates, three-way, with non-equi parts), set operations, Top-N, window TVFs and their
Top-N, deduplication and joins, session windows, legacy windows, OVER, interval joins, over an
insert-only table, a debezium changelog or one that keeps deleting the extremes — run streaming on
a random backend and batch size, and compared with DuckDB's batch answer. Long campaigns:
``python -m tests.runtime.query_fuzz --seeds 0:2000``.

A few seeds also run stopped with a savepoint part-way and resumed in a fresh environment
(:mod:`tests.runtime.query_fuzz_savepoint`; campaigns: ``python -m tests.runtime.query_fuzz
--savepoint --seeds 0:300``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime import query_fuzz
from tests.runtime.query_fuzz import check, data_files, make_query
from tests.runtime.query_fuzz_savepoint import check_savepoint, resume_plan

#: 0..15 but the slowest (9, 11, 12: window joins and event-time dedup at batch size 1), and 76: a
#: session window over rows exactly the gap apart (one session, as Flink's TimeWindow.intersects)
SEEDS = [*range(9), 10, *range(13, 16), 76]
#: cheap seeds (a few seconds each) of the savepoint variant: an aggregate of cdc and of cdx, a join
#: of two aggregates, a CUMULATE, a window dedup and a TUMBLE pending at the cut, UNION ALL,
#: ORDER BY ... LIMIT; 6 and 49 restore into the other backend
SAVEPOINT_SEEDS = [1, 3, 6, 13, 16, 17, 25, 26, 49]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return data_files(tmp_path_factory.mktemp("query-fuzz"))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_query_matches_duckdb(seed, files, tmp_path):
    check(seed, files, tmp_path)


@pytest.mark.parametrize("seed", range(6))
def test_random_over_ordered_by_a_non_time_column_matches_duckdb(seed, files, tmp_path):
    check(seed, files, tmp_path, "over_nontime")


@pytest.mark.parametrize("seed", SAVEPOINT_SEEDS)
def test_random_query_resumed_from_a_savepoint_matches_duckdb(seed, files, tmp_path):
    check_savepoint(seed, files, tmp_path)


#: ``--extras`` seeds (:func:`~tests.runtime.query_fuzz.extras_query`), across a savepoint: 3 a GROUP BY
#: under a STATE_TTL hint (its CTAS was refused, "needs AS": the hint's positions taken for the
#: query's), 90 a temporal sort (its rows checked in rowtime order too), 80 a join under STATE_TTL
EXTRAS_SAVEPOINT_SEEDS = [3, 90, 80]


@pytest.mark.parametrize("seed", EXTRAS_SAVEPOINT_SEEDS)
def test_extras_resumed_from_a_savepoint_match_duckdb(seed, files, tmp_path, monkeypatch):
    monkeypatch.setattr(query_fuzz, "EXTRAS", "files")
    assert query_fuzz.make_query(seed).shape in ("ttl_agg", "tsort", "ttl_join")
    check_savepoint(seed, files, tmp_path)


@pytest.mark.parametrize("seeds", [SEEDS, SAVEPOINT_SEEDS], ids=["plain", "savepoint"])
def test_the_seeds_cover_every_source_and_both_backends(seeds):
    """The default seeds are not all one shape: each source and backend appears (and, resumed from
    a savepoint, a restore into each other backend)."""
    qs = [make_query(s) for s in seeds]
    assert {q.source for q in qs} == {"t", "cdc", "cdx", "tw"}
    assert {q.backend for q in qs} == {"hashmap", "rocksdb"}
    if seeds is SAVEPOINT_SEEDS:
        switches = {resume_plan(s, q).backends for s, q in zip(seeds, qs)}
        assert {("hashmap", "rocksdb"), ("rocksdb", "hashmap")} <= switches
