"""Exactly-once with checkpoints on S3 (the local S3Proxy of scripts/s3-local.sh): the job is
killed (SIGKILL, and at every fault-injection point) and restarted, both state backends."""

import pytest

from streamsql.testing import chaos


@pytest.mark.parametrize("query,backend", [("agg", "rocksdb"), ("window", "hashmap")])
def test_killed_job_with_s3_checkpoints_resumes_exactly_once(kafka_bootstrap, s3_settings, query,
                                                             backend, capsys):
    sets = [arg for key, value in s3_settings.items() for arg in ("--set", f"{key}={value}")]
    rc = chaos.main(["--bootstrap", kafka_bootstrap, "--records", "10000", "--kills", "5",
                     "--query", query, "--backend", backend, "--feed-seconds", "5",
                     "--max-kill", "2.5", "--max-run-seconds", "12", *sets])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lost=0 duplicated=0" in out
    assert out.count("kill ") >= 5
