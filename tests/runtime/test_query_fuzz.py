"""A few seeds of the random-query oracle (:mod:`tests.runtime.query_fuzz`) in the default suite.

Each seed is one generated query — filters, GROUP BY/HAVING, aggregates of aggregates, joins,
Top-N, window TVFs, legacy windows, OVER, interval joins, over an insert-only table or a
debezium changelog — run streaming on a random backend and batch size, and compared with
DuckDB's batch answer. Long campaigns: ``python -m tests.runtime.query_fuzz --seeds 0:2000``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime.query_fuzz import check, data_files, make_query

SEEDS = range(16)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return data_files(tmp_path_factory.mktemp("query-fuzz"))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_query_matches_duckdb(seed, files, tmp_path):
    check(seed, files, tmp_path)


def test_the_seeds_cover_every_source_and_both_backends():
    """The default seeds are not all one shape: each source and backend appears."""
    qs = [make_query(s) for s in SEEDS]
    assert {q.source for q in qs} == {"t", "cdc", "tw"}
    assert {q.backend for q in qs} == {"hashmap", "rocksdb"}
