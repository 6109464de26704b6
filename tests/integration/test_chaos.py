"""Exactly-once under crashes: the short CI version of the crash campaign (>= 5 kills, one at
every fault-injection point). The full campaign is documented in docs/checkpointing.md."""

import pytest

from streamsql.testing import chaos


@pytest.mark.parametrize("query,backend", [("agg", "rocksdb"), ("filter", "hashmap"), ("window", "rocksdb"),
                                           ("topn", "hashmap"), ("dedup", "rocksdb"), ("udaf", "hashmap"),
                                           ("join", "rocksdb"), ("join-append", "hashmap"),
                                           ("join-inner", "rocksdb"),
                                           # streamsql.testing.chaos_queries
                                           ("window-upsert", "rocksdb"),
                                           ("two-sinks", "hashmap"),
                                           ("multi-topic", "rocksdb"),
                                           pytest.param("interval-join", "hashmap", marks=pytest.mark.slow),
                                           pytest.param("window-topn", "rocksdb", marks=pytest.mark.slow)])
def test_crash_campaign_is_exactly_once(kafka_bootstrap, query, backend, capsys):
    rc = chaos.main(["--bootstrap", kafka_bootstrap, "--records", "20000", "--kills", "5",
                     "--query", query, "--backend", backend,
                     "--feed-seconds", "6", "--max-kill", "2.5", "--max-run-seconds", "12"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lost=0 duplicated=0" in out
    assert out.count("kill ") >= 5


@pytest.mark.parametrize("query,backend", [("filter", "hashmap")])
def test_worker_crash_campaign_is_exactly_once(kafka_bootstrap, query, backend, capsys):
    """A parallel job on 2 workers: kill -9 of a worker (one restart per fault point), one frozen.

    Kills every 1-2.5 s and restarts within 2 s (the full campaign: 2-6 s and 5 s), so the
    short version spends its time on kills, not on waiting between them.
    """
    rc = chaos.main(["--bootstrap", kafka_bootstrap, "--workers", "2", "--records", "20000", "--kills", "6",
                     "--query", query, "--backend", backend, "--feed-seconds", "10", "--freeze",
                     "--min-kill", "1", "--max-kill", "2.5", "--max-restart-delay", "2"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lost=0 duplicated=0" in out
    assert out.count("kill ") >= 6 and "froze worker" in out
