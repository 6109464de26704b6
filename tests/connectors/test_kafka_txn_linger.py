"""The transactional producer lingers TXN_LINGER_MS unless the table sets its linger.

Its records become visible only at the commit, which flushes, so the linger delays nothing a
reader sees; librdkafka's 5 ms made its broker thread poll in a loop (benchmarks/README.md,
session 33). The table's ``'properties.linger.ms'`` or librdkafka's alias
``'properties.queue.buffering.max.ms'`` wins (the other producers keep ProducerHandle's 5 ms).
"""

from __future__ import annotations

import pytest
from streamsql.connectors.kafka import transactions
from streamsql.connectors.kafka.transactions import TXN_LINGER_MS, KafkaTransactions


class _Made(Exception):
    pass


def _producer_props(monkeypatch, **props) -> dict:
    """The properties KafkaTransactions.open gives its ProducerHandle (stopped right there)."""
    seen = {}

    def fake(p, what):
        seen.update(p)
        raise _Made

    monkeypatch.setattr(transactions, "ProducerHandle", fake)
    txn = KafkaTransactions({"bootstrap.servers": "127.0.0.1:1", **props}, "job")
    with pytest.raises(_Made):
        txn.open()
    return seen


def test_the_transactional_producer_lingers_by_default(monkeypatch):
    assert TXN_LINGER_MS == 100
    assert _producer_props(monkeypatch)["linger.ms"] == TXN_LINGER_MS


@pytest.mark.parametrize("key", ["linger.ms", "queue.buffering.max.ms"])
def test_the_table_s_linger_wins(monkeypatch, key):
    props = _producer_props(monkeypatch, **{key: "7"})
    assert props[key] == "7"
    assert "linger.ms" not in props or key == "linger.ms"

