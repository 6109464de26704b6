"""SUM / AVG(DISTINCT d) FILTER (WHERE f) of a lone -0.0 beside other aggregate calls, as Flink 2.3.

Campaign 32 of the differential fuzzer recorded ``0.0`` for ``SUM(DISTINCT d) FILTER (WHERE f)`` of the
fuzzer's table among the campaign's other calls, ``-0.0`` alone (docs/fuzzing.md, sessions 33 and 34).
``sumdistinct34_flink.json`` (``scripts/flink_sumdistinct34.py``) holds Flink 2.3's final table of the
call beside each of a grid of other calls (DISTINCT of the same and of other arguments, with and
without FILTER, non-DISTINCT: one GroupAggregate each) and of the bisection of campaign 32's calls;
every query must give Flink's final table here.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from tests.functions import difffuzz as fz

FLINK = json.loads((Path(__file__).parent / "sumdistinct34_flink.json").read_text(encoding="utf-8"))
QUERIES = {**FLINK["queries"], **FLINK.get("bisect", {}), **FLINK.get("reduce", {}), **FLINK.get("grid", {})}
# Beside a STDDEV / VAR call (DISTINCT or not), Flink 2.3's AggregateReduceFunctionsRule rewrites every SUM
# of the aggregate into $SUM0 (a sum from 0: a lone -0.0 sums to 0.0) and AVG into SUM / COUNT (-0.0):
# ``reduce`` and ``grid`` (streamsql/plan/agg_reduce.py).


@pytest.fixture(scope="module")
def env():
    """A StreamSQL environment over the fuzzer's table."""
    assert FLINK["data"] == fz.data_lines(), "the input table changed: re-record the Flink answers"
    folder = Path(tempfile.mkdtemp(prefix="sumdistinct34-"))
    (folder / "src.json").write_text(fz.data_lines(), encoding="utf-8")
    e = StreamEnvironment()
    e.execute_sql(fz.source_ddl(str(folder / "src.json")))
    return e


def _text(v) -> str | None:
    return None if v is None else str(v)


@pytest.mark.parametrize("query", [q for q, a in QUERIES.items() if "rows" in a])
def test_final_table_is_flinks(env, query):
    final: dict[str, list] = {}
    for kind, row in env.execute_sql(query):
        g, *cells = row
        if kind.short in ("+I", "+U"):
            final[str(g)] = [_text(c) for c in cells]
        else:
            final.pop(str(g), None)
    assert dict(sorted(final.items())) == QUERIES[query]["rows"]
