"""Checkpoints of older StreamSQL versions against today's plans of the same SQL: restored where their
state means the same, refused with the reason where it does not.

``signatures/<commit>.json`` holds the state signatures two versions record for a set of stateful
queries (``scripts/state_signature_audit.py``, run with that version): 719b83c6, before session 29,
and f3e00a5a, before the fuzz31 merge (each query read whole, ``all``, and by its first two columns,
``first``: since that merge a GROUP BY computes only the calls read). The signature changes of
sessions 29-31 that cannot map are refused naming the call and why (MIN/MAX without retraction over
an increasing argument since float30, floating SUM and SUM/AVG(DISTINCT) accumulators since
sumdist31); every other checkpoint is claimed, the pruned GROUP BYs through their signature before
pruning (the state rewrite itself: tests/checkpoint/test_pruned_calls_savepoint.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.checkpoint.operators import (
    BEFORE_PRUNING,
    StateMappingError,
    claim_state,
    pruned_upgrades,
    recordable,
)
from streamsql.plan.state_signature import recorded_signatures
from tests.plan.test_state_signature import signatures_in

FIXTURES = Path(__file__).parent / "signatures"
RECORDED = {path.stem: json.loads(path.read_text()) for path in sorted(FIXTURES.glob("*.json"))}
#: (version, query/variant) -> what the refusal must say.
REFUSED = {
    ("719b83c6", "float_sum/all"): (
        "call 1 (sum: accumulator format 1 -> 2), call 3 (sum: accumulator format 1 -> 2): its accumulator "
        "changed format (StreamSQL since sumdist31"),
    ("719b83c6", "distinct_float/all"): (
        "call 1 (sum_distinct: accumulator format 1 -> 2), call 2 (avg_distinct: accumulator format 1 -> 2)"),
    ("719b83c6", "minmax_retract/all"): (
        "call 2 (max_retract -> max): this program computes it without retraction, as Flink's plan for an "
        "argument that only grows (MAX) or only shrinks (MIN) (StreamSQL since float30)"),
}
#: (version, query/variant) -> the kept calls of each pruned GROUP BY whose state is rewritten.
PRUNED = {
    ("f3e00a5a", "sum_count/first"): [[0]],
    ("f3e00a5a", "float_sum/first"): [[0]],
    ("f3e00a5a", "float_minmax/first"): [[0]],
    ("f3e00a5a", "distinct_int/first"): [[0]],
    ("f3e00a5a", "distinct_float/first"): [[0]],
    ("f3e00a5a", "distinct_decimal/first"): [[0]],
    ("f3e00a5a", "strings/first"): [[0]],
    ("f3e00a5a", "minmax_retract/first"): [[0]],
}
CASES = [(version, name) for version, data in RECORDED.items() for name in data["queries"]]


@pytest.fixture(scope="module")
def today():
    env = StreamEnvironment()
    for ddl in next(iter(RECORDED.values()))["ddl"]:
        env.execute_sql(ddl)

    yield signatures_in(env)
    env.close()


def test_the_fixtures_are_those_versions_and_every_query_planned():
    assert sorted(RECORDED) == ["719b83c6", "f3e00a5a"]
    for version, data in RECORDED.items():
        assert data["written_by"].startswith(version)
        assert not [n for n, q in data["queries"].items() if "error" in q["signatures"]], version


@pytest.mark.parametrize(("version", "name"), CASES, ids=[f"{v}-{n}" for v, n in CASES])
def test_an_older_checkpoint_restores_or_is_refused_saying_why(today, version, name):
    query = RECORDED[version]["queries"][name]
    recorded = recorded_signatures(query["signatures"])
    current = today(query["sql"])
    why = REFUSED.get((version, name))
    if why is not None:
        with pytest.raises(StateMappingError) as err:
            claim_state(recorded, current, location="chk-1", job="j", ignore=False)
        assert why in str(err.value)
        assert "Cannot map checkpoint/savepoint state for operator group-agg-" in str(err.value)
        return
    assert claim_state(recorded, current, location="chk-1", job="j", ignore=False) == []
    upgrades = pruned_upgrades(recorded, current)
    assert sorted(upgrades.values()) == PRUNED.get((version, name), [])


@pytest.mark.parametrize("name", sorted(RECORDED["f3e00a5a"]["queries"]))
def test_todays_checkpoint_restores_into_the_same_plan_as_it_is(today, name):
    """What a checkpoint records (no ``before_pruning``; a pruned GROUP BY's ``pruned_calls``) claims
    today's plan of the same SQL unchanged: nothing to rewrite."""
    current = today(RECORDED["f3e00a5a"]["queries"][name]["sql"])
    written = recorded_signatures(recordable(current))
    assert not any(BEFORE_PRUNING in sig for sig in written.values())
    assert claim_state(written, current, location="chk-1", job="j", ignore=False) == []
    assert pruned_upgrades(written, current) == {}
