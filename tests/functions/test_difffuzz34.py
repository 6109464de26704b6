"""Campaign 34 of the differential fuzzer (generator version 5): StreamSQL must print what Flink 2.3 did.

``difffuzz_campaign34.json`` is Flink 2.3's record of seed 3401's expressions and aggregate calls of
generator version 5 (``scripts/flink_difffuzz.py --seed 3401 --count 900 --aggregates 150 --generator 5
--alone FILE``, ``FILE`` written by ``scripts/difffuzz_alone.py`` with the same seed options; VARIANT,
BITMAP, OBJECT_OF and session 33's aggregates drawn most: :mod:`tests.functions.difffuzz_v5`;
docs/fuzzing.md, session 34). Replayed as :class:`tests.functions.difffuzz_campaign.Campaign` says;
``difffuzz_campaign34_known.json`` lists the differences not fixed, each with its reason.
"""

from __future__ import annotations

from tests.functions.difffuzz_campaign import Campaign

CAMPAIGN = Campaign(34)
"""The default suite replays :meth:`~tests.functions.difffuzz_campaign.Campaign.sample` (the known
differences and a case of each function called: some 112 cases); all 1,050 under ``-m "slow or not slow"``
(about 100 s)."""

ours, test_the_campaign_is_generator_version_5s, test_case = CAMPAIGN.module_body(__name__)
