"""A recorded campaign of the differential fuzzer, replayed here: what its test modules share.

A campaign is Flink 2.3's record of one seed's expressions and aggregate calls of one generator
version (``scripts/flink_difffuzz.py --seed S --count N --aggregates A --generator V``), committed as
``difffuzz_campaign<NN>.json`` with the differences not fixed in ``difffuzz_campaign<NN>_known.json``
(case key → reason; a strict xfail each: a fixed one must leave the list; ``STREAMSQL_DIFFFUZZ_KNOWN=write``
rewrites it, keeping the reasons written). The record is replayed batched
(:func:`tests.functions.test_difffuzz.replay`): Flink's answered cases :attr:`Campaign.group` to a job
(a failing job split in four), those whose job failed a job each, the refused ones planned
:attr:`Campaign.group` at a time. The default suite replays a sample (:meth:`Campaign.sample`): the
known differences and a case of each function the campaign calls; the others are marked ``slow``
(``-m "slow or not slow"``: all). A campaign's test module binds :meth:`Campaign.module_body`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.functions import difffuzz as fz
from tests.functions.test_difffuzz import _key, check, replay, verdict

HERE = Path(__file__).parent


def out_of_memory(case: dict) -> bool:
    """Flink's JVM ran out of memory on it (REPEAT / LPAD / RPAD to 2147483647 characters): no answer
    to compare with, and building the string here takes gigabytes; not replayed."""
    return "OutOfMemoryError" in case.get("error", "")


def features(case: dict) -> set[str]:
    """What a case stands for in the default suite's sample: each function it calls (by name), scalar
    or aggregate, in a session time zone or not, and Flink's outcome (rows, refused, job failed)."""
    calls = set(re.findall(r"\b([A-Z_][A-Z_0-9]*)\s*\(", case["expr"]))
    outcome = "refused" if "refused" in case else "error" if "error" in case else "rows"
    return calls | {"aggregate" if case.get("aggregate") else "scalar", f"zone {bool(case.get('zone'))}",
                    f"outcome {outcome}"}


class Campaign:
    """Campaign ``number``'s record and known differences (files ``difffuzz_campaign<number>*.json``)."""

    def __init__(self, number: int, group: int = 10):
        """Load the record and the known list; ``group``: cases per replay job or planning group."""
        self.path = HERE / f"difffuzz_campaign{number}.json"
        self.doc = fz.load(self.path)
        self.cases: list[dict] = self.doc["cases"]
        self.known_file = HERE / f"difffuzz_campaign{number}_known.json"
        self.known: dict[str, str] = json.loads(self.known_file.read_text(encoding="utf-8"))
        self.group = group

    def sample(self) -> set[int]:
        """The default suite's cases (indexes into the record): every known difference, then, greedily,
        the case that adds the most :func:`features` not yet represented (the first such case on a tie)
        until each feature of the campaign is represented. Campaign 32: 120 of 2,100 cases, every
        function it calls among them (every 16th case took 176 and left 81 of its 180 functions out)."""
        chosen = {n for n, c in enumerate(self.cases) if _key(c) in self.known}
        drawn = [features(c) for c in self.cases]
        missing = set().union(*drawn) - set().union(*(drawn[n] for n in chosen))
        while missing:
            n = max(range(len(self.cases)), key=lambda n: (len(drawn[n] & missing), -n))
            chosen.add(n)
            missing -= drawn[n]
        return chosen

    def params(self) -> list:
        """``test_case``'s parameters: each case, marked ``slow`` unless in the default suite."""
        sample = self.sample()
        return [pytest.param(c, id=_key(c)[:120], marks=() if n in sample else pytest.mark.slow)
                for n, c in enumerate(self.cases)]

    def ours(self, request, tmp_path_factory, module: str) -> dict[str, tuple]:
        """StreamSQL's outcome of every case the session selected of test module ``module`` (all of them
        to rewrite the known list, with ``STREAMSQL_DIFFFUZZ_KNOWN=write``)."""
        assert self.doc["data"] == fz.data_lines(), "the input table changed: re-record the campaign"
        selected = {_key(item.callspec.params["case"]) for item in request.session.items
                    if getattr(item, "originalname", None) == "test_case" and item.module.__name__ == module}
        every = os.environ.get("STREAMSQL_DIFFFUZZ_KNOWN") == "write"
        run = [c for c in self.cases if (every or _key(c) in selected) and not out_of_memory(c)]
        out = replay(run, tmp_path_factory, self.group, batched=True)
        if every:
            failed = [v for v in out.values() if v[0] == "batch failed"]
            assert not failed, f"not rewriting {self.known_file.name}: {len(failed)} cases were not compared"
            found = {_key(c): verdict(c, out[_key(c)]) for c in run if "skipped" not in c}
            known = {k: self.known.get(k) or f"not fixed yet: {v.split(':')[0]}"
                     for k, v in found.items() if v}
            text = json.dumps(known, indent=1, ensure_ascii=False) + "\n"
            self.known_file.write_text(text, encoding="utf-8")
        return out

    def check_generated(self) -> None:
        """The recorded expressions are what the recorded generator version draws for the recorded
        seed, in its order (those answered so far, when the document is ``partial``)."""
        (seed, count, aggregates, version), = self.doc["seeds"]
        lines = fz.generate(seed, count, version=version)
        lines += ["AGG " + a for a in fz.generate_aggregates(seed, aggregates, version=version)]
        recorded = [fz.case_key(c, "AGG ") for c in self.cases]
        if "partial" in self.doc:
            assert self.doc["partial"] == f"{len(recorded)} of {len(lines)} cases"
            lines = [ln for ln in lines if ln in set(recorded)]
        assert recorded == lines

    def check_case(self, ours: dict[str, tuple], case: dict) -> None:
        """One case: StreamSQL's outcome is Flink's, or the difference is known (a strict xfail)."""
        if out_of_memory(case):
            pytest.skip(f"no answer of Flink's: {case['error'][:120]}")
        check(case, ours[_key(case)], self.known)

    def module_body(self, module: str) -> tuple:
        """A campaign test module's body, for ``module`` (its ``__name__``) to bind at its top level:
        ``ours, test_the_campaign_is_generator_version_<V>s, test_case = CAMPAIGN.module_body(__name__)``
        (pytest names each test by the name bound to it).

        Returns ``(ours, test_generated, test_case)``: the module-scoped fixture of StreamSQL's outcomes
        (:meth:`ours`), the test of :meth:`check_generated`, and ``test_case`` parametrized by
        :meth:`params` (:meth:`check_case`).
        """

        @pytest.fixture(scope="module")
        def ours(request, tmp_path_factory) -> dict[str, tuple]:
            """StreamSQL's outcome of every selected case of the campaign."""
            return self.ours(request, tmp_path_factory, module)

        (seed, _, _, version), = self.doc["seeds"]

        def test_generated():
            self.check_generated()

        test_generated.__doc__ = (f"The recorded expressions are what version {version} of the generator "
                                  f"draws for seed {seed}, in its order.")

        @pytest.mark.parametrize("case", self.params())
        def test_case(ours, case):
            self.check_case(ours, case)

        return ours, test_generated, test_case
