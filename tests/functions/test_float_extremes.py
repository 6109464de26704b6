"""MIN / MAX of DOUBLE groups mixing NaN and other values in several orders, as Apache Flink 2.3.

``float_extremes_flink.json`` is written by ``scripts/flink_float_extremes.py`` (PyFlink 2.3, one
task): GROUP BY and the TUMBLE, HOP, CUMULATE and SESSION window TVFs over table ``t``, whose group
``g`` holds its values one second apart in one 10-second window (TUMBLE also with MAX alone, with
COUNT(*) and LAST_VALUE added, and TUMBLE and HOP in ONE_PHASE). Here the same query runs with all
rows in one batch and one row per batch, and its final table must be Flink's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.functions.test_float_aggs import flink_final
from tests.functions.test_float_grid import _run
from tests.runtime.oracle import make_env

FLINK = json.loads(Path(__file__).with_name("float_extremes_flink.json").read_text())
_SLICED = ("no defined answer: Flink 2.3 plans this slicing window aggregate in two phases by default "
           "(agg-phase-strategy AUTO, mini-batch off: LocalWindowAggregate + GlobalWindowAggregate, the "
           "recording's local_global; not so when an unmergeable call such as LAST_VALUE is in it, path "
           "tumble_more_calls). The local operator's partial MIN / MAX of a bundle that begins with NaN "
           "is NaN, and the global merge ifThenElse(greaterThan(partial, max), ...) never takes a NaN: "
           "that bundle's later values are lost ([1.0 | NaN, 2.0] gives MAX 1.0, [-Infinity | NaN, "
           "Infinity] MAX -Infinity). Where the bundles end is timing (the local window buffer's "
           "flushes), so the answer is not reproducible; in ONE_PHASE (paths *_one_phase) Flink's "
           "answer is Java's < / > row by row, as StreamSQL's")
#: Path → why StreamSQL's answer differs from Flink's (strict xfails, every batch size).
KNOWN = {p: _SLICED for p in ("tumble", "hop", "cumulate", "tumble_max")}


def _params():
    for p in FLINK["paths"]:
        for batch in (None, 1):
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN[p])] if p in KNOWN else []
            yield pytest.param(p, batch, marks=marks, id=f"{p}-{batch}")


@pytest.mark.parametrize(("path", "batch_size"), list(_params()))
def test_extremes_are_flinks(tmp_path, path, batch_size):
    """MIN / MAX as STRING give Flink's final table."""
    flink = FLINK["paths"][path]
    settings = {"table.local-time-zone": "UTC", **flink["settings"]}
    if batch_size:  # no accumulator cache: every batch reads back what the last one wrote
        settings["state.cache.max-entries"] = "0"
    env = make_env(tmp_path, "hashmap", batch_size, settings)
    source = tmp_path / "t.json"
    source.write_text("".join(json.dumps(r) + "\n" for r in FLINK["rows"]))
    env.execute_sql(f"CREATE TABLE t ({FLINK['table']}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{source}', 'format' = 'json')")
    assert _run(env, flink["query"], lambda v: v) == flink_final(flink["rows"])
