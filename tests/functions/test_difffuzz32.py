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

from tests.functions.difffuzz_campaign import Campaign

CAMPAIGN = Campaign(32)
"""The default suite replays :meth:`~tests.functions.difffuzz_campaign.Campaign.sample` (the known
differences and a case of each function called: some 116 cases); all 2,100 under ``-m "slow or not slow"``
(about 3 minutes)."""

ours, test_the_campaign_is_generator_version_4s, test_case = CAMPAIGN.module_body(__name__)
