"""Campaign 32 of the differential fuzzer (generator version 4): StreamSQL must print what Flink 2.3 did.

``difffuzz_campaign32.json`` is Flink 2.3's record of seed 3201's expressions and aggregate calls
of generator version 4 (``scripts/flink_difffuzz.py --seed 3201 --count 2000 --aggregates 100
--generator 4 [--alone FILE]``, all 2,100 cases: session 32 recorded 717 with ``--partial``, session 33
resumed the journal and finished it; docs/fuzzing.md, sessions 32 and 33; a document written with
``--partial`` says how many it holds in ``"partial"``). Replayed as
:class:`tests.functions.difffuzz_campaign.Campaign` says; ``difffuzz_campaign32_known.json`` lists the
differences not fixed, each with its reason.
"""

from __future__ import annotations

import pytest

from tests.functions.difffuzz_campaign import Campaign

CAMPAIGN = Campaign(32)
"""The default suite replays :meth:`~tests.functions.difffuzz_campaign.Campaign.sample` (the known
differences and a case of each function called: some 116 cases); all 2,100 under ``-m "slow or not slow"``
(about 3 minutes)."""


@pytest.fixture(scope="module")
def ours(request, tmp_path_factory) -> dict[str, tuple]:
    """StreamSQL's outcome of every selected case of the campaign."""
    return CAMPAIGN.ours(request, tmp_path_factory, __name__)


def test_the_campaign_is_generator_version_4s():
    """The recorded expressions are what version 4 of the generator draws for seed 3201, in its order."""
    CAMPAIGN.check_generated()


@pytest.mark.parametrize("case", CAMPAIGN.params())
def test_case(ours, case):
    CAMPAIGN.check_case(ours, case)
