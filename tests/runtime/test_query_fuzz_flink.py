"""Random queries against Flink 2.3's own answers (:mod:`tests.runtime.query_fuzz_flink`).

``query_fuzz_flink.json`` holds what PyFlink answered for each recorded seed of the random-query
generators (``tests/runtime/query_fuzz.py``'s and the typed shapes of
``tests/runtime/query_fuzz_typed.py``): result types and final rows, or its refusal, or its job's
failure (``scripts/flink_queryfuzz.py`` recorded it). StreamSQL runs the same query over the same
files and must agree. The default suite replays :data:`DEFAULT` (every seed a fix came from and a
few of each generator's shapes); ``-m slow`` replays the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime import flink_queries as fq
from tests.runtime.query_fuzz import data_files
from tests.runtime.query_fuzz_flink import ACCEPTED, KNOWN, check_case, check_data
from tests.runtime.query_fuzz_typed import BASE

DOC = fq.load()
CASES = {c["seed"]: c for c in DOC["cases"] if "skipped" not in c}
#: The seeds of the default suite: each fixed difference's seed, then a few cheap ones.
REGRESSIONS = [100076]  # FLOOR of a DECIMAL: its type
#: a few of each generator: aggregates over cdc/cdx, a join of aggregates, a window join, event-time
#: dedup (Flink keeps the rowtime), a typed GROUP BY, division and f / 0, RANK refused by both, OVER
SAMPLE = [1, 2, 3, 8, 9, 11, 100000, 100004, 100008, 100011, 100014, 100018, 100020, 100022]
DEFAULT = sorted(set(REGRESSIONS + SAMPLE) & set(CASES))


def _param(seed: int):
    reason = KNOWN.get(seed) or ACCEPTED.get(seed)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(seed, marks=marks, id=f"{seed}-{CASES[seed]['shape']}")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    f = data_files(tmp_path_factory.mktemp("query-fuzz-flink"))
    check_data(DOC, f)
    return f


@pytest.mark.parametrize("seed", [_param(s) for s in DEFAULT])
def test_query_matches_flink(seed, files, tmp_path):
    check_case(CASES[seed], files, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [_param(s) for s in sorted(set(CASES) - set(DEFAULT))])
def test_every_recorded_query_matches_flink(seed, files, tmp_path):
    check_case(CASES[seed], files, tmp_path)


def test_the_fixture_covers_both_generators_and_every_source():
    """The recorded campaign is not one shape: both generators, every table, refusals recorded."""
    assert {s >= BASE for s in CASES} == {True, False}
    assert {c["source"] for c in CASES.values()} == {"t", "cdc", "cdx", "tw"}
    assert len(CASES) >= 300
    assert set(KNOWN) | set(ACCEPTED) <= set(CASES)
