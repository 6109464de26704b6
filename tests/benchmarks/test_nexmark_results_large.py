"""Nexmark q0–q22 on larger and other inputs than ``test_nexmark_results``: Flink 2.3's final tables.

Each ``benchmarks/nexmark/expected_large/*.json`` was written by Flink 2.3 (``scripts/
nexmark_flink.py --events N --rate R [--base-time T] [--option K=V ...] --out FILE``, its input
recorded in the file, run in groups of queries, one hold of the Flink lock each): 200,000 events
at 500 events/s across midnight (many 2 s / 10 s windows, large Top-N and join states);
50,000 events at 2 events/s from 19:30 with other proportions and seed (sparse windows and
sessions, hours and a day changing); 100,000 events at the benchmark's default 10,000,000
events/s (every event within 10 ms: ties on ``dateTime`` and prices for the Top-N and joins).
Here each query runs on StreamSQL over the ``nexmark`` connector with that input and its
folded print changelog must summarize the same (``benchmarks.nexmark.compare``). Slow (minutes
per input): ``pytest -m slow tests/benchmarks/test_nexmark_results_large.py``.
"""

from __future__ import annotations

import json

import pytest

from benchmarks.nexmark import compare, sql

FILES = sorted((sql.HERE / "expected_large").glob("*.json"))
CASES = [(f, q) for f in FILES for q in json.loads(f.read_text())["queries"]]


@pytest.mark.slow
@pytest.mark.parametrize(("path", "query"), CASES, ids=[f"{f.stem}-{q}" for f, q in CASES])
def test_query_gives_flinks_final_table(path, query):
    doc = json.loads(path.read_text())
    verdict = compare.compare(query, doc["queries"][query], doc["input"], None)
    assert verdict.startswith(("same", "ran")), verdict
