"""The transactional id of a task whose exactly-once Kafka sinks give different prefixes.

Flink's sinks each have their own transactions (its docs ask for a distinct
'sink.transactional-id-prefix' per sink); here the sinks of a task share one transaction, whose
id joins their distinct prefixes, sorted, with '+'. One prefix keeps the id of the single-prefix
rule (an upgraded job resumes its committed checkpoint), so does none ('streamsql').
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamsql.connectors.kafka.transactions import DEFAULT_PREFIX, KafkaTransactions, transaction_prefix

from streamsql.core.connector import TaskResources
from streamsql.core.errors import JobSetupError


@pytest.mark.parametrize(("given", "prefix"), [
    ([None], DEFAULT_PREFIX),
    ([""], DEFAULT_PREFIX),
    (["a"], "a"),
    (["a", "a", None], "a"),
    (["b", "a"], "a+b"),
    (["a", "b", "b", None], "a+b"),
    (["zz", "a-b", "m"], "a-b+m+zz"),
])
def test_the_prefix_joins_the_distinct_given_prefixes_sorted(given, prefix):
    assert transaction_prefix(given) == prefix
    assert transaction_prefix(reversed(given)) == prefix  # the sinks' order does not matter


def _ctx(resources, table, prefix=None, **options):
    o = {"properties.bootstrap.servers": "127.0.0.1:1", **options}
    if prefix is not None:
        o["sink.transactional-id-prefix"] = prefix
    return SimpleNamespace(table=SimpleNamespace(name=table, options=o), job_name="job", task_index=3,
                           config={}, resources=resources)


def _task(*prefixes) -> KafkaTransactions:
    resources = TaskResources()
    txns = {KafkaTransactions.for_context(_ctx(resources, f"t{i}", p)) for i, p in enumerate(prefixes)}
    assert len(txns) == 1  # one transaction per task, its commit point
    (txn,) = txns
    assert resources.committer is txn
    return txn


def test_sinks_with_different_prefixes_share_one_transaction_under_the_joined_id():
    assert _task("b", "a", "b").transactional_id == "a+b-job-3"
    assert _task("b", None).transactional_id == "b-job-3"


def test_one_prefix_keeps_the_single_prefix_id():
    """As before this rule: '<prefix>-<pipeline.name>-<task>' (an upgrade keeps its commit point)."""
    assert _task("p", "p").transactional_id == "p-job-3"
    assert _task(None, None).transactional_id == f"{DEFAULT_PREFIX}-job-3"
    assert KafkaTransactions({}, "job", 3, "p").transactional_id == "p-job-3"


def test_the_progress_topic_and_brokers_still_must_agree():
    resources = TaskResources()
    KafkaTransactions.for_context(_ctx(resources, "a", "a"))
    with pytest.raises(JobSetupError, match="'sink.progress-topic' = 'other' differs from another sink's"):
        KafkaTransactions.for_context(_ctx(resources, "b", "b", **{"sink.progress-topic": "other"}))


def test_a_prefix_cannot_join_an_open_transaction():
    resources = TaskResources()
    txn = KafkaTransactions.for_context(_ctx(resources, "a", "a"))
    txn.handle = object()  # opened: the id is fenced and marked, it cannot change
    KafkaTransactions.for_context(_ctx(resources, "a2", "a"))  # the same id
    with pytest.raises(JobSetupError, match="joins the Kafka transaction 'a-job-3' after it opened"):
        KafkaTransactions.for_context(_ctx(resources, "b", "b"))
