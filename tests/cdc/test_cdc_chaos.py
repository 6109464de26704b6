"""Exactly-once under crashes with the mysql-cdc source: the short version of the CDC crash campaign.

The long one (issue 13's acceptance: 200,000 rows, >= 10 kills)::

    python -m streamsql.testing.chaos_cdc --rows 200000 --kills 12
"""

import pytest

from streamsql.testing import chaos_cdc


@pytest.mark.slow
def test_cdc_crash_campaign_is_exactly_once(mariadb, postgres, kafka_bootstrap, capsys):
    rc = chaos_cdc.main(["--bootstrap", kafka_bootstrap, "--mariadb", f"{mariadb.host}:{mariadb.port}",
                         "--postgres", f"{postgres.host}:{postgres.port}", "--rows", "20000",
                         "--chunk", "500",
                         "--kills", "6", "--feed-seconds", "8", "--max-run-seconds", "15"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "kafka: lost=0 duplicated=0 wrong=0 postgres: lost=0 duplicated=0 wrong=0" in out
    assert out.count("kill ") >= 6 and "(during the snapshot)" in out
