"""Campaign 32 of the differential fuzzer (generator version 4): StreamSQL must print what Flink 2.3 did.

``difffuzz_campaign32.json`` is Flink 2.3's record of seed 3201's expressions and aggregate calls
of generator version 4 (``scripts/flink_difffuzz.py --seed 3201 --count 2000 --aggregates 100
--generator 4 [--alone FILE]``, all 2,100 cases: session 32 recorded 717 with ``--partial``, session 33
resumed the journal and finished it; docs/fuzzing.md, sessions 32 and 33; a document written with
``--partial`` says how many it holds in ``"partial"``). The record is replayed batched
(:func:`tests.functions.test_difffuzz.replay`; the default suite a sample, :data:`SAMPLE`: the known
differences and a case of each function the campaign calls): Flink's
answered cases :data:`GROUP` to a job (a failing job split in four), those whose job failed a job each, the
refused ones planned :data:`GROUP` at a time (halved while our planner refuses them).
``difffuzz_campaign32_known.json`` lists the differences not fixed, each with its reason (a strict
xfail each: a fixed one must leave the list; ``STREAMSQL_DIFFFUZZ_KNOWN=write`` rewrites it,
keeping the reasons written).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.functions import difffuzz as fz
from tests.functions.test_difffuzz import _key, check, replay, verdict

CAMPAIGN = Path(__file__).parent / "difffuzz_campaign32.json"
DOC = fz.load(CAMPAIGN)
CASES = DOC["cases"]
KNOWN_FILE = Path(__file__).parent / "difffuzz_campaign32_known.json"
KNOWN: dict[str, str] = json.loads(KNOWN_FILE.read_text(encoding="utf-8"))
GROUP = 10
"""Cases per replay job or planning group."""


def _features(case: dict) -> set[str]:
    """What a case stands for in the default suite's sample: each function it calls (by name), scalar
    or aggregate, in a session time zone or not, and Flink's outcome (rows, refused, job failed)."""
    calls = set(re.findall(r"\b([A-Z_][A-Z_0-9]*)\s*\(", case["expr"]))
    outcome = "refused" if "refused" in case else "error" if "error" in case else "rows"
    return calls | {"aggregate" if case.get("aggregate") else "scalar", f"zone {bool(case.get('zone'))}",
                    f"outcome {outcome}"}


def _sample() -> set[int]:
    """The default suite's cases (indexes into :data:`CASES`): every known difference, then, greedily,
    the case that adds the most :func:`_features` not yet represented (the first such case on a tie)
    until each feature of the campaign is represented: about 120 of the 2,100 cases, every function
    the campaign calls among them (every 16th case took 176 and left 81 of its 180 functions out)."""
    chosen = {n for n, c in enumerate(CASES) if _key(c) in KNOWN}
    features = [_features(c) for c in CASES]
    covered = set().union(*(features[n] for n in chosen))
    missing = set().union(*features) - covered
    while missing:
        n = max(range(len(CASES)), key=lambda n: (len(features[n] & missing), -n))
        chosen.add(n)
        missing -= features[n]
    return chosen


def _out_of_memory(case: dict) -> bool:
    """Flink's JVM ran out of memory on it (REPEAT / LPAD / RPAD to 2147483647 characters): no answer
    to compare with, and building the string here takes gigabytes; not replayed."""
    return "OutOfMemoryError" in case.get("error", "")


SAMPLE = _sample()
"""The default suite's cases (:func:`_sample`); the others are marked ``slow`` (``-m "slow or not slow"``:
all 2,100, about 3 minutes)."""


@pytest.fixture(scope="module")
def ours(request, tmp_path_factory) -> dict[str, tuple]:
    """StreamSQL's outcome of every selected case of the campaign (see :func:`replay`; all of them
    to rewrite the known list)."""
    assert DOC["data"] == fz.data_lines(), "the input table changed: the campaign must be re-recorded"
    selected = {_key(item.callspec.params["case"]) for item in request.session.items
                if getattr(item, "originalname", None) == "test_case" and item.module.__name__ == __name__}
    every = os.environ.get("STREAMSQL_DIFFFUZZ_KNOWN") == "write"
    run = [c for c in CASES if (every or _key(c) in selected) and not _out_of_memory(c)]
    out = replay(run, tmp_path_factory, GROUP, batched=True)
    if every:
        failed = [v for v in out.values() if v[0] == "batch failed"]
        assert not failed, f"not rewriting {KNOWN_FILE.name}: {len(failed)} cases were not compared"
        found = {_key(c): verdict(c, out[_key(c)]) for c in run if "skipped" not in c}
        known = {k: KNOWN.get(k) or f"not fixed yet: {v.split(':')[0]}" for k, v in found.items() if v}
        KNOWN_FILE.write_text(json.dumps(known, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def test_the_campaign_is_generator_version_4s():
    """The recorded expressions are what version 4 of the generator draws for the recorded seed, in
    its order (those Flink answered so far, when the document is ``partial``)."""
    (seed, count, aggregates, version), = DOC["seeds"]
    lines = fz.generate(seed, count, version=version)
    lines += ["AGG " + a for a in fz.generate_aggregates(seed, aggregates, version=version)]
    recorded = [fz.case_key(c, "AGG ") for c in CASES]
    if "partial" in DOC:
        assert DOC["partial"] == f"{len(recorded)} of {len(lines)} cases"
        lines = [ln for ln in lines if ln in set(recorded)]
    assert recorded == lines


@pytest.mark.parametrize("case", [pytest.param(c, id=_key(c)[:120], marks=() if n in SAMPLE else
                                               pytest.mark.slow) for n, c in enumerate(CASES)])
def test_case(ours, case):
    if _out_of_memory(case):
        pytest.skip(f"no answer of Flink's: {case['error'][:120]}")
    check(case, ours[_key(case)], KNOWN)
